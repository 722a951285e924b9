"""Following ``events.jsonl`` while it grows: its lines (:mod:`caesar_core.events.lines`) as
validated events, at a cost set by the new bytes alone.

:class:`EventTail` never raises for bad content, because one broken line written by an agent
must not blind the orchestrator to the rest of the task: a bad line is a :class:`BadLine`,
reported with its number and reason. :meth:`EventTail.pass_on` serves a reader that writes the
log on as it is (``caesar logs --json``): the valid lines, byte for byte, each event dropped
as soon as it is judged.

The log lives in the task directory, which the agent can write: it is opened through
:mod:`caesar_core.safefs`. A link, a directory, a FIFO or a hard link in its place reads as no
log at all, and ``problem`` says why.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from pydantic import ValidationError

from caesar_core import safefs
from caesar_core.errors import CaesarError
from caesar_core.events.lines import CHUNK, LineChunk, LineTail
from caesar_core.humanize import clip
from caesar_core.protocol.event import EVENT_ADAPTER, Event
from caesar_core.protocol.parse import parse, problem_text
from caesar_core.protocol.versions import DocumentKind

BATCH_BYTES = CHUNK
"""What :meth:`EventTail.pass_on` reads at a time: some 4,000 events of a typical log."""
_REASON_MAX = 200
_validate_json = EVENT_ADAPTER.validator.validate_json
"""``EVENT_ADAPTER.validate_json`` without its Python wrapper (the same call with the same
defaults), called once per line of every log read: 4% of a ``caesar logs --json``."""
_GC_PAUSE_FROM = 5_000


@dataclass(frozen=True)
class BadLine:
    """A line that is not a valid event of a version this build reads."""

    line: int
    """1-based line number in the file."""
    reason: str


@dataclass(frozen=True)
class EventBatch:
    events: list[Event] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    reset: bool = False
    """Earlier batches no longer describe the file; rebuild from this one."""
    lines: list[bytes] = field(default_factory=list)
    """The bytes of each event's line as the file holds them (without its ``\\n``),
    ``lines[i]`` being ``events[i]``'s: what passes a log through unchanged writes."""


@dataclass(frozen=True)
class Passed:
    """A batch of :meth:`EventTail.pass_on`: the lines to pass on as the file holds them
    (without their ``\\n``), in order, and the events held back with their lines."""

    reset: bool = False
    """Earlier batches no longer describe the file; these lines start again from its top."""
    lines: list[bytes] = field(default_factory=list)
    held: list[tuple[Event, bytes]] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


class EventTail:
    """Validated events of a growing ``events.jsonl``; bad lines are reported, never raised.

    ``bad_total`` counts the bad lines of the file as currently read; a reset restarts it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bad_total = 0
        self._lines = LineTail(path)

    @property
    def problem(self) -> str:
        """Why the log cannot be read at all; "" when it can (or does not exist yet)."""
        return self._lines.problem

    @property
    def offset(self) -> int:
        """Bytes of the log consumed so far (see :attr:`LineTail.offset`)."""
        return self._lines.offset

    def read(self, *, max_bytes: int | None = None) -> EventBatch:
        """The events appended since the last read (see :meth:`LineTail.read`).

        Lines take pydantic's JSON fast path; only a line it rejects pays for the tolerant
        parser (explicit nulls, version check) and, failing that, becomes a :class:`BadLine`.
        """
        chunk = self._lines.read(max_bytes=max_bytes)
        if chunk.reset:
            self.bad_total = 0
        bad: list[BadLine] = []
        with _no_gc_pauses(len(chunk.lines)):
            events, failed = _validate_all(chunk.lines)
        lines = chunk.lines  # every line an event: the same list, not a copy
        if failed:
            # Rare path: redo the batch in order, with the tolerant parser for the failures.
            events, bad, lines = _slow_path(chunk, events, failed)
            self.bad_total += len(bad)
        return EventBatch(events, bad, chunk.reset, lines)

    def pass_on(self, *, hold: type[Event], max_bytes: int = BATCH_BYTES) -> Iterator[Passed]:
        """Everything appended since the last read, as lines to pass on, a batch of about
        ``max_bytes`` at a time until the log is caught up.

        Each line is judged as :meth:`read` judges it, but its event is dropped at once unless
        it is a ``hold`` (the ``finished`` events a reader shows last): a log of 200,000 events
        passes through in the memory of one batch, which is also what keeps it fast (no event
        outlives the cache it was made in, none is left for the collector to walk).
        """
        while True:
            before = self.offset
            chunk = self._lines.read(max_bytes=max_bytes)
            if chunk.reset:
                self.bad_total = 0
            passed = Passed(reset=chunk.reset)
            validate = _validate_json
            numbers: list[int] | None = None
            for index, line in enumerate(chunk.lines):
                try:
                    event = validate(line)
                except ValueError:  # rare: the tolerant parser decides, with the line's number
                    numbers = numbers or chunk.line_numbers()
                    judged = _tolerant(line, numbers[index])
                    if isinstance(judged, BadLine):
                        passed.bad.append(judged)
                        continue
                    event = judged
                if isinstance(event, hold):
                    passed.held.append((event, line))
                else:
                    passed.lines.append(line)
            self.bad_total += len(passed.bad)
            yield passed
            if self.offset == before:
                return

    def close(self) -> None:
        self._lines.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _validate_all(lines: list[bytes]) -> tuple[list[Event], list[int]]:
    events: list[Event] = []
    failed: list[int] = []
    validate = _validate_json
    for index, line in enumerate(lines):
        try:
            events.append(validate(line))
        except ValueError:  # ValidationError, whatever the line holds
            failed.append(index)
    return events, failed


@contextmanager
def _no_gc_pauses(count: int) -> Iterator[None]:
    """Hold the cyclic GC off while a big batch is parsed, then restore it.

    Parsing a long log creates objects that all survive, so the collector would keep
    re-walking a growing heap for nothing: it doubles the time of a cold read. Events hold no
    cycles, so pausing it frees nothing late. Small batches, the common case, are left alone.
    """
    if count < _GC_PAUSE_FROM or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def read_last_events(path: Path, count: int, *, chunk: int = 64 * 1024) -> list[Event]:
    """The last ``count`` valid events of a log, reading backwards from its end.

    What a view needs when it switches to a task: the cost follows ``count``, not the size of
    the log. Bad lines are skipped; a missing file has no events.
    """
    try:
        fd = safefs.open_file(path.parent, path.name)
    except OSError:
        return []  # missing, or not a log caesar reads (a link, a directory...)
    try:
        position = os.fstat(fd).st_size
        data = b""
        while position > 0 and data.count(b"\n") <= count:
            step = min(chunk, position)
            position -= step
            data = os.pread(fd, step, position) + data
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if position > 0:
        lines = lines[1:]  # the first piece may be the tail of an older line
    events: list[Event] = []
    for line in lines[-(count + 1) :]:
        if line.strip():
            try:
                events.append(parse(EVENT_ADAPTER, line, DocumentKind.EVENT))
            except (ValueError, CaesarError):
                continue
    return events[-count:]


def read_events(path: Path) -> tuple[list[Event], list[BadLine]]:
    """Every event of a log in one go, and its bad lines; a missing file has neither."""
    with EventTail(path) as tail:
        batch = tail.read()
    return batch.events, batch.bad


def _slow_path(
    chunk: LineChunk, fast: list[Event], failed: list[int]
) -> tuple[list[Event], list[BadLine], list[bytes]]:
    numbers = chunk.line_numbers()
    failures = set(failed)
    events: list[Event] = []
    bad: list[BadLine] = []
    lines: list[bytes] = []
    good = iter(fast)
    for index, line in enumerate(chunk.lines):
        judged = next(good) if index not in failures else _tolerant(line, numbers[index])
        if isinstance(judged, BadLine):
            bad.append(judged)
        else:
            events.append(judged)
            lines.append(line)
    return events, bad, lines


def _tolerant(line: bytes, number: int) -> Event | BadLine:
    """A line the fast path refused, read by the tolerant parser: its event, or why not."""
    try:
        return parse(EVENT_ADAPTER, line, DocumentKind.EVENT)
    except CaesarError as error:
        return BadLine(number, _shorten(error.reason))
    except ValidationError as error:
        return BadLine(number, _describe(error))
    except (ValueError, RecursionError) as error:
        return BadLine(number, _shorten(f"not JSON: {error}"))


def _describe(error: ValidationError) -> str:
    return _shorten(problem_text(error))


def _shorten(text: str) -> str:
    return clip(text, _REASON_MAX)


__all__ = [
    "BATCH_BYTES",
    "BadLine",
    "EventBatch",
    "EventTail",
    "LineChunk",
    "LineTail",
    "Passed",
    "read_events",
    "read_last_events",
]
