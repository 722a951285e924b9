"""Where one file's hunks are in its patch section, line by line, for the Diff tab to draw.

Built when a file is shown, from the patch's own line offsets: the ``@@`` lines are found with
``str.find`` (cheap even for a 50,000-line section) and matched in order to the file's
``FileChange.hunks``. What a hunk's lines are (which are changed, their numbers on each side,
which removed line an added line replaces, the rows of the side-by-side view) is worked out
only when that hunk is first drawn, then kept: the work follows what the person looks at.

No Textual here: lines are plain indices into the section (0 is its ``diff --git`` line).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from caesar_core.review.hunks import Hunk

__all__ = ["BLANK", "FULL", "FileLayout", "HunkLines", "SideRows"]

BLANK = -1
"""A side of a side-by-side row with no line (an added line has no old side)."""
FULL = -2
"""A side-by-side row drawn across both sides (file header lines, ``@@`` lines)."""


@dataclass(frozen=True, slots=True)
class HunkLines:
    """One hunk's lines in the section.

    ``rows`` pair its body for the side-by-side view: ``left[r]``/``right[r]`` are the lines of
    row ``r`` (a context line on both sides, a removed line beside the added line that
    replaces it, ``BLANK`` where a side has none); ``row_of[i]`` is the row of body line ``i``
    (counted from the line after ``@@``). ``old``/``new`` are each body line's number in the
    old and new file (0: not on that side).
    """

    header: int
    """The line of its ``@@`` (line 0 for a hunk that is the whole file: binary, rename)."""
    end: int
    """One past its last line."""
    changed: array[int]
    """The lines of its ``-``/``+`` lines, in order: changed line ``n`` is ``changed[n - 1]``."""
    left: array[int]
    right: array[int]
    row_of: array[int]
    old: array[int]
    new: array[int]

    def ordinal(self, line: int) -> int:
        """``line``'s number among the hunk's changed lines (1-based), 0 if not changed."""
        at = bisect_left(self.changed, line)
        return at + 1 if at < len(self.changed) and self.changed[at] == line else 0

    def partner(self, line: int) -> int | None:
        """The line ``line`` replaces or is replaced by (its side-by-side neighbour)."""
        body = line - self.header - 1
        if body < 0 or body >= len(self.row_of):
            return None
        row = self.row_of[body]
        left, right = self.left[row], self.right[row]
        if left == line and right >= 0 and right != line:
            return right
        if right == line and left >= 0 and left != line:
            return left
        return None


@dataclass(frozen=True, slots=True)
class SideRows:
    """The side-by-side rows of a whole file: ``left[r]``/``right[r]`` lines (``FULL``: a row
    across both sides showing line ``left[r]``), and each line's row."""

    left: array[int]
    right: array[int]
    row_of: array[int]

    def __len__(self) -> int:
        return len(self.left)


class FileLayout:
    """The hunks of one file's section of a patch."""

    def __init__(
        self,
        text: str,
        offsets: Sequence[int],
        hunks: Sequence[Hunk],
    ) -> None:
        """Args:
        text: The whole patch (not copied).
        offsets: Start of each line of the section in ``text``, then one past its end.
        hunks: The file's hunks, in the patch's order (``FileChange.hunks``).
        """
        self._text = text
        self._offsets = offsets
        self._count = len(offsets) - 1
        start, end = offsets[0], offsets[-1]
        headers = array("q")
        at = text.find("\n@@", start, end)
        while at >= 0:
            headers.append(bisect_right(offsets, at + 1) - 1)
            at = text.find("\n@@", at + 3, end)
        if text.startswith("@@", start):
            headers.insert(0, 0)
        self.first_hunk = headers[0] if headers else self._count
        """The first ``@@`` line: the lines before it are the file's header."""
        if len(headers) == len(hunks):
            self.hunks: tuple[Hunk, ...] = tuple(hunks)
            self.headers = headers
        elif not headers and len(hunks) == 1:
            self.hunks, self.headers = tuple(hunks), array("q", [0])
        else:  # no hunks (a diff read without them), or they disagree with the text: by file
            self.hunks, self.headers = (), array("q")
        self._lines: dict[int, HunkLines] = {}
        self._side: SideRows | None = None

    @property
    def line_count(self) -> int:
        return self._count

    def marker(self, line: int) -> str:
        """The first character of a line (``+``, ``-``, `` ``, ``\\``, ``@``, ``d``...)."""
        start = self._offsets[line]
        return self._text[start] if start < self._offsets[line + 1] - 1 else ""

    def hunk_at(self, line: int) -> int | None:
        """The index of the hunk ``line`` belongs to (its ``@@`` line included)."""
        if not self.hunks:
            return None
        if len(self.hunks) == 1 and self.headers[0] == 0:
            return 0
        at = bisect_right(self.headers, line) - 1
        return at if at >= 0 else None

    def end_of(self, index: int) -> int:
        return self.headers[index + 1] if index + 1 < len(self.headers) else self._count

    def lines(self, index: int) -> HunkLines:
        """Hunk ``index``'s lines, worked out the first time they are asked for."""
        found = self._lines.get(index)
        if found is None:
            found = self._lines[index] = self._examine(index)
        return found

    def _examine(self, index: int) -> HunkLines:
        hunk = self.hunks[index]
        header = self.headers[index]
        end = self.end_of(index)
        whole_file = header == 0 and not self._text.startswith("@@", self._offsets[0])
        first = end if whole_file else header + 1
        changed, left, right, row_of = array("q"), array("q"), array("q"), array("q")
        old, new = array("q"), array("q")
        old_no, new_no = hunk.old_start, hunk.new_start
        minus: list[int] = []
        plus: list[int] = []

        def flush() -> None:
            for n in range(max(len(minus), len(plus))):
                row = len(left)
                left.append(minus[n] if n < len(minus) else BLANK)
                right.append(plus[n] if n < len(plus) else BLANK)
                if n < len(minus):
                    row_of[minus[n] - first] = row
                if n < len(plus):
                    row_of[plus[n] - first] = row
            minus.clear()
            plus.clear()

        markers = [self.marker(line) for line in range(first, end)]
        for line, marker in enumerate(markers, first):
            row_of.append(BLANK)
            if marker == "-":
                if plus:
                    flush()
                changed.append(line)
                minus.append(line)
                old.append(old_no)
                new.append(0)
                old_no += 1
            elif marker == "+":
                changed.append(line)
                plus.append(line)
                old.append(0)
                new.append(new_no)
                new_no += 1
            else:
                flush()
                row_of[line - first] = len(left)
                left.append(line)
                right.append(line if marker == " " else FULL)
                old.append(old_no if marker == " " else 0)
                new.append(new_no if marker == " " else 0)
                if marker == " ":
                    old_no += 1
                    new_no += 1
        flush()
        return HunkLines(header, end, changed, left, right, row_of, old, new)

    def side(self) -> SideRows:
        """The whole file's side-by-side rows (every hunk examined, once)."""
        if self._side is not None:
            return self._side
        left, right = array("q"), array("q")
        row_of = array("q", [0]) * self._count
        starts = {self.headers[k]: k for k in range(len(self.hunks))}
        line = 0
        while line < self._count:
            k = starts.get(line)
            if k is None or (line == 0 and self.first_hunk != 0 and len(self.hunks) == 1):
                row_of[line] = len(left)
                left.append(line)
                right.append(FULL)
                line += 1
                continue
            lines = self.lines(k)
            row_of[line] = len(left)
            left.append(line)
            right.append(FULL)
            base = len(left)
            for n, row in enumerate(lines.row_of):
                row_of[lines.header + 1 + n] = base + row
            left.extend(lines.left)
            right.extend(lines.right)
            line = lines.end
        self._side = SideRows(left, right, row_of)
        return self._side
