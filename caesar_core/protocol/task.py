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


class FollowUpComment(ProtocolModel):
    """A reviewer's open comment on lines of the work, with the code it is about."""

    path: NonEmpty
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int, Field(ge=1)]
    text: str
    code: list[str] = Field(default_factory=list)
    """The lines commented on, as the reviewer saw them."""


class FollowUpHunk(ProtocolModel):
    """A change of the earlier turns the reviewer rejected: it was taken out of the workspace."""

    path: NonEmpty
    header: str = ""
    """The hunk's ``@@ -a,b +c,d @@`` line."""
    reason: str = ""
    lines: list[str] = Field(default_factory=list)
    """The hunk as the diff showed it: `` context``, ``-removed``, ``+added``."""
    rejected_lines: list[int] | None = None
    """The changed lines rejected (1-based among its ``-``/``+`` lines); absent: all of them."""


class FollowUpCheck(ProtocolModel):
    """A check of the project (``[review] checks``) that caesar ran on the work, and failed."""

    command: NonEmpty
    outcome: str = ""
    """How it ended, in a few words: ``exit 1``, ``timed out``."""
    output: str = ""
    """The end of its output."""


class FollowUp(ProtocolModel):
    """A follow-up turn (``caesar continue``): the task it continues, in the same workspace
    from the same ``base_ref``, and what the review of that task asks for."""

    continues: NonEmpty
    """The task (turn) this one follows up."""
    first_turn: NonEmpty
    """The chain's first task: the one the reviewer thinks of as the task."""
    turn: Annotated[int, Field(ge=2)]
    first_objective: str
    """The objective of the chain's first turn."""
    previous_objective: str
    message: str = ""
    """What the reviewer asks now, in their words."""
    comments: list[FollowUpComment] = Field(default_factory=list)
    rejected_hunks: list[FollowUpHunk] = Field(default_factory=list)
    failed_checks: list[FollowUpCheck] = Field(default_factory=list)
    omitted: Annotated[int, Field(ge=0)] = 0
    """Items of the review left out to keep the brief short (``caesar diff`` has them all)."""


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
    followup: FollowUp | None = None
    """Set on a follow-up turn: what it continues and the review it answers."""

    @property
    def deadline_at(self) -> datetime:
        """When the task's time runs out, from ``created_at`` and ``deadline_ms``."""
        return self.created_at + timedelta(milliseconds=self.deadline_ms)


TASK_ADAPTER: TypeAdapter[Task] = TypeAdapter(Task)
