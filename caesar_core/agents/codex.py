"""OpenAI Codex CLI: ``codex exec --json``, written from codex-cli 0.171.0's real stream.

codex has what caesar wants most: a native read-only sandbox, a strict output schema for
the report, and ``-o`` to write its last message to the task directory whatever the
sandbox allows (codex writes it, not the model's tools). Its sandbox also decides the
network: read-only has none, so caesar can only open the network in write mode.

The stream (``thread.*``, ``turn.*``, ``item.started|updated|completed``) names each item
once by id, start to end, so a command's start and end pair by that id. Older builds said
``item_type`` and ``assistant_message``; both are read. What codex 0.171.0 does *not* say:
a command or patch its sandbox refused under ``-s read-only`` never becomes an item (the
model alone hears of the refusal; openai/codex#47433), so a read-only run can show fewer
tool calls than it attempted.
"""

from __future__ import annotations

import shlex
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
    read_only,
)
from caesar_core.agents.stream import JsonStreamTranslator, as_int, summarize
from caesar_core.protocol.event import (
    Error,
    EventPayload,
    FileChanged,
    Message,
    Progress,
    Thinking,
)
from caesar_core.protocol.report import ChangeAction

_ACTIONS = {
    "add": ChangeAction.CREATED,
    "create": ChangeAction.CREATED,
    "delete": ChangeAction.DELETED,
    "update": ChangeAction.MODIFIED,
    "rename": ChangeAction.RENAMED,
}
_RETRY_NOTICES = ("reconnecting", "retrying", "falling back")
"""Top-level ``error`` lines that are codex retrying, not the run failing."""
_SHELL_WRAPPERS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}
_ITEM_EVENTS = ("item.started", "item.updated", "item.completed")
_QUIET = {"turn.started", "session.created", "item.plan.delta"}
"""Known lines with nothing to show (the engine already wrote ``started``)."""


class CodexTranslator(JsonStreamTranslator):
    agent = "codex"

    def __init__(self, workspace: str | Path) -> None:
        super().__init__(workspace)
        self._files_reported: set[str] = set()

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        kind = obj.get("type")
        if kind in _ITEM_EVENTS:
            item = obj.get("item")
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                return self.unknown()
            return self._item(str(kind).removeprefix("item."), item)
        if kind == "thread.started":
            self.saw_session(obj.get("thread_id"))  # what `codex exec resume` takes
            return self.ignore()
        if kind == "turn.completed":
            return self._turn_usage(obj.get("usage"))
        if kind == "turn.failed":
            reason = _message(obj.get("error")) or "the turn failed"
            self.failure = reason
            return [Error(message=reason, fatal=True)]
        if kind == "error":
            text = _message(obj) or "codex reported an error"
            if text.lower().startswith(_RETRY_NOTICES):
                return [Progress(message=text)]
            return [Error(message=text, fatal=False)]
        if kind in _QUIET:
            return self.ignore()
        return self.unknown()

    # -- items --------------------------------------------------------------------------------

    def _item(self, phase: str, item: dict[str, Any]) -> list[EventPayload]:
        item_id = str(item["id"])
        kind = item.get("type") or item.get("item_type")
        done = phase == "completed"
        if kind in ("agent_message", "assistant_message"):
            return self._agent_message(item) if done else self.ignore()
        if kind == "reasoning":
            text = _text(item)
            return [Thinking(text=text)] if done and text else self.ignore()
        if kind == "command_execution":
            summary = _command(item.get("command"))
            return self._call(item_id, "shell", summary, phase, _ok(item))
        if kind == "file_change":
            return self._file_change(item_id, phase, item)
        if kind == "mcp_tool_call":
            tool = "/".join(str(item.get(k) or "?") for k in ("server", "tool"))
            ok = _ok(item) and not item.get("error")
            return self._call(item_id, tool, summarize(item.get("arguments")), phase, ok)
        if kind == "web_search":
            query = item.get("query")
            summary = query if isinstance(query, str) else summarize(item.get("action"))
            return self._call(item_id, "web_search", summary, phase, _ok(item))
        if kind == "collab_tool_call":
            tool = str(item.get("tool") or "collab")
            return self._call(item_id, tool, summarize(item.get("prompt")), phase, _ok(item))
        if kind == "todo_list":
            return [Progress(message=_plan(item.get("items")))]
        if kind == "plan":
            text = _text(item)
            return [Progress(message=text)] if done and text else self.ignore()
        if kind == "error":
            text = _message(item) or "codex reported an error"
            return [Error(message=text, fatal=False)] if done else self.ignore()
        return self.unknown()

    def _call(
        self, item_id: str, tool: str, summary: str, phase: str, ok: bool
    ) -> list[EventPayload]:
        if phase == "completed":
            return self.end_call(item_id, ok, tool, summary)
        return self.start_call(item_id, tool, summary)

    def _agent_message(self, item: dict[str, Any]) -> list[EventPayload]:
        text = _text(item)
        if not text:
            return []
        self.said(text)
        return [Message(text=_shown(text))]

    def _file_change(self, item_id: str, phase: str, item: dict[str, Any]) -> list[EventPayload]:
        """A patch: an ``edit`` call (start to end), then one ``file_changed`` per path.

        codex may repeat the completed item; the files are reported once per item id."""
        changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
        paths = [self.relative(str(c.get("path") or "")) for c in changes]
        summary = summarize(", ".join(p for p in paths if p))
        if phase != "completed":
            return self.start_call(item_id, "edit", summary)
        ok = _ok(item)
        events = self.end_call(item_id, ok, "edit", summary)
        if ok and item_id not in self._files_reported:
            self._files_reported.add(item_id)
            for change, path in zip(changes, paths, strict=True):
                if path:
                    events.append(FileChanged(path=path, action=_action(change)))
        return events

    def _turn_usage(self, usage: object) -> list[EventPayload]:
        """codex's numbers are the thread's totals so far: each turn replaces the last."""
        if not isinstance(usage, dict):
            return []
        tokens_in, tokens_out = (
            as_int(usage.get("input_tokens")),
            as_int(usage.get("output_tokens")),
        )
        if tokens_in is not None or tokens_out is not None:
            self.add_usage(tokens_in, tokens_out, replace=True)
        return []


def _text(item: dict[str, Any]) -> str:
    text = item.get("text")
    return text.strip() if isinstance(text, str) else ""


def _message(obj: object) -> str:
    if isinstance(obj, dict):
        text = obj.get("message")
        return text.strip() if isinstance(text, str) else ""
    return obj.strip() if isinstance(obj, str) else ""


def _ok(item: dict[str, Any]) -> bool:
    """Whether a completed item succeeded: its status, else its exit code."""
    status = item.get("status")
    if isinstance(status, str) and status not in ("in_progress", ""):
        return status == "completed"
    code = item.get("exit_code")
    return code in (0, None)


def _command(command: object) -> str:
    """The command as the model wrote it, without the ``bash -lc`` codex wraps it in."""
    if isinstance(command, list):
        parts = [str(part) for part in command]
    elif isinstance(command, str):
        try:
            parts = shlex.split(command)
        except ValueError:
            return summarize(command)
    else:
        return ""
    if len(parts) == 3 and parts[0] in _SHELL_WRAPPERS and parts[1] in ("-c", "-lc"):
        return summarize(parts[2])
    return summarize(" ".join(parts) if isinstance(command, list) else command)


def _action(change: dict[str, Any]) -> ChangeAction:
    kind = change.get("kind")
    if isinstance(kind, dict):  # some builds: {"type": "update", "move_path": ...}
        if kind.get("move_path"):
            return ChangeAction.RENAMED
        kind = kind.get("type")
    return _ACTIONS.get(str(kind), ChangeAction.MODIFIED)


def _plan(items: object) -> str:
    steps = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    done = sum(1 for step in steps if step.get("completed") is True)
    pending = next((str(s.get("text")) for s in steps if s.get("completed") is not True), "")
    head = f"Plan: {done}/{len(steps)} done"
    return f"{head}; next: {pending}" if pending else head


def _shown(text: str) -> str:
    """A schema-tier final message is the report JSON; a reader wants its summary."""
    if not text.startswith("{"):
        return text
    try:
        report = safefs.loads(text)
    except ValueError:
        return text
    summary = report.get("summary") if isinstance(report, dict) else None
    if isinstance(summary, str) and str(report.get("protocol", "")).startswith("caesar.report"):
        return f"Report ({report.get('status', '?')}): {summary}"
    return text


def _toml(value: object) -> str:
    """A TOML value for ``-c key=value`` (codex parses the value as TOML)."""
    import tomlkit

    return tomlkit.item(value).as_string()


class CodexAdapter(BestTier):
    id = "codex"
    display_name = "OpenAI Codex CLI"
    bin = "codex"
    min_version: str | None = "0.171.0"
    capabilities = Capabilities(
        json_events=True,
        output_schema=True,
        final_message_file=True,
        native_read_only=True,
        network=NetworkControl.WRITE_ONLY,
        mcp=McpInjection.FLAG,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        """``codex exec`` in the workspace; the caller's extra flags just before the prompt,
        which follows ``--`` so a brief starting with a dash is never read as a flag.

        A follow-up turn is ``codex exec [options] resume <thread id> -- <prompt>``: the
        sandbox, directory and output options are ``exec``'s and go before ``resume``, which
        takes only the thread and the next message."""
        task, paths = invocation.task, invocation.paths
        writes = not read_only(task)
        argv = [self.bin, "exec", "--json", "--skip-git-repo-check", "-C", task.workspace]
        argv += ["-s", "workspace-write" if writes else "read-only"]
        if invocation.tier == "schema":
            argv += ["--output-schema", str(paths.report_schema)]
        argv += ["-o", str(paths.final_message)]
        if invocation.tier == "file" and writes:
            argv += ["--add-dir", str(paths.root)]  # the report file lives in the task dir
        if invocation.model:
            argv += ["-m", invocation.model]
        if writes and not invocation.network_off:
            argv += ["-c", "sandbox_workspace_write.network_access=true"]
        if invocation.channel_command:
            command, *args = invocation.channel_command
            argv += ["-c", f"mcp_servers.{CHANNEL_SERVER}.command={_toml(command)}"]
            argv += ["-c", f"mcp_servers.{CHANNEL_SERVER}.args={_toml(args)}"]
            # codex asks before every MCP tool call, and under ``exec`` (approval "never")
            # that refuses the call: "MCP tool call requires approval, but approval policy
            # is never". caesar's own channel is trusted, so its tools are pre-approved.
            argv += ["-c", f'mcp_servers.{CHANNEL_SERVER}.default_tools_approval_mode="approve"']
        if invocation.resume_session:
            argv += ["resume", invocation.resume_session]
        argv += [*invocation.extra_args, "--", invocation.prompt]
        return Launch(argv, Path(task.workspace))

    def translator(self, invocation: Invocation) -> CodexTranslator:
        return CodexTranslator(invocation.task.workspace)
