"""Where each line of a file's diff is drawn, unified or side by side, with the review comments
laid in among the lines as rows of their own, under the line they are on.

A comment is on a new-side line number; :class:`DiffRowMap` finds the line of the section
showing it (not shown: the file's header line above the first hunk) and keeps, for each view,
the rows in order: a row is a line (unified) or a side-by-side row, or a note under one. A file
without comments has no map at all (rows are lines, or side-by-side rows), so the common case
costs nothing; the side-by-side map is made only when that view is drawn.

No Textual here, like :mod:`caesar_tui.widgets.diff_layout`.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

from caesar_tui.widgets.diff_layout import FULL, FileLayout

__all__ = ["DiffRowMap", "NoteRows"]


class NoteRows:
    """Rows made of ``count`` base rows (lines, or side-by-side rows), each followed by the
    notes under it: the base row of each row (a note's: the one it is under), the row of each
    base row, and the text of each note's row."""

    def __init__(self, count: int, notes: Mapping[int, Sequence[str]]) -> None:
        self._base = array("q")
        self._row = array("q")
        self._note: dict[int, str] = {}
        for base in range(count):
            self._row.append(len(self._base))
            self._base.append(base)
            for note in notes.get(base, ()):
                self._note[len(self._base)] = note
                self._base.append(base)

    def __len__(self) -> int:
        return len(self._base)

    def base(self, row: int) -> int:
        """The base row of ``row`` (past the end: the last one)."""
        return self._base[min(row, len(self._base) - 1)] if self._base else row

    def row(self, base: int) -> int:
        return self._row[base]

    def note(self, row: int) -> str | None:
        return self._note.get(row)


class DiffRowMap:
    """The rows of one file's diff in either view, its notes among them."""

    def __init__(self, layout: FileLayout, notes: Sequence[tuple[int, str]] = ()) -> None:
        """Args:
        layout: The file's hunks in its section of the patch.
        notes: ``(new-side line number, text)`` of each row to show under a line (made safe).
        """
        self._layout = layout
        self._notes: dict[int, list[str]] = {}
        if notes:
            where = _new_lines(layout)
            above = max(layout.first_hunk - 1, 0)
            for number, note in notes:
                self._notes.setdefault(where.get(number, above), []).append(note)
        self._unified = NoteRows(layout.line_count, self._notes) if self._notes else None
        self._side: NoteRows | None = None

    def _side_notes(self) -> NoteRows | None:
        """The side-by-side rows with notes; made the first time that view asks."""
        if self._side is None and self._notes:
            side = self._layout.side()
            by_row: dict[int, list[str]] = {}
            for line, notes in self._notes.items():
                by_row.setdefault(side.row_of[line], []).extend(notes)
            self._side = NoteRows(len(side), by_row)
        return self._side

    def count(self, *, side: bool) -> int:
        """How many rows the view has."""
        notes = self._side_notes() if side else self._unified
        if notes is not None:
            return len(notes)
        return len(self._layout.side()) if side else self._layout.line_count

    def note(self, row: int, *, side: bool) -> str | None:
        """The text of ``row`` when it is a note's row."""
        notes = self._side_notes() if side else self._unified
        return None if notes is None else notes.note(row)

    def side_row(self, row: int) -> int:
        """The side-by-side row that view's ``row`` shows (a note's: the one it is under)."""
        notes = self._side_notes()
        return row if notes is None else notes.base(row)

    def row_of(self, line: int, *, side: bool) -> int:
        """The row showing ``line``."""
        if side:
            base = self._layout.side().row_of[line]
            notes = self._side_notes()
            return base if notes is None else notes.row(base)
        return line if self._unified is None else self._unified.row(line)

    def line_of(self, row: int, *, side: bool) -> int:
        """The line ``row`` shows (a note's row: the line it is under; side by side: the
        row's old line, else its new one)."""
        if not side:
            return row if self._unified is None else self._unified.base(row)
        rows = self._layout.side()
        if not len(rows):
            return 0
        base = min(self.side_row(row), len(rows) - 1)
        left, right = rows.left[base], rows.right[base]
        return left if left >= 0 or right == FULL else right


def _new_lines(layout: FileLayout) -> dict[int, int]:
    """The line of the section showing each new-side line number its hunks show."""
    where: dict[int, int] = {}
    for index in range(len(layout.hunks)):
        lines = layout.lines(index)
        for body, number in enumerate(lines.new):
            if number:
                where[number] = lines.header + 1 + body
    return where
