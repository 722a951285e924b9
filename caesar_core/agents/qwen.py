"""Qwen Code: ``qwen -p <brief> --output-format stream-json``, written from 0.24.4's stream.

Qwen Code forked Gemini CLI, but its stream-json speaks Claude Code's shapes: a ``system``
init line, ``assistant`` lines holding text, thinking and ``tool_use`` blocks, ``user`` lines
holding each call's ``tool_result`` by id, and one closing ``result`` with the session's
totals. The translator is Claude Code's (``ClaudeTranslator``) with what differs: its own
file tools, a result that says whether the file was new only in its text, token counts in
Gemini's sense (``input_tokens`` already counts the cached ones), deferred tools (MCP tools
are offered behind ``tool_search``) called through ``tool_call``, an API error shown as the
assistant's text (``[API Error: …]``, said again by the result), and the failure's reason in
the result's ``error``.

How the modes map (each checked against the real CLI, ``tests/live/test_qwen_live.py``):

- **write**: ``--approval-mode yolo``. Headless, every other mode denies the shell outright,
  and ``default`` denies the file tools too.
- **read-only**: ``--approval-mode default``: headless, the shell and the file tools are
  denied unless a rule allows them, and a tool that would ask is declined ("non-interactive
  mode cannot prompt"). ``--allowed-tools`` allows ``edit`` and ``write_file`` on the report
  path alone (``//`` makes a rule's path absolute; glob characters escaped), and
  ``--exclude-tools`` denies the shell even where the user's own rules allow it (a denial
  beats every allow). A user's own rule allowing edits still applies, as in Gemini CLI.
  ``plan`` mode is not used: it refuses the report too.
- **network**: only a sandbox cuts it (Docker/Podman, or ``tools.executionSandbox`` with
  bubblewrap, which only the user's or the system's settings may turn on), so it is ``open``.
- **channel**: ``--mcp-config`` takes the server as inline JSON; nothing is written. The
  server is trusted (``trust``: its calls never ask, a read-only task's included), and
  ``--allowed-mcp-server-names`` keeps the user's other servers out of the task.
- **follow-up**: ``--resume=<session>``, the ``session_id`` every line names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    inline_mcp_servers,
    prompt_option,
    read_only,
)
from caesar_core.agents.claude import ClaudeTranslator
from caesar_core.agents.stream import as_int
from caesar_core.protocol.event import EventPayload

SHELL_TOOLS = ("run_shell_command", "monitor")
"""The tools that run commands (``monitor`` runs one and watches it)."""
_API_ERROR = re.compile(r"\[API Error: (.*)\]", re.DOTALL)
_GLOB = re.compile(r"([\\*?\[\]{}()!+@|])")
"""What a path rule's glob (picomatch) reads as special, escaped to stand for itself."""
_CREATED = "Successfully created and wrote to new file"
DEFERRED_CALL = "tool_call"


class QwenTranslator(ClaudeTranslator):
    agent = "qwen"
    file_tools = frozenset({"write_file", "edit", "notebook_edit"})

    def _assistant(self, obj: dict[str, Any]) -> list[EventPayload]:
        """Qwen Code prints an API error as the assistant's text; it is not the model's."""
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(message, dict) and isinstance(content, list):
            kept = [block for block in content if not _api_error_block(block)]
            if len(kept) != len(content):
                obj = {**obj, "message": {**message, "content": kept}}
        return super()._assistant(obj)

    def _tool_use(self, block: dict[str, Any]) -> list[EventPayload]:
        """A deferred tool (an MCP server's, behind ``tool_search``) is called through
        ``tool_call {name, arguments}``: shown as the tool it calls."""
        given = block.get("input")
        if block.get("name") == DEFERRED_CALL and isinstance(given, dict):
            name, arguments = given.get("name"), given.get("arguments")
            if isinstance(name, str) and name:
                args = arguments if isinstance(arguments, dict) else {}
                block = {**block, "name": name, "input": args}
        return super()._tool_use(block)

    def _created(self, raw: object, block: Mapping[str, Any]) -> bool:
        content = block.get("content")
        return isinstance(content, str) and content.startswith(_CREATED)

    def _input_tokens(self, usage: Mapping[str, Any]) -> int | None:
        return as_int(usage.get("input_tokens"))

    def _failure_reason(self, obj: Mapping[str, Any], text: object, subtype: object) -> str:
        error = obj.get("error")
        found = error.get("message") if isinstance(error, Mapping) else None
        if isinstance(found, str) and found.strip():
            match = _API_ERROR.fullmatch(found.strip())
            return f"API error: {match.group(1).strip()}" if match else found.strip()
        return super()._failure_reason(obj, text, subtype)


def _api_error_block(block: object) -> bool:
    if not isinstance(block, dict) or block.get("type") != "text":
        return False
    text = block.get("text")
    return isinstance(text, str) and _API_ERROR.fullmatch(text.strip()) is not None


def path_rule(tool: str, path: str) -> str:
    """A permission rule for ``tool`` on exactly ``path`` (absolute: ``//`` + the path)."""
    escaped = _GLOB.sub(r"\\\g<1>", path)
    return f"{tool}(/{escaped})"


class QwenAdapter(BestTier):
    id = "qwen"
    display_name = "Qwen Code"
    bin = "qwen"
    min_version: str | None = "0.24.4"
    capabilities = Capabilities(
        json_events=True,
        native_read_only=True,
        network=NetworkControl.OPEN,
        mcp=McpInjection.FLAG,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        """The command in the workspace. Every list option is given as ``--name=value`` (they
        take several values, and would swallow the prompt); the caller's flags go just before
        the prompt, which is ``-p``'s value (``--prompt=`` when it starts with a dash)."""
        task, paths = invocation.task, invocation.paths
        argv = [self.bin, "--output-format", "stream-json"]
        if read_only(task):
            argv += ["--approval-mode", "default"]
            argv += [f"--exclude-tools={tool}" for tool in SHELL_TOOLS]
            argv += [
                f"--allowed-tools={path_rule(tool, task.report_path)}"
                for tool in ("edit", "write_file")
            ]
        else:
            argv += ["--approval-mode", "yolo"]
        argv.append(f"--include-directories={paths.root}")
        if invocation.model:
            argv += ["--model", invocation.model]
        if invocation.channel_command:
            argv.append(f"--mcp-config={channel_config(invocation.channel_command)}")
            argv.append(f"--allowed-mcp-server-names={CHANNEL_SERVER}")
        if invocation.resume_session:
            argv.append(f"--resume={invocation.resume_session}")
        argv += list(invocation.extra_args)
        argv += prompt_option(invocation.prompt)
        return Launch(argv, Path(task.workspace))

    def translator(self, invocation: Invocation) -> QwenTranslator:
        return QwenTranslator(invocation.task.workspace, invocation.task.report_path)


def channel_config(command: Sequence[str]) -> str:
    """The channel as ``--mcp-config`` JSON (the ``mcpServers`` of Qwen Code's settings)."""
    executable, *args = command
    server = {"command": executable, "args": args, "trust": True}
    return inline_mcp_servers(server)
