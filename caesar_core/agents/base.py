"""What caesar needs to know about an agent CLI, and the seam adapters plug into.

An adapter answers three questions: how to start the agent for a task (its command line),
what it can do (capabilities drive isolation, network and report-tier decisions), and how to
turn each line it prints into ``caesar.event/v1`` payloads. The runner knows nothing else
about any agent, which is what makes providers interchangeable as seen from the main agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from caesar_core.protocol.event import EventPayload
from caesar_core.protocol.report import Usage
from caesar_core.protocol.task import Mode, Task
from caesar_core.protocol.taskdir import TaskPaths

ReportTier = Literal["channel", "schema", "file"]

CHANNEL_SERVER = "caesar"
"""The name a task's MCP channel server goes by in every CLI's configuration."""


class NetworkControl(StrEnum):
    """How far caesar can control an agent's network access."""

    TOGGLE = "toggle"
    """caesar can cut it off (the agent has a flag for it)."""
    WRITE_ONLY = "write-only"
    """Open only when the agent may write (codex: read-only sandbox means no network)."""
    OPEN = "open"
    """Always on; caesar cannot cut it."""
    UNKNOWN = "unknown"


class McpInjection(StrEnum):
    """How a task's MCP channel reaches the CLI."""

    FLAG = "flag"
    """On the command line (codex ``-c mcp_servers…``, claude ``--mcp-config``)."""
    ENVIRONMENT = "environment"
    """In an environment variable (opencode ``OPENCODE_CONFIG_CONTENT``): no file at all."""
    SETTINGS = "settings"
    """In a settings file laid down for the run and put back after (gemini)."""
    NONE = "none"


@dataclass(frozen=True)
class Capabilities:
    json_events: bool = False
    output_schema: bool = False
    final_message_file: bool = False
    native_read_only: bool = False
    network: NetworkControl = NetworkControl.UNKNOWN
    mcp: McpInjection = McpInjection.NONE
    model: bool = False
    resume: bool = False
    """A later turn can resume the session its stream named (``Invocation.resume_session``)."""


@dataclass(frozen=True)
class Invocation:
    """Everything an adapter may put on the command line for one task."""

    task: Task
    paths: TaskPaths
    prompt: str
    tier: ReportTier
    model: str | None = None
    network_off: bool = False
    extra_args: Sequence[str] = ()
    channel_command: Sequence[str] = ()
    """How to start the task's MCP channel server, when the task has one."""
    resume_session: str | None = None
    """A follow-up turn: the CLI's own session to resume (checked by ``agents.sessions``), with
    ``prompt`` as the next message in it. None: a new session."""


@dataclass(frozen=True)
class Launch:
    """A process to start: argv, working directory, extra environment."""

    argv: list[str]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[Path, str] = field(default_factory=dict)
    """Files the CLI reads its per-task configuration from (an MCP server list), written just
    before the start and put back as they were after the run, so a file the user owns (a
    workspace ``opencode.json``) is never left changed."""


class Translator(Protocol):
    """Turns an agent's stdout, one line at a time, into event payloads.

    A translator never raises on what an agent prints: lines it cannot use are counted in
    ``skipped`` (the raw text is in ``raw.log``), and ``close`` ends what the stream left
    open when the process stops, so every tool call that started also ends.
    """

    def feed(self, line: str) -> list[EventPayload]: ...

    def close(self) -> list[EventPayload]: ...

    @property
    def skipped(self) -> int: ...

    @property
    def failure(self) -> str | None:
        """Why the run failed, when the stream itself says so (a failed turn)."""
        ...

    @property
    def final_text(self) -> str | None:
        """The agent's last message, the degraded tier's first place to look."""
        ...

    @property
    def usage(self) -> Usage | None: ...

    @property
    def session(self) -> str | None:
        """The CLI's own session id, once its stream named a valid one (see
        ``agents.sessions``): what a follow-up turn resumes."""
        ...


class Adapter(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def bin(self) -> str:
        """The executable, by name (looked up on PATH) or by path."""
        ...

    @property
    def capabilities(self) -> Capabilities: ...

    def launch(self, invocation: Invocation) -> Launch: ...

    def translator(self, invocation: Invocation) -> Translator: ...

    def preferred_tier(self, channel: bool) -> ReportTier: ...

    @property
    def min_version(self) -> str | None:
        """The oldest version whose stream the translator was written from, if known."""
        ...


class SilentTranslator:
    """For agents that print no structured stream: every line is just output.

    The last non-empty line is kept as the agent's final text, so the degraded tier can still
    find a report the agent printed.
    """

    skipped = 0
    failure: str | None = None
    session: str | None = None

    def __init__(self) -> None:
        self._last: str | None = None

    def feed(self, line: str) -> list[EventPayload]:
        if line.strip():
            self._last = line.rstrip("\n")
        return []

    def close(self) -> list[EventPayload]:
        return []

    @property
    def final_text(self) -> str | None:
        return self._last

    @property
    def usage(self) -> Usage | None:
        return None


def default_tier(capabilities: Capabilities, channel: bool) -> ReportTier:
    """The best tier an agent can honor: channel, then native schema, then the file."""
    if channel and capabilities.mcp is not McpInjection.NONE:
        return "channel"
    if capabilities.output_schema:
        return "schema"
    return "file"


class BestTier:
    """For an adapter whose preferred tier is the best its capabilities honor."""

    @property
    def capabilities(self) -> Capabilities:
        raise NotImplementedError

    def preferred_tier(self, channel: bool) -> ReportTier:
        return default_tier(self.capabilities, channel)


def prompt_option(prompt: str) -> list[str]:
    """The prompt as ``-p``'s value, or ``--prompt=`` when it starts with a dash (it would
    read as an option): the spelling Gemini CLI and the CLIs like it take."""
    return [f"--prompt={prompt}"] if prompt.startswith("-") else ["-p", prompt]


def inline_mcp_servers(server: Mapping[str, object]) -> str:
    """The channel as ``{"mcpServers": {"caesar": server}}`` on one line, for a CLI that takes
    its MCP servers as JSON on the command line."""
    return json.dumps({"mcpServers": {CHANNEL_SERVER: server}}, separators=(",", ":"))


def read_only(task: Task) -> bool:
    return task.mode is Mode.READ_ONLY
