"""Following ``events.jsonl`` while it grows, at a cost set by the new bytes alone.

A UI polls a log that may hold hundreds of thousands of lines, many times a second, so a read
after one appended line must not touch the bytes already consumed. The tail keeps a byte
offset and re-checks only cheap evidence that those bytes are still what it read (size,
inode, a short fingerprint before the offset). When that evidence fails, the file was
truncated, replaced or rewritten, and the tail starts over and says so with ``reset``.

Two layers: :class:`LineTail` knows lines and bytes only; :class:`EventTail` turns lines into
validated events and never raises for bad content, because one broken line written by an
agent must not blind the orchestrator to the rest of the task.

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
from caesar_core.humanize import clip
from caesar_core.protocol.event import EVENT_ADAPTER, Event
from caesar_core.protocol.parse import parse, problem_text
from caesar_core.protocol.versions import DocumentKind

CHUNK = 1 << 20
_FINGERPRINT = 32
_REASON_MAX = 200
_GC_PAUSE_FROM = 5_000


@dataclass(frozen=True)
class LineChunk:
    """The complete lines that appeared since the previous read."""

    lines: list[bytes]
    """Without their ``\\n``; blank lines are left out but keep their numbers."""
    first_line: int
    """1-based number of ``lines[0]`` in the file (of the next line, when ``lines`` is empty)."""
    reset: bool = False
    """The file was truncated, replaced, rewritten or removed: discard what was derived from
    earlier reads; ``lines`` start again from the top of the file."""
    skipped: tuple[int, ...] = ()
    """Numbers of blank lines skipped in this read, so that numbering stays exact."""

    def line_numbers(self) -> list[int]:
        """The 1-based file line number of each entry of ``lines``."""
        first = self.first_line
        if not self.skipped:
            return list(range(first, first + len(self.lines)))
        blank = set(self.skipped)
        numbers: list[int] = []
        number = first
        for _ in self.lines:
            while number in blank:
                number += 1
            numbers.append(number)
            number += 1
        return numbers


class LineTail:
    """Yields each complete line of a growing file once, in order.

    A missing file reads as empty. A partial last line is held back until its ``\\n`` arrives.
    Not thread-safe; one reader per instance.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem = ""
        """Why the file cannot be read (a link, a directory...); "" when it can or is absent."""
        self._fd = -1
        self._ident: tuple[int, int] | None = None
        self._offset = 0
        """Bytes consumed from the file, including those held in ``_partial``."""
        self._partial: list[bytes] = []
        self._lines_seen = 0
        self._fingerprint = b""
        self._closed = False

    @property
    def offset(self) -> int:
        """Bytes consumed so far (complete lines plus a held-back partial line)."""
        return self._offset

    def read(self, *, max_bytes: int | None = None) -> LineChunk:
        """Everything appended since the last read, up to EOF.

        ``max_bytes`` bounds one call (rounded up to whole chunks) so that a UI catching up on
        a huge log can stay responsive; call again until it returns no lines.
        """
        if self._closed:
            raise ValueError(f"tail of {self.path} is closed")
        reset, size = self._sync()
        if self._fd < 0:
            return LineChunk([], self._lines_seen + 1, reset)
        first_line = self._lines_seen + 1
        lines: list[bytes] = []
        skipped: list[int] = []
        read_total = 0
        # Read up to the size just seen, no further: bytes appended meanwhile belong to the
        # next call, and asking for exactly what exists avoids allocating a whole chunk for a
        # one-line append.
        while self._offset < size:
            data = os.pread(self._fd, min(CHUNK, size - self._offset), self._offset)
            if not data:
                break
            self._offset += len(data)
            read_total += len(data)
            self._remember(data)
            self._split(data, lines, skipped)
            if max_bytes is not None and read_total >= max_bytes:
                break
        first_line = self._first_number(first_line, skipped) if lines else self._lines_seen + 1
        return LineChunk(lines, first_line, reset, tuple(skipped))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = -1
        self._closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------

    def _sync(self) -> tuple[bool, int]:
        """Make the open file and offset match the path.

        Returns whether earlier reads are void (a reset), and the file's current size.
        """
        try:
            # The log itself, not what a link there points to (its directory is trusted).
            st = os.lstat(self.path)
        except OSError as error:
            self.problem = "" if isinstance(error, FileNotFoundError) else str(error)
            had_data = self._offset > 0
            self._drop_file()
            return had_data, 0
        if self._fd >= 0 and (st.st_dev, st.st_ino) != self._ident:
            had_data = self._offset > 0
            self._drop_file()
            return had_data, self._open()
        if self._fd < 0:
            return False, self._open()
        if st.st_size < self._offset or not self._fingerprint_holds():
            self._restart()
            return True, st.st_size
        return False, st.st_size

    def _open(self) -> int:
        """Open the file at the path, if any; its size, from the descriptor actually opened."""
        try:
            fd = safefs.open_file(self.path.parent, self.path.name)
        except OSError as error:
            self.problem = "" if isinstance(error, FileNotFoundError) else str(error)
            return 0
        self.problem = ""
        st = os.fstat(fd)
        self._fd = fd
        self._ident = (st.st_dev, st.st_ino)
        self._restart()
        return st.st_size

    def _drop_file(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = -1
        self._ident = None
        self._restart()

    def _restart(self) -> None:
        self._offset = 0
        self._partial = []
        self._lines_seen = 0
        self._fingerprint = b""

    def _fingerprint_holds(self) -> bool:
        size = len(self._fingerprint)
        if not size:
            return True
        return os.pread(self._fd, size, self._offset - size) == self._fingerprint

    def _remember(self, data: bytes) -> None:
        if len(data) >= _FINGERPRINT:
            self._fingerprint = data[-_FINGERPRINT:]
        else:
            self._fingerprint = (self._fingerprint + data)[-_FINGERPRINT:]

    def _split(self, data: bytes, lines: list[bytes], skipped: list[int]) -> None:
        cut = data.rfind(b"\n")
        if cut < 0:
            self._partial.append(data)
            return
        if self._partial:
            self._partial.append(data[:cut])
            complete = b"".join(self._partial)
        else:
            complete = data[:cut]
        rest = data[cut + 1 :]
        self._partial = [rest] if rest else []
        number = self._lines_seen
        for line in complete.split(b"\n"):
            number += 1
            if not line or line.isspace():
                skipped.append(number)
            else:
                lines.append(line)
        self._lines_seen = number

    @staticmethod
    def _first_number(first: int, skipped: list[int]) -> int:
        """Skip the leading blank lines of this read: ``first_line`` names a real line."""
        number = first
        for blank in skipped:
            if blank != number:
                break
            number += 1
        return number


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
    validate = EVENT_ADAPTER.validate_json
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
        if index not in failures:
            events.append(next(good))
            lines.append(line)
            continue
        try:
            events.append(parse(EVENT_ADAPTER, line, DocumentKind.EVENT))
            lines.append(line)
        except CaesarError as error:
            bad.append(BadLine(numbers[index], _shorten(error.reason)))
        except ValidationError as error:
            bad.append(BadLine(numbers[index], _describe(error)))
        except (ValueError, RecursionError) as error:
            bad.append(BadLine(numbers[index], _shorten(f"not JSON: {error}")))
    return events, bad, lines


def _describe(error: ValidationError) -> str:
    return _shorten(problem_text(error))


def _shorten(text: str) -> str:
    return clip(text, _REASON_MAX)
