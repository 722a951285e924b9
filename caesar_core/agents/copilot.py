"""GitHub Copilot CLI: ``copilot -p <brief> --output-format json``, written from 1.0.102's stream.

How the modes map (each checked against the real CLI, ``tests/live/test_copilot_live.py``):

- **write**: ``--allow-all-tools``: every tool runs without a prompt, which ``-p`` could not
  answer. Paths stay confined to the working directory (the workspace) and the directories
  named with ``--add-dir`` (the task directory, where the report goes): ``--allow-all-paths``
  is not used.
- **read-only**: no blanket approval, so every tool that writes or runs a command asks, and
  headless Copilot refuses what it would have to ask ("Permission denied because no
  interactive user response was available"); ``--allow-tool=write(<report>)`` lets its file
  tools write the report at that one path, and ``--deny-tool=shell`` refuses the shell even
  if the user's own approvals would allow it (a denial beats every allow).
- **network**: Copilot checks the URLs a shell command or ``web_fetch`` names, and headless
  it refuses them unless allowed: ``--allow-all-urls`` when the task has the network. That
  is a check of what commands say, not a cut (``python -c`` reaches the network unnamed);
  only its command sandbox (bubblewrap, slirp4netns and iptables on Linux) could cut it, so
  the network is ``open``.
- **channel**: ``--additional-mcp-config`` takes the server as JSON on the command line, added
  to the user's own servers for this run only; nothing is written. A read-only task allows
  the channel's tools by server (``--allow-tool=caesar``).
- **trust**: ``--trust-folder`` trusts the workspace's configuration for this run only
  (nothing saved): without it Copilot skips the project's hooks (``caesar hooks install
  copilot``) and workspace MCP servers without a word. The workspace is the user's own
  project (or a worktree of it) that they asked an agent with shell access to work in;
  caesar vouches for it, as it does for Gemini CLI. The flag trusts one *new* session: with
  ``--resume`` Copilot 1.0.102 then starts a new session instead, without a word, so a
  follow-up turn goes without it (its project hooks run only where the user trusts the
  folder in Copilot itself).
- **follow-up**: ``--resume=<session>``, the id the closing ``result`` line names.

The stream (``--output-format json``) is Copilot's session events, one object per line:
``tool.execution_start`` / ``tool.execution_complete`` pair by ``toolCallId``, a completed
file tool lists the files it committed (``fileEdits``, with ``create``/``edit``/``delete``),
``assistant.message`` holds a whole message (its ``message_delta`` fragments come before)
and the thought that led to it (``reasoningText``, said again by ``assistant.reasoning``),
``session.error`` what went wrong, and ``result``
closes the run with its ``exitCode`` and ``sessionId``. The stream carries no token counts:
``--usage-output-file`` writes them to the task directory at exit, and the translator reads
them from there when the stream ends (``usage_file``).
"""

from __future__ import annotations

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
    inline_mcp_servers,
    prompt_option,
    read_only,
)
from caesar_core.agents.stream import JsonStreamTranslator, as_int, summarize
from caesar_core.protocol.event import Error, EventPayload, FileChanged, Message, Thinking
from caesar_core.protocol.report import ChangeAction

USAGE_FILE = "copilot-usage.json"
USAGE_SOURCE = "copilot usage file"
_USAGE_LIMIT = 1 << 20
_EDIT_KINDS = {
    "create": ChangeAction.CREATED,
    "edit": ChangeAction.MODIFIED,
    "delete": ChangeAction.DELETED,
}
_QUIET = {
    "session.skills_loaded",
    "session.mcp_servers_loaded",
    "session.mcp_server_status_changed",
    "session.mcp_server_tools_loaded",
    "session.tools_updated",
    "session.custom_agents_updated",
    "session.extensions_loaded",
    "session.background_tasks_changed",
    "session.usage_info",
    "session.title_changed",
    "session.info",
    "session.idle",
    "user.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.intent",
    "assistant.idle",
    "assistant.message_start",
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "assistant.streaming_delta",
    "assistant.tool_call_delta",
    "assistant.usage",
    "model.call_start",
    "model.call_finished",
    "model.call_final_result",
    "model.call_failure",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.shell_output",
    "hook.start",
    "hook.end",
    "hook.progress",
}
"""Known lines with nothing to show: bookkeeping, and the fragments of what a later line says
whole (a message, a thought, a failed call's error)."""


class CopilotTranslator(JsonStreamTranslator):
    """``task_dir``: files written there (the report) are caesar's, not the task's changes.
    ``usage_file``: where ``--usage-output-file`` writes the run's token counts."""

    agent = "copilot"

    def __init__(
        self,
        workspace: str | Path,
        task_dir: str | Path | None = None,
        usage_file: Path | None = None,
    ) -> None:
        super().__init__(workspace)
        self._task_dir = Path(task_dir) if task_dir else None
        self._usage_file = usage_file
        self._error: str | None = None
        self._thought_shown: str | None = None

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        kind = obj.get("type")
        if kind == "result":
            return self._result(obj)
        data = obj.get("data")
        if not isinstance(data, dict):
            return self.unknown()
        if kind == "tool.execution_start":
            return self._start(data)
        if kind == "tool.execution_complete":
            return self._complete(data)
        if kind == "assistant.message":
            return self._message(data, main="agentId" not in obj)
        if kind == "assistant.reasoning":
            return self._thought(data.get("content"))
        if kind == "session.error":
            self._error = _text(data.get("message")) or "copilot reported an error"
            return []  # said once, by the result that ends the run (or by close)
        if kind == "session.warning":
            return [Error(message=_text(data.get("message")) or "copilot warning", fatal=False)]
        if kind in _QUIET:
            return self.ignore()
        return self.unknown()

    def close(self) -> list[EventPayload]:
        """The stream ended: a session error no result line reported is said, the usage file
        read, then the open calls end failed."""
        events: list[EventPayload] = []
        if self._error is not None:
            events.append(Error(message=self._error, fatal=True))
            self.failure = self.failure or self._error
            self._error = None
        self._read_usage()
        return events + super().close()

    # -- tools ------------------------------------------------------------------------------

    def _start(self, data: dict[str, Any]) -> list[EventPayload]:
        call_id, tool = data.get("toolCallId"), data.get("toolName")
        if not isinstance(call_id, str) or not call_id or not isinstance(tool, str):
            return self.unknown()
        return self.start_call(call_id, tool, self._summary(data.get("arguments")))

    def _complete(self, data: dict[str, Any]) -> list[EventPayload]:
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            return self.unknown()
        shell = data.get("shellExecution")
        code = shell.get("exitCode") if isinstance(shell, dict) else None
        exited_badly = isinstance(code, int) and not isinstance(code, bool) and code != 0
        ok = data.get("success") is True and not exited_badly
        events = self.end_call(call_id, ok)
        edits = data.get("fileEdits")
        for edit in edits if ok and isinstance(edits, list) else []:
            if not isinstance(edit, dict) or not isinstance(edit.get("path"), str):
                continue
            path = self._change(edit["path"])
            if path is not None:
                action = _EDIT_KINDS.get(str(edit.get("kind")), ChangeAction.MODIFIED)
                events.append(FileChanged(path=path, action=action))
        return events

    def _change(self, path: str) -> str | None:
        """A committed file as a change of the task: inside the workspace and not in the task
        directory (the report is caesar's), workspace-relative; else None."""
        target = Path(path)
        if self._task_dir is not None and target.is_relative_to(self._task_dir):
            return None
        shown = self.relative(path)
        return shown if shown and not Path(shown).is_absolute() else None

    def _summary(self, arguments: object) -> str:
        if isinstance(arguments, dict):
            path = arguments.get("path")
            if isinstance(path, str) and path and "command" not in arguments:
                return summarize(self.relative(path))
        return summarize(arguments)

    # -- messages and the end ---------------------------------------------------------------

    def _message(self, data: dict[str, Any], main: bool) -> list[EventPayload]:
        """A whole message; one that only requests tools has empty content. A sub-agent's
        message is shown, but the main agent's last word is what a report is looked for in."""
        events = self._thought(data.get("reasoningText"))
        text = data.get("content")
        if not isinstance(text, str) or not text.strip():
            return events
        if main:
            self.said(text)
        return [*events, Message(text=text)]

    def _thought(self, text: object) -> list[EventPayload]:
        """A thought, once: the message it led to carries it (``reasoningText``) and the
        ``assistant.reasoning`` line after it says it again."""
        if not isinstance(text, str) or not text.strip() or text == self._thought_shown:
            return []
        self._thought_shown = text
        return [Thinking(text=text)]

    def _result(self, obj: dict[str, Any]) -> list[EventPayload]:
        self.saw_session(obj.get("sessionId"))  # `copilot --resume=<id>` takes it
        code = obj.get("exitCode")
        if code == 0:
            self._error = None  # a session error the run recovered from
            return []
        reason = self._error or f"copilot ended the run with exit code {code}"
        self._error = None
        self.failure = reason
        return [Error(message=reason, fatal=True)]

    def _read_usage(self) -> None:
        """The token counts ``--usage-output-file`` wrote, summed over the models the run
        used (the file lies in the task directory: read the safe way, bounded)."""
        if self._usage_file is None:
            return
        try:
            found = safefs.read_json(
                self._usage_file.parent, self._usage_file.name, limit=_USAGE_LIMIT
            )
        except (OSError, ValueError):
            return
        metrics = found.get("modelMetrics") if isinstance(found, dict) else None
        if not isinstance(metrics, dict):
            return
        tokens_in = tokens_out = None
        for model in metrics.values():
            usage = model.get("usage") if isinstance(model, dict) else None
            if not isinstance(usage, dict):
                continue
            fresh, made = as_int(usage.get("inputTokens")), as_int(usage.get("outputTokens"))
            tokens_in = fresh if tokens_in is None else tokens_in + (fresh or 0)
            tokens_out = made if tokens_out is None else tokens_out + (made or 0)
        if tokens_in is not None or tokens_out is not None:
            self.add_usage(tokens_in, tokens_out, replace=True, source=USAGE_SOURCE)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


class CopilotAdapter(BestTier):
    id = "copilot"
    display_name = "GitHub Copilot CLI"
    bin = "copilot"
    min_version: str | None = "1.0.102"
    capabilities = Capabilities(
        json_events=True,
        native_read_only=True,
        network=NetworkControl.OPEN,
        mcp=McpInjection.FLAG,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        """The command in the workspace. The caller's flags go just before the prompt, which
        is ``-p``'s value (``--prompt=`` when it starts with a dash)."""
        task, paths = invocation.task, invocation.paths
        argv = [self.bin, "--output-format", "json"]
        if not invocation.resume_session:
            argv.append("--trust-folder")  # a new session only: see the module's docstring
        argv += ["--add-dir", str(paths.root)]
        if read_only(task):
            argv += ["--deny-tool=shell", f"--allow-tool=write({task.report_path})"]
            if invocation.channel_command:
                argv.append(f"--allow-tool={CHANNEL_SERVER}")
        else:
            argv.append("--allow-all-tools")
        if task.network:
            argv.append("--allow-all-urls")
        if invocation.model:
            argv += ["--model", invocation.model]
        argv += ["--usage-output-file", str(paths.root / USAGE_FILE)]
        if invocation.channel_command:
            argv += ["--additional-mcp-config", channel_config(invocation.channel_command)]
        if invocation.resume_session:
            argv.append(f"--resume={invocation.resume_session}")
        argv += list(invocation.extra_args)
        argv += prompt_option(invocation.prompt)
        return Launch(argv, Path(task.workspace))

    def translator(self, invocation: Invocation) -> CopilotTranslator:
        root = invocation.paths.root
        return CopilotTranslator(invocation.task.workspace, root, root / USAGE_FILE)


def channel_config(command: Sequence[str]) -> str:
    """The channel as ``--additional-mcp-config`` JSON (Copilot's ``mcpServers`` format)."""
    executable, *args = command
    server = {"type": "local", "command": executable, "args": args, "tools": ["*"]}
    return inline_mcp_servers(server)
