"""Google Gemini CLI: ``gemini -p … --output-format stream-json``, written from 0.61.0's stream.

How the modes map, and why (each checked against the real CLI):

- **write**: ``--approval-mode yolo``. Headless, every tool that would ask for confirmation
  is denied by policy, and ``auto_edit`` leaves the shell out of the tool list entirely, so
  a task that must run commands needs yolo. The CLI still refuses paths outside its
  workspace directories; ``--include-directories <task dir>`` admits the report file.
- **read-only**: ``--approval-mode default`` plus a policy file (written to the task
  directory) that allows ``write_file`` on the report path and nothing else. The defaults
  then hold the agent read-only (no shell registered, writes denied by policy). Plan mode
  is *not* used: it lets ``write_file`` write only under its own plans directory, which
  must be inside the project, so the report file in the task directory could never be
  written.
- **trust**: headless runs in a folder the user never trusted exit 55 unless ``--skip-trust``,
  which still ignores the folder's settings; ``GEMINI_CLI_TRUST_WORKSPACE=true`` makes the
  project's settings (hooks, the channel) apply.
- **network**: only Gemini's ``--sandbox`` (docker/podman/seatbelt) cuts it, and caesar
  cannot count on a container runtime, so the network is ``open``.
- **channel**: Gemini reads MCP servers only from settings files, and its system layers
  are skipped unless the file and every parent directory are root-owned, so a task
  directory can never hold them. The channel goes into the workspace's
  ``.gemini/settings.json`` for the run (merged with what the user has there) and the file
  is put back as it was afterwards, so it never shows in the task's diff.

The stream: ``init``, the user prompt echoed, assistant text as ``delta`` fragments,
``tool_use``/``tool_result`` pairs by ``tool_id``, non-fatal ``error`` notices and one
``result`` with the session's token totals (no cost). No thinking: the model's thought
parts never reach stream-json. Write tools report only success, not whether the file
existed, so their changes are ``modified``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from caesar_core import safefs
from caesar_core.agents.base import (
    CHANNEL_SERVER,
    BestTier,
    Capabilities,
    Invocation,
    Launch,
    McpInjection,
    NetworkControl,
    prompt_option,
    read_only,
)
from caesar_core.agents.stream import JsonStreamTranslator, as_int, summarize
from caesar_core.protocol.event import Error, EventPayload, FileChanged, Message, Progress
from caesar_core.protocol.report import ChangeAction

WRITE_TOOLS = ("write_file", "replace")
"""Gemini's file-writing tools; both take ``file_path``."""
TODO_TOOL = "write_todos"
POLICY_FILE = "gemini-policy.toml"
_QUIET = {"init"}
_API_ERROR = re.compile(r"\[API Error: (.*)\]", re.DOTALL)
_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")
"""What a JavaScript regular expression needs escaped (Python's ``re.escape`` escapes more,
and an unneeded escape is an error under the ``u`` flag)."""


class GeminiTranslator(JsonStreamTranslator):
    agent = "gemini"

    def __init__(self, workspace: str | Path, task_dir: str | Path | None = None) -> None:
        super().__init__(workspace)
        self._task_dir = Path(task_dir) if task_dir else None
        """Files written there (the report) are caesar's, never the task's changes, even
        when a read-only task runs in place and the task directory is in the workspace."""
        self._utterance: list[str] = []
        self._params: dict[str, tuple[str, dict[str, Any]]] = {}
        self._todos: set[str] = set()

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        kind = obj.get("type")
        if kind == "message":
            return self._message(obj)
        events = self._flush()
        if kind == "tool_use":
            events += self._tool_use(obj)
        elif kind == "tool_result":
            events += self._tool_result(obj)
        elif kind == "error":
            text = _api_message(obj.get("message")) or "gemini reported an error"
            events.append(Error(message=text, fatal=obj.get("severity") == "error"))
        elif kind == "result":
            events += self._result(obj)
        elif kind in _QUIET:
            self.saw_session(obj.get("session_id"))  # init names it; `gemini --resume` takes it
            events += self.ignore()
        else:
            events += self.unknown()
        return events

    def close(self) -> list[EventPayload]:
        """A message cut short is still the last thing said; then open calls end failed."""
        return self._flush() + super().close()

    # -- messages ---------------------------------------------------------------------------

    def _message(self, obj: dict[str, Any]) -> list[EventPayload]:
        """Assistant text comes in ``delta`` fragments of one utterance: they are joined
        until the next non-message line, so a reader sees one message, not its pieces."""
        if obj.get("role") != "assistant":
            return self._flush() + self.ignore()  # the user prompt, echoed
        content = obj.get("content")
        if not isinstance(content, str):
            return self.unknown()
        if obj.get("delta"):
            self._utterance.append(content)
            return []
        return self._flush() + self._say(content)

    def _flush(self) -> list[EventPayload]:
        text, self._utterance = "".join(self._utterance), []
        return self._say(text)

    def _say(self, text: str) -> list[EventPayload]:
        if not text.strip():
            return []
        self.said(text)
        return [Message(text=text)]

    # -- tools ------------------------------------------------------------------------------

    def _tool_use(self, obj: dict[str, Any]) -> list[EventPayload]:
        call_id, tool = obj.get("tool_id"), obj.get("tool_name")
        if not isinstance(call_id, str) or not isinstance(tool, str):
            return self.unknown()
        params = obj.get("parameters")
        params = params if isinstance(params, dict) else {}
        if tool == TODO_TOOL:
            self._todos.add(call_id)
            return [Progress(message=_todos(params.get("todos")))]
        self._params[call_id] = (tool, params)
        return self.start_call(call_id, tool, self._summary(params))

    def _tool_result(self, obj: dict[str, Any]) -> list[EventPayload]:
        call_id = obj.get("tool_id")
        if not isinstance(call_id, str):
            return self.unknown()
        if call_id in self._todos:
            self._todos.discard(call_id)
            return self.ignore()
        ok = obj.get("status") == "success"
        tool, params = self._params.pop(call_id, ("", {}))
        events = self.end_call(call_id, ok, tool, self._summary(params))
        path = params.get("file_path")
        if ok and tool in WRITE_TOOLS and isinstance(path, str) and self._changes(path):
            events.append(FileChanged(path=self.relative(path), action=ChangeAction.MODIFIED))
        return events

    def _changes(self, path: str) -> bool:
        """Whether a write is one of the task's changes: inside the workspace, and not
        in the task directory."""
        target = Path(path) if Path(path).is_absolute() else self.workspace / path
        if self._task_dir is not None and target.is_relative_to(self._task_dir):
            return False
        shown = self.relative(path)
        return bool(shown) and not Path(shown).is_absolute()

    def _summary(self, params: dict[str, Any]) -> str:
        path = params.get("file_path")
        if isinstance(path, str) and path:
            return summarize(self.relative(path))
        return summarize(params)

    # -- the end ----------------------------------------------------------------------------

    def _result(self, obj: dict[str, Any]) -> list[EventPayload]:
        """One per run; its stats are the session's totals (side calls such as model
        routing included), so they replace, never add."""
        stats = obj.get("stats")
        if isinstance(stats, dict):
            tokens_in = as_int(stats.get("input_tokens"))
            tokens_out = as_int(stats.get("output_tokens"))
            if tokens_in is not None or tokens_out is not None:
                self.add_usage(tokens_in, tokens_out, replace=True)
        if obj.get("status") == "success":
            return []
        error = obj.get("error")
        reason = _api_message(error.get("message")) if isinstance(error, dict) else ""
        self.failure = reason or "gemini ended the run with an error"
        return [Error(message=self.failure, fatal=True)]


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _api_message(value: object) -> str:
    """An API error as its message: the CLI wraps the provider's whole JSON body in
    ``[API Error: …]``, and a reader wants the sentence inside."""
    text = _text(value)
    match = _API_ERROR.fullmatch(text)
    if match is None:
        return text
    try:
        body = safefs.loads(match.group(1))
    except ValueError:
        return match.group(1).strip() or text
    inner = body.get("error") if isinstance(body, dict) else None
    message = _text(inner.get("message")) if isinstance(inner, dict) else ""
    return f"API error: {message}" if message else text


def _todos(todos: object) -> str:
    items = [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []
    done = sum(1 for t in items if t.get("status") == "completed")
    current = next(
        (str(t.get("description")) for t in items if t.get("status") == "in_progress"), ""
    )
    head = f"Todos: {done}/{len(items)} done"
    return f"{head}; now: {current}" if current else head


def report_policy(report_path: str) -> str:
    """A policy that lets ``write_file`` write the report file, at exactly that path.

    The CLI matches ``argsPattern`` against the arguments as sorted JSON in which each
    top-level pair is wrapped in NUL characters, hence the ``\\x00`` anchors."""
    encoded = json.dumps(report_path)
    pattern = r"\x00" + _JS_SPECIAL.sub(r"\\\g<0>", f'"file_path":{encoded}') + r"\x00"
    return (
        "# Written by caesar for one read-only task: the report file is its only write.\n"
        "[[rule]]\n"
        'toolName = "write_file"\n'
        f"argsPattern = {json.dumps(pattern)}\n"
        'decision = "allow"\n'
        "priority = 900\n"
    )


class GeminiAdapter(BestTier):
    id = "gemini"
    display_name = "Gemini CLI"
    bin = "gemini"
    min_version: str | None = "0.61.0"
    capabilities = Capabilities(
        json_events=True,
        native_read_only=True,
        network=NetworkControl.OPEN,
        mcp=McpInjection.SETTINGS,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        """The command in the workspace (a read-only task's policy is written to the task
        directory first). The caller's flags go just before the prompt, which is ``-p``'s
        value: a bare prompt without a TTY is not headless (exit 42)."""
        task, paths = invocation.task, invocation.paths
        argv = [self.bin, "--output-format", "stream-json", "--skip-trust"]
        files: dict[Path, str] = {}
        if read_only(task):
            policy = paths.root / POLICY_FILE
            files[policy] = report_policy(task.report_path)
            argv += ["--approval-mode", "default", "--policy", str(policy)]
        else:
            argv += ["--approval-mode", "yolo"]
        argv += ["--include-directories", str(paths.root)]
        if invocation.model:
            argv += ["-m", invocation.model]
        if invocation.resume_session:
            # A full id, never "latest" or an index: sessions are kept per project directory,
            # and the worktree is the same one.
            argv += ["--resume", invocation.resume_session]
        argv += list(invocation.extra_args)
        argv += prompt_option(invocation.prompt)
        if invocation.channel_command:
            settings = Path(task.workspace) / ".gemini" / "settings.json"
            files[settings] = channel_settings(settings, invocation.channel_command)
            argv += ["--allowed-mcp-server-names", CHANNEL_SERVER]
        # --skip-trust runs an untrusted folder but ignores its project settings without a
        # word: the channel's MCP server and the project's hooks (`caesar hooks install
        # gemini`) would not load. The workspace is the user's own project (or a worktree of
        # it) that they asked an agent with shell access to work in; caesar vouches for it.
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        return Launch(argv, Path(task.workspace), env=env, files=files)

    def translator(self, invocation: Invocation) -> GeminiTranslator:
        return GeminiTranslator(invocation.task.workspace, invocation.paths.root)


def channel_settings(path: Path, command: Sequence[str]) -> str:
    """The workspace's ``.gemini/settings.json`` with the channel added to ``mcpServers``.

    Gemini reads MCP servers only from settings files, and its system layers are refused
    unless root-owned; the workspace file is the one left. The user's own settings there are
    kept (the file is put back as it was after the run, so it never shows in the diff); one
    that does not parse is replaced for the run only.
    """
    try:
        current = safefs.loads(path.read_text())
    except (OSError, ValueError):
        current = {}
    settings = current if isinstance(current, dict) else {}
    servers = settings.get("mcpServers")
    servers = dict(servers) if isinstance(servers, dict) else {}
    executable, *args = command
    servers[CHANNEL_SERVER] = {"command": executable, "args": args, "trust": True}
    return json.dumps({**settings, "mcpServers": servers}, indent=2) + "\n"
