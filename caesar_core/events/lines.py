"""Following a growing file line by line, at a cost set by the new bytes alone.

A UI polls a log that may hold hundreds of thousands of lines, many times a second, so a read
after one appended line must not touch the bytes already consumed. The tail keeps a byte
offset and re-checks only cheap evidence that those bytes are still what it read (size,
inode, a short fingerprint before the offset). When that evidence fails, the file was
truncated, replaced or rewritten, and the tail starts over and says so with ``reset``.

The file lives in a task directory, which the agent can write: it is opened through
:mod:`caesar_core.safefs`. A link, a directory, a FIFO or a hard link in its place reads as no
file at all, and ``problem`` says why. :mod:`caesar_core.events.tail` turns the lines into
events.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from caesar_core import safefs

CHUNK = 1 << 20
_FINGERPRINT = 32


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
        pieces = data.split(b"\n")  # the one copy of the bytes read: no slice, no re-join
        rest = pieces.pop()  # what follows the last newline: a partial line, or nothing
        if not pieces:
            self._partial.append(rest)
            return
        if self._partial:
            self._partial.append(pieces[0])
            pieces[0] = b"".join(self._partial)
        self._partial = [rest] if rest else []
        number = self._lines_seen
        for line in pieces:
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
