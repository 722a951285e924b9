"""``caesar hook copilot``: GitHub Copilot CLI's hooks, in their VS Code-compatible format.

Copilot CLI 1.0.102 runs the hooks of ``.github/hooks/*.json``. Configured under PascalCase
event names (``PreToolUse``, ``Stop``...), they receive Claude-format payloads
(``hook_event_name``, ``session_id``, ``tool_name``, ``tool_input``; its camelCase events
carry no event name at all), with VS Code's tool names (``Bash``, ``Write``...), and
Copilot reads Claude's answers (``hookSpecificOutput.permissionDecision``, a Stop's
``decision: "block"``; exit 2 at ``PreToolUse`` is a deny). The mapping is therefore
:mod:`.claude_format`'s. What is Copilot's own, seen with the real CLI
(``tests/live/test_copilot_hooks.py``):

* No call id: post-tools pair by tool and input, and a call its ``PreToolUse`` hook refused
  gets no ``PostToolUse``, so the hook closes it as denied at once (``flow.close_refused``).
* A shell command that exits non-zero is a ``PostToolUse`` whose ``tool_result`` says "exit
  code N": status ``error``. A ``tool_result`` of another type than ``success`` is one too.
* ``UserPromptSubmit``'s output is not processed: a prompt the bridge blocks cannot be
  stopped (its tools still meet the pre-tool gate).
* ``ErrorOccurred`` goes to the task's log.
* Inside a caesar task, Copilot runs the project's hooks a second time for the task directory
  caesar adds (``--add-dir``); that run, ``cwd`` the task directory, makes no op.

The seed schema's client enum has no Copilot CLI: it is declared ``unknown``, with
``client_version: "copilot-cli"``.
"""

from __future__ import annotations

import os
import re

from caesar_core.bridge.clients.claude_format import event_of, fail, parse_common, render
from caesar_core.bridge.clients.common import text_field
from caesar_core.bridge.clients.driver import Adapter, closing_refusals, drive, options
from caesar_core.bridge.clients.flow import Client, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("copilot", "unknown", client_version="copilot-cli")
_EXIT_CODE = re.compile(r"completed with exit code (-?\d+)>\s*\Z")


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    session = text_field(payload, "session_id")
    project = env.get("COPILOT_PROJECT_DIR") or text_field(payload, "cwd")
    if _from_the_task_dir(text_field(payload, "cwd"), env.get("CAESAR_TASK_DIR")):
        return Step(None, session=session, project=project)  # the same hook, loaded twice
    if event == "ErrorOccurred":
        error = payload.get("error")
        message = text_field(error, "message") if isinstance(error, dict) else None
        return Step(None, session=session, project=project, progress=f"error: {message or '?'}")
    step = parse_common(event, payload, session=session, project=project)
    if step.op == "post-tool" and step.status == "success":
        result = payload.get("tool_result")
        step.result = result
        if _failed(result):
            step.status = "error"
    return step


def _from_the_task_dir(cwd: str | None, task_dir: str | None) -> bool:
    """Whether this run of the hook is the copy Copilot loaded for the task directory.

    caesar gives Copilot the task directory with ``--add-dir`` (the report is written there),
    and Copilot then also loads the hooks of the repository that directory is in, the
    project's, running each twice: once with the session's directory as ``cwd``, once with
    the added one. In a worktree task the workspace's own hooks (from its branch, as every
    client reads them) are the gate; the second run makes no op."""
    if not cwd or not task_dir:
        return False
    return os.path.realpath(cwd) == os.path.realpath(task_dir)


def _failed(result: object) -> bool:
    if not isinstance(result, dict):
        return False
    kind = result.get("result_type")
    if isinstance(kind, str) and kind != "success":
        return True
    text = result.get("text_result_for_llm")
    found = _EXIT_CODE.search(text) if isinstance(text, str) else None
    return found is not None and int(found.group(1)) != 0


def main(argv: list[str]) -> int:
    client, _ = options(argv, CLIENT)
    env = dict(os.environ)
    answer = closing_refusals(render, "PreToolUse", env)
    return drive(Adapter(client, event_of, parse, answer, fail), env=env)


__all__ = ["CLIENT", "main", "parse"]
