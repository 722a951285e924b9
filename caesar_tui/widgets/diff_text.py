"""One file's diff for review, drawn a line at a time so a 50,000-line patch scrolls freely.

The widget never copies the patch: it keeps the whole ``TreeDiff.patch`` string, the
character range of the shown file (its ``FileChange.span``), an array of line-start offsets
into it, and a :class:`~caesar_tui.widgets.diff_layout.FileLayout` that knows where each of
the file's hunks is; rows are drawn on demand (:mod:`caesar_tui.widgets.diff_rows`). This
module is what the person does with it: the hunk cursor, choosing a hunk or lines of it,
scrolling, and the side-by-side view.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Click
from textual.message import Message

from caesar_core.review.hunks import Hunk
from caesar_tui.keys import bind
from caesar_tui.review import Review
from caesar_tui.widgets.diff_highlight import lexer_for
from caesar_tui.widgets.diff_layout import FileLayout
from caesar_tui.widgets.diff_notes import DiffRowMap
from caesar_tui.widgets.diff_rows import (
    BLOCK_LINES,
    GUTTER,
    SIDE_BY_SIDE_MIN,
    ChosenLines,
    DiffRows,
)

__all__ = ["BLOCK_LINES", "GUTTER", "SIDE_BY_SIDE_MIN", "DiffText"]

_NEWLINE = re.compile("\n")


class DiffText(DiffRows, can_focus=True):
    """The diff of one file, syntax highlighted, its hunks reviewable, rendered lazily.

    Call ``show_patch`` with the whole patch string, the file's range in it and its hunks,
    or ``show_message`` for a file that has no text to show (binary). The hunk under the
    cursor is marked in the gutter; ``space`` selects or deselects it, and the lines of a
    hunk are chosen with :meth:`start_lines` and the arrows. What is selected is kept by the
    :class:`~caesar_tui.review.Review` the view is given; every change posts ``Changed``.
    Text is selected with the mouse and copied (ctrl+c) as it reads, gutter aside.
    """

    DEFAULT_CSS = """
    DiffText {
        width: 1fr;
        height: 1fr;
        background: $surface;
        border: tall $border-blurred;
        border-title-color: $foreground;
        border-subtitle-color: $text-muted;
        &:focus {
            border: tall $border;
        }
        & > .diff-text--added {
            background: $success 15%;
        }
        & > .diff-text--removed {
            background: $error 15%;
        }
        & > .diff-text--added-word {
            background: $success 45%;
        }
        & > .diff-text--removed-word {
            background: $error 45%;
        }
        & > .diff-text--hunk {
            color: $text-muted;
            background: $primary 8%;
        }
        & > .diff-text--meta {
            color: $text-muted;
            text-style: bold;
        }
        & > .diff-text--message {
            color: $text-muted;
            text-style: italic;
        }
        & > .diff-text--number {
            color: $text-muted;
        }
        & > .diff-text--comment {
            color: $text-warning;
            background: $warning 10%;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-text--context",
        "diff-text--added",
        "diff-text--removed",
        "diff-text--added-word",
        "diff-text--removed-word",
        "diff-text--hunk",
        "diff-text--meta",
        "diff-text--message",
        "diff-text--number",
        "diff-text--comment",
    }
    """
    | Class | Description |
    | :- | :- |
    | `diff-text--context` | Unchanged lines. |
    | `diff-text--added` | Added lines (the tint fills the row). |
    | `diff-text--removed` | Removed lines. |
    | `diff-text--added-word` | The words an added line changed, over its tint. |
    | `diff-text--removed-word` | The words a removed line changed. |
    | `diff-text--hunk` | `@@ ... @@` hunk headers. |
    | `diff-text--meta` | File header lines (`diff --git`, `index`, `---`, `+++`, renames). |
    | `diff-text--message` | The message shown instead of text (binary file, no patch). |
    | `diff-text--number` | Line numbers of the side-by-side view. |
    | `diff-text--comment` | A review comment's row, under its line (or its new side). |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "down", "Down", show=False),
        Binding("k,up", "up", "Up", show=False),
        bind(
            "toggle_hunk",
            "toggle_hunk",
            "Hunk",
            help="select or deselect the hunk under the cursor",
        ),
        Binding("escape", "stop_lines", "Done", show=False, tooltip="stop choosing lines"),
    ]

    @dataclass
    class Changed(Message):
        """What applying would take of the shown file changed (a hunk or lines chosen)."""

        diff_text: DiffText
        path: str

        @property
        def control(self) -> DiffText:
            return self.diff_text

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._path = ""
        self._following = True
        """Whether scrolling moves the cursor to the hunk in view (off while the view
        scrolls to the cursor itself)."""

    # ----------------------------------------------------------------------- content

    @property
    def path(self) -> str:
        """The path of the file shown, or "" when none is."""
        return self._path

    @property
    def message(self) -> str | None:
        """The message shown instead of text, if any."""
        return self._message

    @property
    def cursor_hunk(self) -> Hunk | None:
        """The hunk under the cursor."""
        hunks = self._layout.hunks
        return hunks[self._cursor] if hunks else None

    @property
    def choosing_lines(self) -> bool:
        return self._lines is not None

    @property
    def side_by_side_wanted(self) -> bool:
        """Whether the side-by-side view was asked for (see ``side_by_side``)."""
        return self._side_wanted

    def show_patch(
        self,
        path: str,
        patch: str,
        start: int = 0,
        end: int | None = None,
        *,
        hunks: Sequence[Hunk] = (),
        review: Review | None = None,
        title: str | None = None,
        keep_scroll: bool = False,
        notes: Sequence[tuple[int, str]] = (),
    ) -> None:
        """Show ``patch[start:end]``, the unified diff of ``path``.

        Args:
            path: The file's path; its extension chooses the syntax highlighter.
            patch: A patch string, usually a whole ``TreeDiff.patch``; it is not copied.
            start: Offset of the file's first line in ``patch``.
            end: Offset just past the file's last line (default: the end of ``patch``).
            hunks: The file's hunks (``FileChange.hunks``), in the patch's order.
            review: Where the choices of hunks and lines are kept (shared with the file list).
            title: Shown in the border (default: ``path``).
            keep_scroll: Keep the scroll position and the cursor, for a refreshed diff of
                the same file.
            notes: Rows to show under lines, each under the line of that number on the new
                side (a review comment, made safe); not in the diff: above the first hunk.
        """
        end = len(patch) if end is None else end
        offsets = array("q", [start])
        offsets.extend(match.end() for match in _NEWLINE.finditer(patch, start, end))
        if offsets[-1] != end:
            offsets.append(end + 1)  # an unterminated last line: pretend it had its newline
        self._text = patch
        self._offsets = offsets
        self._layout = FileLayout(patch, offsets, hunks)
        self._path = path
        self._lexer = lexer_for(path)
        self._message = None
        self._longest = max((b - a for a, b in pairwise(offsets)), default=1)
        last = max(
            (max(h.old_start + h.old_lines, h.new_start + h.new_lines) for h in hunks), default=0
        )
        self._digits = max(3, len(str(last)))
        self._rows = DiffRowMap(self._layout, notes)
        self._reset(title if title is not None else path, review, keep_scroll=keep_scroll)

    def show_message(
        self,
        message: str,
        *,
        title: str | None = None,
        hunks: Sequence[Hunk] = (),
        review: Review | None = None,
    ) -> None:
        """Show ``message`` instead of a patch (a binary file, a file without text); a file
        that is one hunk (``hunks``) can still be selected as a whole."""
        self._text = ""
        self._offsets = array("q", [0])
        self._layout = FileLayout("", self._offsets, hunks[:1])
        self._path = ""
        self._lexer = None
        self._message = message
        self._longest = len(message) + 1
        self._rows = DiffRowMap(self._layout)
        self._reset(title, review, keep_scroll=False)

    def clear(self) -> None:
        """Show nothing."""
        self.show_message("")

    def comment_range(self) -> tuple[int, int] | None:
        """The new-side lines a comment would be on: the lines chosen (``v``), else the
        added lines of the hunk under the cursor (else its new lines); None: none there."""
        hunk = self.cursor_hunk
        if hunk is None or hunk.whole or self._message is not None:
            return None
        lines = self._layout.lines(self._cursor)
        if self._lines is not None:
            low, high = sorted((self._lines.anchor, self._lines.cursor))
            first, last = lines.changed[low - 1], lines.changed[high - 1]
        elif lines.changed:
            first, last = lines.changed[0], lines.changed[-1]
        else:
            first, last = lines.header + 1, lines.end - 1
        numbers = [
            lines.new[line - lines.header - 1]
            for line in range(first, last + 1)
            if 0 <= line - lines.header - 1 < len(lines.new)
        ]
        numbers = [number for number in numbers if number]
        if not numbers:  # only removed lines: the new line they were removed above
            body = last - lines.header
            after = [n for n in lines.new[body:] if n] or [n for n in lines.new if n]
            if not after:
                return None
            numbers = [after[0]]
        return min(numbers), max(numbers)

    def _reset(self, title: str | None, review: Review | None, *, keep_scroll: bool) -> None:
        self._tokens.clear()
        self._strips.clear()
        self._review = review or Review()
        self._lines = None
        self.border_title = Content(title) if title else None
        if not keep_scroll or self._cursor >= len(self._layout.hunks):
            self._cursor = 0
        self._resize_virtual()
        if not keep_scroll:
            self._scroll_quietly(0)
        self._update_subtitle()
        self.refresh()

    def _update_subtitle(self) -> None:
        if self._message is not None:
            self.border_subtitle = None
            return
        parts = []
        hunk = self.cursor_hunk
        if self._lines is not None and hunk is not None:
            low, high = sorted((self._lines.anchor, self._lines.cursor))
            parts.append(f"lines {low}-{high} of {hunk.changed}")
        elif hunk is not None:
            parts.append(f"hunk {self._cursor + 1}/{len(self._layout.hunks)}")
        parts.append(f"{self.line_count:,} lines")
        self.border_subtitle = " · ".join(parts)

    def on_resize(self) -> None:
        self._resize_virtual()
        self._strips.clear()

    # ----------------------------------------------------------------------- review

    def refresh_marks(self) -> None:
        """Draw the checkboxes and gutters again (the selection changed elsewhere)."""
        self._update_subtitle()
        self.refresh()

    def go_to_hunk(self, index: int) -> None:
        """Put the cursor on hunk ``index`` (negative: from the end) and scroll to it."""
        count = len(self._layout.hunks)
        if not count:
            return
        self._lines = None
        self._cursor = index % count
        self._scroll_to_line(self._layout.headers[self._cursor], top=True)
        self._update_subtitle()
        self.refresh()

    def move_hunk(self, delta: int) -> bool:
        """The next (``delta`` 1) or previous (-1) hunk; False past either end."""
        target = self._cursor + delta
        if not 0 <= target < len(self._layout.hunks):
            return False
        self.go_to_hunk(target)
        return True

    def toggle_hunk(self) -> bool:
        """Select or deselect the hunk under the cursor; False: nothing of it is left."""
        hunk = self.cursor_hunk
        if hunk is None:
            return False
        self._lines = None
        done = self._review.toggle(hunk)
        if done:
            self._changed()
        return done

    def start_lines(self) -> bool:
        """Choose lines of the hunk under the cursor, from its first line not applied;
        False: it has no lines left to choose (applied, binary, a rename)."""
        hunk = self.cursor_hunk
        available = self._review.available(hunk) if hunk is not None and not hunk.whole else None
        if not available:
            return False
        first = min(available)
        self._lines = ChosenLines(first, first)
        self._choose()
        return True

    def stop_lines(self) -> None:
        if self._lines is not None:
            self._lines = None
            self._update_subtitle()
            self.refresh()

    def _move_line(self, delta: int) -> None:
        hunk = self.cursor_hunk
        if self._lines is None or hunk is None:
            return
        self._lines.cursor = max(1, min(hunk.changed, self._lines.cursor + delta))
        self._choose()

    def _choose(self) -> None:
        hunk = self.cursor_hunk
        assert hunk is not None and self._lines is not None
        low, high = sorted((self._lines.anchor, self._lines.cursor))
        self._review.choose(hunk, range(low, high + 1))
        lines = self._layout.lines(self._cursor)
        self._scroll_to_line(lines.changed[self._lines.cursor - 1], top=False)
        self._changed()

    def _changed(self) -> None:
        self._update_subtitle()
        self.refresh()
        self.post_message(self.Changed(self, self._path))

    # ----------------------------------------------------------------------- keys

    def on_click(self, event: Click) -> None:
        """A click puts the cursor on the hunk clicked (the text is still selectable)."""
        offset = event.get_content_offset(self)
        if offset is None or self._message is not None or not self._layout.hunks:
            return
        row = int(self.scroll_y) + offset.y
        side = self.side_by_side
        if row >= self._rows.count(side=side):
            return
        line = self._rows.line_of(row, side=side)
        hunk = self._layout.hunk_at(line) if 0 <= line < self.line_count else None
        if hunk is not None and hunk != self._cursor:
            self._lines = None
            self._cursor = hunk
            self._update_subtitle()
            self.refresh()

    def action_down(self) -> None:
        if self._lines is not None:
            self._move_line(1)
        else:
            self.scroll_down(animate=False)

    def action_up(self) -> None:
        if self._lines is not None:
            self._move_line(-1)
        else:
            self.scroll_up(animate=False)

    def action_toggle_hunk(self) -> None:
        if not self.toggle_hunk() and self.cursor_hunk is not None:
            self.notify("this hunk is applied already: nothing of it is left to select")

    def action_stop_lines(self) -> None:
        self.stop_lines()

    def set_side_by_side(self, wanted: bool) -> None:
        """Ask for the side-by-side view (shown while the text is wide enough)."""
        line = self._top_line()
        self._side_wanted = wanted
        self._strips.clear()
        self._resize_virtual()
        self._scroll_to_line(line, top=True, exact=True)
        self.refresh()

    # ----------------------------------------------------------------------- scrolling

    def _row_of(self, line: int) -> int:
        return self._rows.row_of(line, side=self.side_by_side)

    def _top_line(self) -> int:
        """The line at the top of the view (a comment's row: the line it is under)."""
        return self._rows.line_of(int(self.scroll_y), side=self.side_by_side)

    def _scroll_quietly(self, row: int) -> None:
        self._following = False
        try:
            self.scroll_to(0, row, animate=False, immediate=True)
        finally:
            self._following = True

    def _scroll_to_line(self, line: int, *, top: bool, exact: bool = False) -> None:
        if self._message is not None or line >= max(self.line_count, 1):
            return
        row = self._row_of(line)
        height = max(self.scrollable_content_region.height, 1)
        if exact:
            self._scroll_quietly(row)
        elif top and not self.scroll_y <= row < self.scroll_y + height - 2:
            self._scroll_quietly(max(0, row - 1))
        elif not top and not self.scroll_y <= row < self.scroll_y + height:
            self._scroll_quietly(max(0, row - height // 2))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._following or self._lines is not None or not self._layout.hunks:
            return
        height = self.scrollable_content_region.height
        top, bottom = int(new_value), int(new_value) + height
        current = self._layout.lines(self._cursor) if self._layout.hunks else None
        if current is None:
            return
        if self._row_of(current.header) < bottom and self._row_of(current.end - 1) >= top:
            return  # the cursor's hunk is still in view
        # The first hunk whose header is in view; else (one hunk fills the view) the one at
        # the top.
        line = self._top_line()
        found = self._layout.hunk_at(min(line, self.line_count - 1))
        found = 0 if found is None else found
        following = found + 1
        if (
            self._layout.headers[found] < line
            and following < len(self._layout.hunks)
            and self._row_of(self._layout.headers[following]) < bottom
        ):
            found = following
        self._cursor = found
        self._update_subtitle()
