"""Claude Code: ``claude -p <brief> --output-format stream-json --verbose``.

Written from the stream of claude 2.1.332 (``tests/fixtures/streams/claude-2.1.332.jsonl``).
Claude prints whole messages, not deltas: an ``assistant`` line holds text, thinking and
``tool_use`` blocks, and the next ``user`` line holds the ``tool_result`` of each call, by id
only. Its authoritative totals come once, on the closing ``result`` line, which is also where
a failed run says so (``is_error``, even under ``subtype: success`` for API errors).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from caesar_core.agents.base import (
    CHANNEL_SERVER,
    BestTier,
    Capabilities,
    Invocation,
    Launch,
    McpInjection,
    NetworkControl,
    read_only,
)
from caesar_core.agents.stream import JsonStreamTranslator, as_float, as_int, summarize
from caesar_core.protocol.event import (
    Error,
    EventPayload,
    FileChanged,
    Message,
    Thinking,
    ToolStatus,
    ToolUse,
)
from caesar_core.protocol.report import ChangeAction

FILE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
"""The built-in tools that change a file, and name it in their input."""

WEB_TOOLS = ("WebFetch", "WebSearch")

NETWORK_OFF_SETTINGS = {
    "sandbox": {
        "enabled": True,
        "failIfUnavailable": True,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": []},
    }
}
"""Bash in claude's sandbox (bubblewrap + socat on Linux) with no domain allowed, and no way
out: without the sandbox's dependencies claude refuses to start rather than run online."""

INFORMATIONAL = frozenset(
    {
        "rate_limit_event",
        "stream_event",
        "prompt_suggestion",
        "tool_progress",
        "keep_alive",
        "auth_status",
        "control_request",
        "control_response",
        "control_cancel_request",
    }
)
"""Top-level types claude prints that carry nothing a reader of the task needs."""


class ClaudeTranslator(JsonStreamTranslator):
    """Claude's stream as events; ``report_path`` is the file the brief asks the report in."""

    agent = "claude"
    file_tools: frozenset[str] = FILE_TOOLS
    """The tools whose successful result is a ``file_changed`` for the path in their input."""

    def __init__(self, workspace: str | Path, report_path: str | Path | None = None) -> None:
        super().__init__(workspace)
        self.report_path = str(report_path) if report_path else ""
        self._calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
        self._refused_report: str | None = None

    @property
    def final_text(self) -> str | None:
        """The last message, unless the report the agent wrote was refused (plan mode
        refuses every write, the report's too): then that report, which is what it meant
        to hand back, is the degraded tier's best evidence."""
        return self._refused_report or self._final_text

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        kind = obj.get("type")
        if "session_id" in obj:  # every line names it; `claude --resume` takes it
            self.saw_session(obj["session_id"])
        if kind == "assistant":
            return self._assistant(obj)
        if kind == "user":
            return self._user(obj)
        if kind == "result":
            return self._result(obj)
        if kind == "system" or kind in INFORMATIONAL:
            # init, status, hook_*, task_*, permission_denied (the tool_result says it too),
            # informational notices: new subtypes keep appearing and are all bookkeeping.
            return self.ignore()
        return self.unknown()

    def _assistant(self, obj: dict[str, Any]) -> list[EventPayload]:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return self.unknown()
        events: list[EventPayload] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                events.append(Message(text=block["text"]))
                self.said(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                if block["thinking"].strip():
                    events.append(Thinking(text=block["thinking"]))
            elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
                events += self._tool_use(block)
        return events  # an API error's ``error`` field is said again, fully, by ``result``

    def _tool_use(self, block: dict[str, Any]) -> list[EventPayload]:
        call_id, name = block.get("id"), block.get("name")
        if not isinstance(call_id, str) or not call_id:
            return []
        tool = name if isinstance(name, str) else ""
        arguments = block.get("input")
        arguments = arguments if isinstance(arguments, Mapping) else {}
        self._calls[call_id] = (tool, arguments)
        summary = summarize(arguments)
        if summary.startswith("/") and " " not in summary:
            summary = self.relative(summary)  # a file the call is about, as a reader names it
        return self.start_call(call_id, tool, summary)

    def _user(self, obj: dict[str, Any]) -> list[EventPayload]:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return self.ignore()  # a prompt echoed back (string content): nothing new
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        raw = obj.get("tool_use_result") if len(results) == 1 else None
        events: list[EventPayload] = []
        for block in results:
            call_id = block.get("tool_use_id")
            if isinstance(call_id, str) and call_id:
                ok = block.get("is_error") is not True
                events += self._tool_result(call_id, ok, raw, block)
        return events

    def _tool_result(
        self, call_id: str, ok: bool, raw: object, block: Mapping[str, Any]
    ) -> list[EventPayload]:
        """The closing edge carries the id alone (as claude gives it), then the file change
        a successful file tool made."""
        events: list[EventPayload] = []
        if not self.is_open(call_id):
            events += self.start_call(call_id, "", "")
        self._open.pop(call_id, None)
        status = ToolStatus.SUCCEEDED if ok else ToolStatus.FAILED
        events.append(ToolUse(tool="", id=call_id, input_summary="", status=status))
        tool, arguments = self._calls.pop(call_id, ("", {}))
        if tool not in self.file_tools:
            return events
        path = arguments.get("file_path") or arguments.get("notebook_path")
        if not isinstance(path, str) or not path:
            return events
        if path == self.report_path:
            content = arguments.get("content")
            refused = not ok and tool == "Write" and isinstance(content, str)
            self._refused_report = str(content) if refused else None
            return events  # the report is not a change to the work
        if not ok:
            return events
        relative = self.relative(path)
        if Path(relative).is_absolute():
            return events  # outside the workspace: not part of the work caesar diffs
        action = ChangeAction.CREATED if self._created(raw, block) else ChangeAction.MODIFIED
        events.append(FileChanged(path=relative, action=action))
        return events

    def _created(self, raw: object, block: Mapping[str, Any]) -> bool:
        """Whether a file tool's result says it created the file (claude's
        ``tool_use_result`` does)."""
        return isinstance(raw, Mapping) and raw.get("type") == "create"

    def _input_tokens(self, usage: Mapping[str, Any]) -> int | None:
        """Anthropic's ``input_tokens`` leaves out cached prompt tokens; all were read."""
        parts = [
            as_int(usage.get(key))
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        counted = [part for part in parts if part is not None]
        return sum(counted) if counted else None

    def _result(self, obj: dict[str, Any]) -> list[EventPayload]:
        usage = obj.get("usage")
        if isinstance(usage, Mapping):
            self.add_usage(
                self._input_tokens(usage),
                as_int(usage.get("output_tokens")),
                as_float(obj.get("total_cost_usd")),
                replace=True,
            )
        text = obj.get("result")
        subtype = obj.get("subtype")
        failed = obj.get("is_error") is True or (
            isinstance(subtype, str) and subtype.startswith("error")
        )
        if not failed:
            structured = obj.get("structured_output")  # with --json-schema (extra args)
            if isinstance(structured, Mapping):
                self.said(json.dumps(structured))
            elif isinstance(text, str):
                self.said(text)
            return []
        self.failure = self._failure_reason(obj, text, subtype)
        self.said(self.failure)  # what a synthesized report's summary should say
        return [Error(message=self.failure, fatal=True)]

    def _failure_reason(self, obj: Mapping[str, Any], text: object, subtype: object) -> str:
        return _failure_reason(obj, text, subtype)


def _failure_reason(obj: Mapping[str, Any], text: object, subtype: object) -> str:
    errors = obj.get("errors")
    found = (
        [e for e in errors if isinstance(e, str) and e.strip()] if isinstance(errors, list) else []
    )
    if found:
        return "; ".join(found)
    if isinstance(text, str) and text.strip():
        return text.strip()
    status = obj.get("api_error_status")
    return f"claude run failed ({subtype or 'error'}{f', API status {status}' if status else ''})"


MCP_CONFIG = "mcp.json"


class ClaudeAdapter(BestTier):
    """Write mode is ``acceptEdits`` plus ``Bash`` allowed: file edits stay confined to the
    workspace and the task directory (``--add-dir``), and commands run without a prompt,
    which ``-p`` could not answer. ``bypassPermissions`` would also lift the file tools'
    confinement (and refuses root unless ``IS_SANDBOX=1``), so it is not used.

    Read-only is ``plan``: claude itself refuses every write and command. It refuses the
    report file too, so a read-only task's report is the one the agent tried to write
    (the translator's ``final_text``), or what it said.

    Network off denies ``WebFetch``/``WebSearch`` and runs ``Bash`` in claude's sandbox with
    no domain allowed: denying the web tools alone leaves ``curl`` online. The sandbox is
    required (``failIfUnavailable``), so a machine without bubblewrap and socat gets a run
    that fails saying so, never one that is online while the task says offline.
    """

    id = "claude"
    display_name = "Claude Code"
    bin = "claude"
    min_version: str | None = "2.1.332"
    capabilities = Capabilities(
        json_events=True,
        native_read_only=True,
        network=NetworkControl.TOGGLE,
        mcp=McpInjection.FLAG,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        task = invocation.task
        # The prompt comes first, as the options below are variadic and would swallow it; one
        # that starts with "-" (a profile opening on a list) would read as an option, and a
        # leading line break is the only way around that leaves extra args last.
        prompt = invocation.prompt
        prompt = "\n" + prompt if prompt.startswith("-") else prompt
        argv = [self.bin, "-p", prompt, "--output-format", "stream-json", "--verbose"]
        if read_only(task):
            argv += ["--permission-mode", "plan"]
        else:
            argv += ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]
        argv += ["--add-dir", str(invocation.paths.root)]
        if invocation.network_off or not task.network:
            argv += ["--disallowedTools", *WEB_TOOLS]
            argv += ["--settings", json.dumps(NETWORK_OFF_SETTINGS, separators=(",", ":"))]
        if invocation.model:
            argv += ["--model", invocation.model]
        argv += self._channel_args(invocation)
        if invocation.resume_session:
            argv += ["--resume", invocation.resume_session]  # the same session id goes on
        argv += list(invocation.extra_args)
        files: dict[Path, str] = {}
        if invocation.channel_command:
            command, *args = invocation.channel_command
            servers = {"mcpServers": {CHANNEL_SERVER: {"command": command, "args": args}}}
            files[invocation.paths.root / MCP_CONFIG] = json.dumps(servers, indent=2) + "\n"
        return Launch(argv, Path(task.workspace), files=files)

    def _channel_args(self, invocation: Invocation) -> list[str]:
        """The task's MCP channel: ``--mcp-config`` naming the file ``launch`` lays down,
        ``--strict-mcp-config`` so the user's own servers stay out of the task, and the
        channel's tools allowed (``-p`` cannot answer a permission prompt)."""
        if not invocation.channel_command:
            return []
        return [
            "--mcp-config",
            str(invocation.paths.root / MCP_CONFIG),
            "--strict-mcp-config",
            "--allowedTools",
            f"mcp__{CHANNEL_SERVER}",
        ]

    def translator(self, invocation: Invocation) -> ClaudeTranslator:
        return ClaudeTranslator(invocation.task.workspace, invocation.task.report_path)
