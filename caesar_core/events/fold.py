"""What a task is doing now, folded from its ``events.jsonl``.

The fold is pure (no I/O, no clock: ``now`` is always a parameter) so the TUI, the CLI and the
tests all see the same answer for the same events. ``apply`` runs once per event on a tail that
may replay hundreds of thousands of lines, so it only stores references and bumps counters;
everything that allocates records or formats text waits for ``snapshot``, which runs only when
something is rendered.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from caesar_core.protocol.event import (
    EVENT_TYPES,
    AnswerEvent,
    ErrorEvent,
    Event,
    FileChangedEvent,
    FinishedEvent,
    MessageEvent,
    ProgressEvent,
    QuestionEvent,
    StartedEvent,
    ThinkingEvent,
    ToolStatus,
    ToolUseEvent,
)
from caesar_core.protocol.report import ChangeAction, ReportStatus

STALL_AFTER = timedelta(seconds=30)
"""Silence after which a task that has not finished is shown as stalled."""
MAX_OPEN_CALLS = 64
"""Open calls kept; a stream that never closes its calls must not grow without bound."""
RECENT_CALLS = 100
"""Completed calls kept for display; the counters still count every call."""
SPEECH_CAP = 2_000
"""Characters of the last utterance kept: enough for a screen, bounded for a long stream."""
HEADLINE_CAP = 160

_SPEECH_SLACK = 4 * SPEECH_CAP
"""Fragments are joined and trimmed only past this, so a delta stream is not re-joined per event."""
_REPORT_MAX = 256 * 1024
"""Longest utterance still kept whole because it may be a JSON report awaiting its end."""
_FENCE = re.compile(r"```[A-Za-z]*\s*(.*?)\s*```", re.DOTALL)
_ZERO = timedelta(0)


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


# An open call, kept as a plain tuple because one is built per opening event:
# (id, tool, input_summary, started_at, seq).
_Open = tuple[str, str, str, datetime, int]
# A completed call: (id, tool, input_summary, failed, started_at, ended_at, seq, paired).
_Done = tuple[str, str, str, bool, datetime, datetime, int, bool]


class ActivityFold:
    """Accumulates a task's events into the state behind :class:`Activity`."""

    def __init__(self, task_id: str = "") -> None:
        self.task_id = task_id
        # One bound method per type: the whole per-event dispatch is a dict lookup.
        self._handlers: dict[str, Callable[[Any], None]] = {
            kind: getattr(self, f"_on_{kind}") for kind in EVENT_TYPES
        }
        self.reset()

    def reset(self) -> None:
        """Forget everything: the tail restarted from the first line (file replaced)."""
        self._n = 0
        self._last_type = ""
        self._seen_task_id = ""
        self._first_at: datetime | None = None
        self._last_at: datetime | None = None
        self._last_seq: int | None = None
        self._agent = ""
        self._command = ""
        self._started_at: datetime | None = None
        self._open: dict[int, _Open] = {}
        self._open_ids: dict[str, int] = {}
        self._done: deque[_Done] = deque(maxlen=RECENT_CALLS)
        self._calls_total = 0
        self._calls_failed = 0
        self._calls_lost = 0
        self._files: dict[str, ChangeAction] = {}
        self._files_view: tuple[FileTouch, ...] | None = ()
        self._speech: list[str] = []
        self._speech_len = 0
        self._speech_whole = True
        self._speech_limit = _SPEECH_SLACK
        self._speech_n = 0
        self._speech_view: str | None = ""
        self._thoughts = 0
        self._questions: dict[str, PendingQuestion] = {}
        self._progress: ProgressInfo | None = None
        self._progress_n = 0
        self._error: ErrorInfo | None = None
        self._error_n = 0
        self._fatal: ErrorInfo | None = None
        self._errors = 0
        self._finished: FinishInfo | None = None

    # -- folding ---------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        self._n += 1
        at = event.at
        if self._first_at is None:
            self._first_at = at
            self._seen_task_id = event.task_id
        self._last_at = at
        self._last_seq = event.seq
        self._handlers.get(event.type, _ignore)(event)
        # Set after the handler, which reads it as the type of the previous event.
        self._last_type = event.type

    def apply_all(self, events: Iterable[Event]) -> None:
        apply = self.apply
        for event in events:
            apply(event)

    def _on_started(self, event: StartedEvent) -> None:
        self._agent = event.agent
        self._command = event.command
        self._started_at = event.at

    def _on_thinking(self, event: ThinkingEvent) -> None:
        self._thoughts += 1

    def _on_message(self, event: MessageEvent) -> None:
        text = event.text
        if self._last_type == "message":
            self._speech.append(text)
            self._speech_len += len(text)
        else:
            self._speech = [text]
            self._speech_len = len(text)
            self._speech_whole = True
            self._speech_limit = _SPEECH_SLACK
        if self._speech_len > self._speech_limit:
            self._compact_speech()
        self._speech_n = self._n
        self._speech_view = None

    def _compact_speech(self) -> None:
        """Join the fragments and keep the tail, unless the utterance may be a JSON report.

        Fragments are glued verbatim: a streaming adapter sends pieces of words, so adding a
        separator would corrupt them; an adapter that sends whole messages owns its spacing.
        """
        text = "".join(self._speech)
        if (
            self._speech_whole
            and len(text) <= _REPORT_MAX
            and text.lstrip().startswith(("{", "```"))
        ):
            self._speech = [text]
            self._speech_limit = _REPORT_MAX
            return
        tail = text[-SPEECH_CAP:]
        self._speech = [tail]
        self._speech_len = len(tail)
        self._speech_whole = False
        self._speech_limit = _SPEECH_SLACK

    def _on_tool_use(self, event: ToolUseEvent) -> None:
        if event.status == ToolStatus.STARTED:
            self._open_call(event)
        else:
            self._close_call(event)

    def _open_call(self, event: ToolUseEvent) -> None:
        call_id = event.id
        if call_id and call_id in self._open_ids:
            return  # a replayed opening: the call is already open
        if len(self._open) >= MAX_OPEN_CALLS:
            oldest = next(iter(self._open))
            lost_id = self._open.pop(oldest)[0]
            if lost_id:
                del self._open_ids[lost_id]
            self._calls_lost += 1
        self._open[self._n] = (call_id, event.tool, event.input_summary, event.at, event.seq)
        if call_id:
            self._open_ids[call_id] = self._n

    def _close_call(self, event: ToolUseEvent) -> None:
        call_id, tool, summary = event.id, event.tool, event.input_summary
        key = self._open_ids.get(call_id) if call_id else None
        if key is None and self._open:
            key = self._match(call_id, tool, summary)
        failed = event.status == ToolStatus.FAILED
        if key is None:
            done = (call_id, tool, summary, failed, event.at, event.at, event.seq, False)
        else:
            open_id, open_tool, open_summary, started_at, seq = self._open.pop(key)
            if open_id:
                del self._open_ids[open_id]
            if not tool:
                tool, summary = open_tool, summary or open_summary
            elif not summary:
                summary = open_summary
            done = (call_id or open_id, tool, summary, failed, started_at, event.at, seq, True)
        self._done.append(done)
        self._calls_total += 1
        if failed:
            self._calls_failed += 1

    def _match(self, call_id: str, tool: str, summary: str) -> int | None:
        """The open call a closing edge without a known id ends.

        The same tool with the same input first, else the oldest open call of that tool, so
        two identical commands run back to back pair first-in first-out. A call opened under
        a different id is a different call and is never taken.
        """
        same_tool: int | None = None
        for key, (open_id, open_tool, open_summary, _, _) in self._open.items():
            if (call_id and open_id) or open_tool != tool:
                continue
            if tool and open_summary == summary:
                return key
            if same_tool is None:
                same_tool = key
        return same_tool

    def _on_file_changed(self, event: FileChangedEvent) -> None:
        path = event.path
        if self._files.get(path) is not event.action:
            self._files[path] = event.action
            self._files_view = None

    def _on_progress(self, event: ProgressEvent) -> None:
        self._progress = ProgressInfo(event.message, event.pct, event.at)
        self._progress_n = self._n

    def _on_question(self, event: QuestionEvent) -> None:
        if event.id not in self._questions:
            self._questions[event.id] = PendingQuestion(
                event.id, event.question, tuple(event.options), event.at
            )

    def _on_answer(self, event: AnswerEvent) -> None:
        self._questions.pop(event.id, None)

    def _on_error(self, event: ErrorEvent) -> None:
        self._error = ErrorInfo(event.message, event.fatal, event.at)
        self._error_n = self._n
        self._errors += 1
        if event.fatal:
            self._fatal = self._error

    def _on_finished(self, event: FinishedEvent) -> None:
        self._finished = FinishInfo(event.status, event.summary, event.exit_code, event.at)

    # -- reading ---------------------------------------------------------------------------

    def silence(self, now: datetime) -> timedelta | None:
        """Time since the last event, or None before the first one."""
        return None if self._last_at is None else now - self._last_at

    def stalled(self, now: datetime) -> bool:
        if self._finished is not None or self._last_at is None:
            return False
        return now - self._last_at >= STALL_AFTER

    def speech(self) -> str:
        """The last utterance as shown: a JSON report reads as its summary, not as JSON."""
        if self._speech_view is None:
            raw = "".join(self._speech)
            if len(self._speech) > 1:
                self._speech = [raw]  # join once, not on every render
            shown = (_report_summary(raw) if self._speech_whole else None) or raw
            self._speech_view = shown.strip()[-SPEECH_CAP:]
        return self._speech_view

    def headline(self) -> str:
        """One line for a list row: the most important thing, else the most recent one."""
        return _one_line(self._headline())

    def _headline(self) -> str:
        if (finished := self._finished) is not None:
            status = finished.status.value
            return f"{status}: {finished.summary}" if finished.summary.strip() else status
        if self._questions:
            return f"? {next(iter(self._questions.values())).question}"
        if self._fatal is not None:
            return f"error: {self._fatal.message}"
        if self._open:
            _, tool, summary, _, _ = next(reversed(self._open.values()))
            return f"{tool} {summary}"
        candidates: list[tuple[int, str]] = []
        if (progress := self._progress) is not None:
            pct = "" if progress.pct is None else f" ({int(progress.pct)}%)"
            candidates.append((self._progress_n, progress.message + pct))
        if self._speech_n and (line := _first_line(self.speech())):
            candidates.append((self._speech_n, line))
        if self._error is not None and not self._error.fatal:
            candidates.append((self._error_n, f"error: {self._error.message}"))
        if self._last_type == "thinking":
            candidates.append((self._n, "thinking…"))
        if candidates:
            return max(candidates)[1]
        if self._done:
            _, tool, summary, *_ = self._done[-1]
            return f"{tool} {summary}"
        if self._started_at is not None:
            return f"started {self._agent}"
        return "waiting for the first event"

    def snapshot(self, now: datetime) -> Activity:
        finished = self._finished
        needs_input = bool(self._questions) and finished is None
        if finished is not None:
            status = ActivityStatus.FINISHED
        elif not self._n:
            status = ActivityStatus.WAITING
        elif needs_input:
            status = ActivityStatus.NEEDS_INPUT
        else:
            status = ActivityStatus.RUNNING
        if self._files_view is None:
            self._files_view = tuple(FileTouch(p, a) for p, a in self._files.items())
        return Activity(
            task_id=self.task_id or self._seen_task_id,
            as_of=now,
            status=status,
            headline=self.headline(),
            stalled=self.stalled(now),
            needs_input=needs_input,
            silence=self.silence(now),
            agent=self._agent,
            command=self._command,
            started_at=self._started_at,
            first_at=self._first_at,
            last_at=self._last_at,
            events=self._n,
            last_seq=self._last_seq,
            running=tuple(_running_call(call, now) for call in self._open.values()),
            recent=tuple(_done_call(call) for call in self._done),
            calls_total=self._calls_total,
            calls_failed=self._calls_failed,
            calls_lost=self._calls_lost,
            files=self._files_view,
            speech=self.speech(),
            thinking=self._last_type == "thinking",
            thoughts=self._thoughts,
            questions=tuple(self._questions.values()),
            progress=self._progress,
            error=self._error,
            errors=self._errors,
            finished=finished,
        )


def _ignore(event: Any) -> None:
    """An event type this build does not fold still counts as an event."""


def _running_call(call: _Open, now: datetime) -> ToolCall:
    call_id, tool, summary, started_at, seq = call
    elapsed = max(now - started_at, _ZERO)
    return ToolCall(call_id, tool, summary, ToolStatus.STARTED, started_at, None, elapsed, seq)


def _done_call(call: _Done) -> ToolCall:
    call_id, tool, summary, failed, started_at, ended_at, seq, paired = call
    status = ToolStatus.FAILED if failed else ToolStatus.SUCCEEDED
    duration = max(ended_at - started_at, _ZERO)
    return ToolCall(call_id, tool, summary, status, started_at, ended_at, duration, seq, paired)


def _report_summary(text: str) -> str | None:
    """The summary of a caesar report written as the agent's whole message, if it is one.

    Agents asked for a structured answer (codex ``--output-schema``) end by *saying* the
    report; showing its JSON as speech would bury the one sentence that matters.
    """
    body = text.strip()
    if body.startswith("```"):
        fenced = _FENCE.fullmatch(body)
        if fenced is None:
            return None
        body = fenced.group(1)
    if not body.startswith("{"):
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    protocol = doc.get("protocol")
    is_report = isinstance(protocol, str) and protocol.startswith("caesar.report/")
    if not is_report and not ("status" in doc and "summary" in doc):
        return None
    summary = doc.get("summary")
    if isinstance(summary, str) and summary.strip():
        return summary
    status = doc.get("status")
    return f"report: {status}" if isinstance(status, str) else "report"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line
    return ""


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= HEADLINE_CAP else line[: HEADLINE_CAP - 1].rstrip() + "…"
