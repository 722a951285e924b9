"""``caesar hook qwen``: Qwen Code's hooks, which speak Claude Code's format.

Qwen Code 0.24.4 names Claude Code's events and fields (``hook_event_name``, ``session_id``,
``tool_name``, ``tool_input``, ``tool_use_id``, ``last_assistant_message``) and reads Claude
Code's answers (``hookSpecificOutput.permissionDecision``, top-level ``decision: "block"``,
exit 2 failing closed): the mapping is :mod:`.claude_format`'s. What is Qwen Code's own, seen
with the real CLI (``tests/live/test_qwen_hooks.py``):

* After every batch of tool calls it runs ``UserPromptSubmit`` again, with the same
  ``prompt_id`` and an empty ``prompt``: the turn going on, not a new one. It makes no op (a
  begin would supersede the turn's admission at every batch).
* A call its ``PreToolUse`` hook refused gets no ``PostToolUse``: the hook closes it as
  denied at once (``flow.close_refused``).
* ``PostToolBatch`` (every call of a batch, again) makes no op.

The seed schema's client enum has no Qwen Code: it is declared ``unknown``, with
``client_version: "qwen-code"``.
"""

from __future__ import annotations

import os

from caesar_core.bridge.clients.claude_format import event_of, fail, parse_common, render
from caesar_core.bridge.clients.common import text_field
from caesar_core.bridge.clients.driver import Adapter, closing_refusals, drive, options
from caesar_core.bridge.clients.flow import Client, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("qwen", "unknown", client_version="qwen-code")


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    session = text_field(payload, "session_id")
    project = env.get("QWEN_PROJECT_DIR") or text_field(payload, "cwd")
    if event == "UserPromptSubmit" and payload.get("prompt") == "":
        return Step(None, session=session, project=project)  # the turn going on
    return parse_common(event, payload, session=session, project=project)


def main(argv: list[str]) -> int:
    client, _ = options(argv, CLIENT)
    env = dict(os.environ)
    answer = closing_refusals(render, "PreToolUse", env)
    return drive(Adapter(client, event_of, parse, answer, fail), env=env)


__all__ = ["CLIENT", "main", "parse"]
