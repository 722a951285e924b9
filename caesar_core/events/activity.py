"""The immutable records a fold hands out: safe to pass to another thread or widget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from caesar_core.protocol.event import ToolStatus
from caesar_core.protocol.report import ChangeAction, ReportStatus


class ActivityStatus(StrEnum):
    WAITING = "waiting"
    """No event yet."""
    RUNNING = "running"
    NEEDS_INPUT = "needs_input"
    """A question is pending and the task has not finished."""
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call, running or completed.

    ``duration`` is the time elapsed so far while ``status`` is ``started``. A call whose end
    arrived without a start (opencode reports tools only once finished) has ``paired`` False,
    ``started_at == ended_at`` and a zero duration: its real duration is unknown.
    """

    id: str
    tool: str
    input_summary: str
    status: ToolStatus
    started_at: datetime
    ended_at: datetime | None
    duration: timedelta
    seq: int
    """The seq of the opening event, or of the closing one when there was no opening."""
    paired: bool = True

    @property
    def running(self) -> bool:
        return self.ended_at is None

    @property
    def elapsed(self) -> timedelta:
        return self.duration


@dataclass(frozen=True, slots=True)
class FileTouch:
    path: str
    action: ChangeAction
    """The last action reported for the path."""


@dataclass(frozen=True, slots=True)
class PendingQuestion:
    id: str
    question: str
    options: tuple[str, ...]
    asked_at: datetime


@dataclass(frozen=True, slots=True)
class ProgressInfo:
    message: str
    pct: float | None
    at: datetime


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    message: str
    fatal: bool
    at: datetime


@dataclass(frozen=True, slots=True)
class FinishInfo:
    status: ReportStatus
    summary: str
    exit_code: int | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Activity:
    """An immutable view of one task at ``as_of``; safe to hand to another thread."""

    task_id: str
    as_of: datetime
    status: ActivityStatus
    headline: str
    stalled: bool
    needs_input: bool
    silence: timedelta | None
    agent: str
    command: str
    started_at: datetime | None
    first_at: datetime | None
    last_at: datetime | None
    events: int
    last_seq: int | None
    running: tuple[ToolCall, ...]
    """Open calls, oldest first."""
    recent: tuple[ToolCall, ...]
    """The last completed calls, oldest first."""
    calls_total: int
    """Completed calls, including those that arrived without a start."""
    calls_failed: int
    calls_lost: int
    """Open calls dropped by the cap without ever closing."""
    files: tuple[FileTouch, ...]
    """Deduplicated, in order of first touch."""
    speech: str
    """The last utterance (its summary when it was a JSON report), at most SPEECH_CAP chars."""
    thinking: bool
    """The last event was a thought."""
    thoughts: int
    questions: tuple[PendingQuestion, ...]
    progress: ProgressInfo | None
    error: ErrorInfo | None
    errors: int
    finished: FinishInfo | None
