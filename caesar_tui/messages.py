"""Every message the app's pieces exchange, in one place.

Workers (file watching, git) post these from their threads; widgets post the ``*Requested``
ones when a person asks for an action, and the app carries the action out through
caesar_core, exactly as the CLI does.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from caesar_core.git import ApplyResult, TreeDiff
from caesar_core.protocol.approvals import ApprovalDecision
from caesar_core.protocol.event import Event
from caesar_core.watch import TaskView


@dataclass
class ProjectUpdated(Message):
    """Tasks changed on disk: their new views, and the events appended to each."""

    views: dict[str, TaskView]
    events: dict[str, list[Event]]
    """For each changed task, the events appended since the last update (oldest first)."""
    resets: set[str]
    """Tasks whose log was replaced: their events start over."""
    full: bool = False
    """The first scan: every task of the project is in ``views``."""


@dataclass
class HistoryLoaded(Message):
    """A task's last events, read from its log when a view switched to it."""

    task_id: str
    events: list[Event]
    generation: int
    """Which switch asked for it: only the latest one's history is shown."""


@dataclass
class DiffReady(Message):
    """A task's diff, computed in a thread worker."""

    task_id: str
    diff: TreeDiff | None
    error: str | None = None


@dataclass
class AnswerRequested(Message):
    task_id: str
    question_id: str
    answer: str


@dataclass
class ApplyRequested(Message):
    task_id: str
    paths: list[str] | None
    """None applies everything."""


@dataclass
class ApplyDone(Message):
    task_id: str
    result: ApplyResult | None
    error: str | None = None


@dataclass
class ApprovalRequested(Message):
    """A person allowed or denied a tool call the bridge holds (``y``/``n`` on its card)."""

    task_id: str
    approval_id: str
    decision: ApprovalDecision
