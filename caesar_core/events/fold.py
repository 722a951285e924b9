"""What a task is doing now, folded from its ``events.jsonl``.

The fold is pure (no I/O, no clock: ``now`` is always a parameter) so the TUI, the CLI and the
tests all see the same answer for the same events. ``apply`` runs once per event on a tail that
may replay hundreds of thousands of lines, so it only stores references and bumps counters;
everything that allocates records or formats text waits for ``snapshot``, which runs only when
something is rendered.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from caesar_core import safefs
from caesar_core.events.activity import (
    Activity,
    ActivityStatus,
    ErrorInfo,
    FileTouch,
    FinishInfo,
    PendingQuestion,
    ProgressInfo,
    ToolCall,
)
from caesar_core.events.pairing import OpenCalls
from caesar_core.humanize import one_line
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
from caesar_core.protocol.report import ChangeAction

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
_ENDINGS_KEPT = 16
_FENCE = re.compile(r"```[A-Za-z]*\s*(.*?)\s*```", re.DOTALL)
_ZERO = timedelta(0)


_Done = tuple[ToolUseEvent | None, ToolUseEvent]
"""A completed call: its opening (None when the end came alone) and its closing edge."""
_STARTED = ToolStatus.STARTED
_FAILED = ToolStatus.FAILED


class ActivityFold:
    """Accumulates a task's events into the state behind :class:`Activity`.

    The state holds the events themselves rather than records built from them: keeping a
    reference costs nothing per event, and ``snapshot`` builds the records it returns.
    """

    def __init__(self, task_id: str = "") -> None:
        self.task_id = task_id
        self._gated = False
        self._trusted: int | None = None
        # One bound method per type: the whole per-event dispatch is a dict lookup.
        self._handlers: dict[str, Callable[[Any], None]] = {
            kind: getattr(self, f"_on_{kind}") for kind in EVENT_TYPES
        }
        self.reset()

    def reset(self) -> None:
        """Forget everything: the tail restarted from the first line (file replaced)."""
        self._n = 0
        self._first: Event | None = None
        self._last: Event | None = None
        self._started: StartedEvent | None = None
        self._open: OpenCalls[ToolUseEvent] = OpenCalls(MAX_OPEN_CALLS)
        self._done: deque[ToolCall] = deque(maxlen=RECENT_CALLS)
        """Completed calls as small records, not events: a thousand folded tasks must not
        keep a hundred event models each alive."""
        self._calls_total = 0
        self._calls_failed = 0
        self._files: dict[str, ChangeAction] = {}
        self._files_view: tuple[FileTouch, ...] | None = ()
        self._said: MessageEvent | None = None
        self._speech: list[str] = []
        self._speech_len = 0
        self._speech_whole = True
        self._speech_limit = _SPEECH_SLACK
        self._speech_view = ""
        self._speech_dirty = False
        self._thoughts = 0
        self._questions: dict[str, QuestionEvent] = {}
        self._progress: ProgressEvent | None = None
        self._error: ErrorEvent | None = None
        self._fatal: ErrorEvent | None = None
        self._errors = 0
        self._finished: FinishedEvent | None = None
        self._endings: dict[int, FinishedEvent] = {}
        """``finished`` events not judged yet (gated, caesar's one not named): the last few."""

    # -- folding ---------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        self._n += 1
        if self._first is None:
            self._first = event
        self._handlers.get(event.type, _ignore)(event)
        # Set after the handler, which reads it as the previous event.
        self._last = event

    def apply_all(self, events: Iterable[Event]) -> None:
        apply = self.apply
        for event in events:
            apply(event)

    def _on_started(self, event: StartedEvent) -> None:
        self._started = event

    def _on_thinking(self, event: ThinkingEvent) -> None:
        self._thoughts += 1

    def _on_message(self, event: MessageEvent) -> None:
        text = event.text
        if self._said is not None and self._last is self._said:
            self._speech.append(text)
            self._speech_len += len(text)
        else:
            self._speech = [text]
            self._speech_len = len(text)
            self._speech_whole = True
            self._speech_limit = _SPEECH_SLACK
        if self._speech_len > self._speech_limit:
            self._compact_speech()
        self._said = event
        self._speech_dirty = True

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
        if event.status == _STARTED:
            self._open_call(event)
        else:
            self._close_call(event)

    def _open_call(self, event: ToolUseEvent) -> None:
        # A replayed opening (an id already open) is ignored by OpenCalls.
        self._open.open(event.id, event.tool, event.input_summary, event)

    def _close_call(self, event: ToolUseEvent) -> None:
        opening = self._open.close(event.id, event.tool, event.input_summary)
        self._done.append(_done_call((opening, event)))
        self._calls_total += 1
        if event.status == _FAILED:
            self._calls_failed += 1

    def _on_file_changed(self, event: FileChangedEvent) -> None:
        path = event.path
        if self._files.get(path) is not event.action:
            self._files[path] = event.action
            self._files_view = None

    def _on_progress(self, event: ProgressEvent) -> None:
        self._progress = event

    def _on_question(self, event: QuestionEvent) -> None:
        self._questions.setdefault(event.id, event)

    def _on_answer(self, event: AnswerEvent) -> None:
        self._questions.pop(event.id, None)

    def _on_error(self, event: ErrorEvent) -> None:
        self._error = event
        self._errors += 1
        if event.fatal:
            self._fatal = event

    def _on_finished(self, event: FinishedEvent) -> None:
        if not self._gated:
            self._finished = event
        elif self._trusted is not None:
            if event.seq == self._trusted:
                self._finished = event
        else:
            self._endings[event.seq] = event
            if len(self._endings) > _ENDINGS_KEPT:
                del self._endings[next(iter(self._endings))]

    def trust_finished(self, seq: int | None) -> None:
        """From now on only the ``finished`` event numbered ``seq`` ends the task: caesar's own,
        as its record names it (``None``: caesar has not written it yet). Agents can append a
        line that looks like a ``finished``; it never makes the task look ended. A fold never
        told this (a log on its own) takes every ``finished`` it sees."""
        self._gated = True
        self._trusted = seq
        if seq is None:
            if self._finished is not None:
                self._endings[self._finished.seq] = self._finished
            self._finished = None
        elif self._finished is None or self._finished.seq != seq:
            self._finished = self._endings.get(seq)

    def trust_any(self) -> None:
        """Back to taking every ``finished`` (the last wins): for a task whose record predates
        ``finished_seq`` (``TaskRecord.legacy_ending``)."""
        self._gated = False
        if self._endings:
            last = list(self._endings.values())[-1]
            if self._finished is None or last.seq > self._finished.seq:
                self._finished = last

    # -- reading ---------------------------------------------------------------------------

    def silence(self, now: datetime) -> timedelta | None:
        """Time since the last event, or None before the first one."""
        return None if self._last is None else now - self._last.at

    def stalled(self, now: datetime) -> bool:
        if self._finished is not None or self._last is None:
            return False
        return now - self._last.at >= STALL_AFTER

    def speech(self) -> str:
        """The last utterance as shown: a JSON report reads as its summary, not as JSON."""
        if self._speech_dirty:
            raw = "".join(self._speech)
            self._speech = [raw]  # join once, not on every render
            shown = (_report_summary(raw) if self._speech_whole else None) or raw
            self._speech_view = shown.strip()[-SPEECH_CAP:]
            self._speech_dirty = False
        return self._speech_view

    def headline(self) -> str:
        """One line for a list row: the most important thing, else the most recent one."""
        return one_line(self._headline(), HEADLINE_CAP)

    def _headline(self) -> str:
        if (finished := self._finished) is not None:
            status = finished.status.value
            return f"{status}: {finished.summary}" if finished.summary.strip() else status
        if self._questions:
            return f"? {next(iter(self._questions.values())).question}"
        if self._fatal is not None:
            return f"error: {self._fatal.message}"
        if (newest := self._open.newest()) is not None:
            return f"{newest.tool} {newest.input_summary}"
        candidates: list[tuple[int, str]] = []
        if (progress := self._progress) is not None:
            pct = "" if progress.pct is None else f" ({int(progress.pct)}%)"
            candidates.append((progress.seq, progress.message + pct))
        if self._said is not None and (line := _first_line(self.speech())):
            candidates.append((self._said.seq, line))
        if (error := self._error) is not None and not error.fatal:
            candidates.append((error.seq, f"error: {error.message}"))
        if self._last is not None and self._last.type == "thinking":
            candidates.append((self._last.seq, "thinking…"))
        if candidates:
            return max(candidates)[1]
        if self._done:
            call = self._done[-1]
            return f"{call.tool} {call.input_summary}"
        if self._started is not None:
            return f"started {self._started.agent}"
        return "waiting for the first event"

    def snapshot(self, now: datetime) -> Activity:
        finished, started, first, last = self._finished, self._started, self._first, self._last
        needs_input = bool(self._questions) and finished is None
        if finished is not None:
            status = ActivityStatus.FINISHED
        elif last is None:
            status = ActivityStatus.WAITING
        elif needs_input:
            status = ActivityStatus.NEEDS_INPUT
        else:
            status = ActivityStatus.RUNNING
        if self._files_view is None:
            self._files_view = tuple(FileTouch(p, a) for p, a in self._files.items())
        progress, error = self._progress, self._error
        running: tuple[ToolCall, ...] = ()
        recent = tuple(self._done)
        total, failed = self._calls_total, self._calls_failed
        if finished is None:
            running = tuple(_running_call(call, now) for call in self._open.values())
        elif self._open:
            # The task ended with calls open: none is running any more. Each is closed failed
            # at the ending, as a stream that ends mid-call is (its end never came).
            cut = tuple(_cut_call(call, finished) for call in self._open.values())
            recent = (recent + cut)[-RECENT_CALLS:]
            total, failed = total + len(cut), failed + len(cut)
        return Activity(
            task_id=self.task_id or (first.task_id if first is not None else ""),
            as_of=now,
            status=status,
            headline=self.headline(),
            stalled=self.stalled(now),
            needs_input=needs_input,
            silence=self.silence(now),
            agent=started.agent if started is not None else "",
            command=started.command if started is not None else "",
            started_at=started.at if started is not None else None,
            first_at=first.at if first is not None else None,
            last_at=last.at if last is not None else None,
            events=self._n,
            last_seq=last.seq if last is not None else None,
            running=running,
            recent=recent,
            calls_total=total,
            calls_failed=failed,
            calls_lost=self._open.lost,
            files=self._files_view,
            speech=self.speech(),
            thinking=last is not None and last.type == "thinking",
            thoughts=self._thoughts,
            questions=tuple(
                PendingQuestion(q.id, q.question, tuple(q.options), q.at)
                for q in self._questions.values()
            ),
            progress=None
            if progress is None
            else ProgressInfo(progress.message, progress.pct, progress.at),
            error=None if error is None else ErrorInfo(error.message, error.fatal, error.at),
            errors=self._errors,
            finished=None
            if finished is None
            else FinishInfo(finished.status, finished.summary, finished.exit_code, finished.at),
        )


def _ignore(event: Any) -> None:
    """An event type this build does not fold still counts as an event."""


def _running_call(call: ToolUseEvent, now: datetime) -> ToolCall:
    elapsed = max(now - call.at, _ZERO)
    return ToolCall(
        call.id, call.tool, call.input_summary, _STARTED, call.at, None, elapsed, call.seq
    )


def _cut_call(call: ToolUseEvent, finished: FinishedEvent) -> ToolCall:
    """A call still open when the task ended: failed at the ending (or at its own start, when
    it began after the ending was written)."""
    ended = max(finished.at, call.at)
    return ToolCall(
        call.id, call.tool, call.input_summary, _FAILED, call.at, ended, ended - call.at, call.seq
    )


def _done_call(call: _Done) -> ToolCall:
    """The completed call, the closing edge borrowing what Claude's tool_result leaves out."""
    opening, closing = call
    start = closing if opening is None else opening
    tool, summary = closing.tool, closing.input_summary
    if not tool:
        tool, summary = start.tool, summary or start.input_summary
    elif not summary:
        summary = start.input_summary
    duration = max(closing.at - start.at, _ZERO)
    call_id, paired = closing.id or start.id, opening is not None
    return ToolCall(
        call_id, tool, summary, closing.status, start.at, closing.at, duration, start.seq, paired
    )


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
        doc = safefs.loads(body)  # what the agent said: a deep nesting is refused, not recursed
    except (ValueError, RecursionError):
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
