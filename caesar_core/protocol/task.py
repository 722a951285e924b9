"""``task.json``: what the orchestrator asks of an agent (spec, "task.json — the task")."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.versions import TaskProtocol

NonEmpty = Annotated[str, Field(min_length=1)]


class Mode(StrEnum):
    """Whether the agent may modify the workspace."""

    READ_ONLY = "read-only"
    WRITE = "write"


class Isolation(StrEnum):
    """Where the agent works: the workspace itself, or a git worktree at ``base_ref``."""

    INPLACE = "inplace"
    WORKTREE = "worktree"


class Channel(ProtocolModel):
    """Coordinates of the task's MCP return channel, for agents that can load one."""

    transport: Literal["mcp-stdio"] = "mcp-stdio"
    command: NonEmpty
    args: list[str] = Field(default_factory=list)
    server_name: NonEmpty = "caesar"
    """The name the agent sees the server under (its tools become ``<server_name>.<tool>``)."""


class Task(ProtocolModel):
    """A task as written by the orchestrator; agents only read it."""

    protocol: TaskProtocol
    id: NonEmpty
    created_at: AwareDatetime
    role: str | None = None
    """The requested profile, when the caller asked by role rather than by agent."""
    agent: NonEmpty
    objective: NonEmpty
    context: str = ""
    constraints: list[str] = Field(default_factory=list)
    acceptance_criteria: list[str] = Field(default_factory=list)
    mode: Mode
    isolation: Isolation
    network: bool = True
    """A result, not a request: false asserts the orchestrator cut the network off."""
    workspace: NonEmpty
    base_ref: str | None = None
    """Under worktree isolation, the SHA of the starting point; every diff is taken against it."""
    deadline_ms: Annotated[int, Field(gt=0)]
    depth: Annotated[int, Field(ge=0)] = 0
    report_path: NonEmpty
    events_path: NonEmpty
    channel: Channel | None = None

    @property
    def deadline_at(self) -> datetime:
        """When the task's time runs out, from ``created_at`` and ``deadline_ms``."""
        return self.created_at + timedelta(milliseconds=self.deadline_ms)


TASK_ADAPTER: TypeAdapter[Task] = TypeAdapter(Task)
