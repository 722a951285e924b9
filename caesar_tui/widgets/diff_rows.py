"""How a file's diff is drawn, row by row, for :class:`~caesar_tui.widgets.diff_text.DiffText`.

:class:`DiffRows` holds what is shown (the whole patch, the file's line offsets in it, its
:class:`~caesar_tui.widgets.diff_layout.FileLayout`, the review and the cursor) and draws
only the rows Textual asks for. Each line's code is highlighted as part of a small block of
neighbouring lines and kept in bounded LRU caches; the two gutter cells (the cursor, whether
applying takes the line) and a hunk's checkbox are drawn fresh, so moving the cursor or
toggling a hunk costs a row, not a file. Side by side, a removed line sits beside the added
line that replaces it; either way the words that differ between the two are marked.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as TextualStyle

from caesar_core.review.hunks import Hunk
from caesar_tui.marks import BOX, CURSOR, LINE, LINE_CURSOR, Mark
from caesar_tui.review import Review
from caesar_tui.widgets.diff_highlight import (
    DARK_THEME,
    LIGHT_THEME,
    Tokens,
    clean,
    highlight_lines,
    overlay,
)
from caesar_tui.widgets.diff_layout import BLANK, FULL, FileLayout
from caesar_tui.widgets.diff_notes import DiffRowMap
from caesar_tui.worddiff import changed_spans

__all__ = ["BLOCK_LINES", "GUTTER", "SIDE_BY_SIDE_MIN", "ChosenLines", "DiffRows"]

BLOCK_LINES = 64
"""Lines highlighted together. The lexer restarts at every block, so a block must be long
enough for most multi-line constructs and short enough to lex in about a millisecond."""

GUTTER = 2
"""Cells left of the code: the cursor, then the line's selection mark."""

SIDE_BY_SIDE_MIN = 80
"""The narrowest the text may be to show side by side; narrower, it shows unified."""

_CODE_MARKERS = {"+": "diff-text--added", "-": "diff-text--removed", " ": "diff-text--context"}
_WORD = {"+": "diff-text--added-word", "-": "diff-text--removed-word"}


@dataclass
class ChosenLines:
    """Lines being chosen in the hunk under the cursor (``v``): the changed line where it
    started and the one under the cursor, 1-based among the hunk's -/+ lines."""

    anchor: int
    cursor: int


class DiffRows(ScrollView):
    """The rows of one file's diff: state, caches and drawing (the keys are the subclass's).

    The component classes it draws with (``diff-text--added``...) are ``DiffText``'s.
    """

    STRIP_CACHE_SIZE = 1024
    TOKEN_CACHE_BLOCKS = 32

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._text = ""
        """The whole patch; never sliced as a whole, only line by line."""
        self._offsets: array[int] = array("q", [0])
        """Start offset of each line in ``_text``, then one past the last line's end."""
        self._layout = FileLayout("", self._offsets, ())
        self._review = Review()
        self._lexer: Any = None
        self._message: str | None = None
        self._longest = 0
        self._digits = 3
        """Width of the side-by-side view's line numbers."""
        self._cursor = 0
        """The index of the hunk under the cursor."""
        self._lines: ChosenLines | None = None
        self._side_wanted = False
        self._rows = DiffRowMap(self._layout)
        """Where each line is drawn in either view, with the review comments' rows."""
        self._tokens: LRUCache[int, list[Tokens]] = LRUCache(self.TOKEN_CACHE_BLOCKS)
        """Highlighted blocks by block number: independent of the widget's styles."""
        self._strips: LRUCache[int, tuple[Strip, Style]] = LRUCache(self.STRIP_CACHE_SIZE)
        """Styled, uncropped code of each line and the style that pads it, by line number."""
        self._styles: dict[str, Style] = {}
        self._theme_name = ""
        self._dark_or_light: str | None = None
        self.highlighted_lines = 0
        """How many lines went through the highlighter since the widget was made.

        Tests read it to prove the work is bounded by what was looked at, not by the diff's
        size."""

    @property
    def line_count(self) -> int:
        """Lines of the shown file's patch (0 while a message is shown)."""
        return 0 if self._message is not None else len(self._offsets) - 1

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        """The shown file's hunks, as laid out in its text."""
        return self._layout.hunks

    @property
    def side_by_side(self) -> bool:
        """Whether the text is drawn side by side now (asked for, and wide enough)."""
        return (
            self._side_wanted
            and self._message is None
            and self.scrollable_content_region.width >= SIDE_BY_SIDE_MIN
        )

    def line_text(self, index: int) -> str:
        """The raw text of line ``index`` of the shown patch, without its newline."""
        return self._text[self._offsets[index] : self._offsets[index + 1] - 1]

    def _resize_virtual(self) -> None:
        if self._message is not None:
            self.virtual_size = Size(self._longest + GUTTER + 4, 1)
        elif self.side_by_side:
            width = self.scrollable_content_region.width
            self.virtual_size = Size(width, self._rows.count(side=True))
        else:
            rows = self._rows.count(side=False)
            self.virtual_size = Size(self._longest + GUTTER + 4, rows)

    def notify_style_update(self) -> None:
        """Theme or pseudo-class changed: restyle the cached lines.

        Highlighted tokens are kept; ``_tokens_of`` drops them when the app switches
        between a dark and a light theme, since token colours come from a syntax theme.
        """
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()
        self._dark_or_light = None

    def _style(self, component: str) -> Style:
        style = self._styles.get(component)
        if style is None:
            style = self.get_visual_style(component).rich_style
            self._styles[component] = style
        return style

    def _base(self) -> Style:
        """The widget's own style (its background), kept: Textual computes it from every
        ancestor on each call, and each row asks three times."""
        style = self._styles.get("")
        if style is None:
            style = self._styles[""] = self.rich_style
        return style

    def _mark(self, mark: Mark, base: Style) -> Segment:
        key = f"mark:{mark.style}"
        style = self._styles.get(key)
        if style is None:
            style = TextualStyle.parse(mark.style).rich_style if mark.style else Style()
            self._styles[key] = style
        return Segment(mark.glyph, base + style)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        row = scroll_y + y
        blank = Strip.blank(width, self._base())
        if self._message is not None:
            if row != 0:
                return blank
            style = self._style("diff-text--message")
            segments = self._box(0, self._base()) if self._layout.hunks else []
            strip = Strip([*segments, Segment(clean(self._message), style)])
            return strip.crop_extend(scroll_x, scroll_x + width, self._base())
        side_by_side = self.side_by_side
        if row >= self._rows.count(side=side_by_side):
            return blank
        note = self._rows.note(row, side=side_by_side)
        if side_by_side:
            side = self._layout.side()
            base = self._rows.side_row(row)
            left, right = side.left[base], side.right[base]
            if note is not None:
                return self._note_row(note, 0, width, beside=right != FULL)
            if right != FULL:
                return self._side_row(left, right, width)
            return self._unified_row(left, 0, width)
        if note is not None:
            return self._note_row(note, scroll_x, width)
        return self._unified_row(self._rows.line_of(row, side=False), scroll_x, width)

    def _note_row(self, note: str, scroll_x: int, width: int, *, beside: bool = False) -> Strip:
        """A review comment's row, under its line: across the text, or (``beside``, side by
        side) under the new side's code, cut short with an ellipsis."""
        base, style = self._base(), self._style("diff-text--comment")
        if not beside:
            strip = Strip([Segment(" " * GUTTER, base), Segment(note, style)])
            return strip.crop_extend(scroll_x, scroll_x + width, base)
        half = (width - 2) // 2
        room = width - 2 - half
        indent = min(self._digits + 2, room)
        text = Strip([Segment(note, style)])
        if text.cell_length > room - indent > 0:
            text = Strip.join([text.crop(0, room - indent - 1), Strip([Segment("…", style)])])
        return Strip.join(
            [
                Strip.blank(1 + half, base),
                Strip([Segment("│", self._style("diff-text--number"))]),
                Strip.blank(indent, base),
                text.crop_extend(0, room - indent, base),
            ]
        )

    def _unified_row(self, line: int, scroll_x: int, width: int) -> Strip:
        code, pad = self._line_strip(line)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(line)) is not None:
            length = code.cell_length
            start = min(span[0], length)
            end = length if span[1] == -1 else min(max(span[1], start), length)
            if start < end:
                chosen = code.crop(start, end).apply_style(
                    self.screen.get_component_rich_style("screen--selection")
                )
                code = Strip.join([code.crop(0, start), chosen, code.crop(end, length)])
        hunk = self._layout.hunk_at(line)
        gutter = [self._cursor_cell(line, hunk), self._line_cell(line, hunk)]
        if hunk is not None and line == self._layout.headers[hunk]:
            gutter.extend(self._box(hunk, pad))
        prefix = Strip(gutter)
        room = max(width - prefix.cell_length, 0)
        code = code.crop_extend(scroll_x, scroll_x + room, pad).apply_offsets(scroll_x, line)
        return Strip.join([prefix, code])

    def _side_row(self, left: int, right: int, width: int) -> Strip:
        """A removed (or context) line on the left, the added (or same) line on the right."""
        half = (width - 2) // 2
        cursor_line = left if left >= 0 else right
        return Strip.join(
            [
                Strip([self._cursor_cell(cursor_line, self._layout.hunk_at(cursor_line))]),
                self._half(left, "old", half),
                Strip([Segment("│", self._style("diff-text--number"))]),
                self._half(right, "new", width - 2 - half),
            ]
        )

    def _half(self, line: int, side: str, width: int) -> Strip:
        if line == BLANK:
            return Strip.blank(width, self._base())
        hunk = self._layout.hunk_at(line)
        number = 0
        if hunk is not None:
            lines = self._layout.lines(hunk)
            body = line - lines.header - 1
            numbers = lines.old if side == "old" else lines.new
            number = numbers[body] if 0 <= body < len(numbers) else 0
        digits = self._digits
        code, pad = self._line_strip(line)
        label = f"{number:>{digits}} " if number else " " * (digits + 1)
        number_style = self._style("diff-text--number")
        prefix = Strip([self._line_cell(line, hunk), Segment(label, number_style)])
        room = max(width - prefix.cell_length, 0)
        if code.cell_length > room > 0:
            code = Strip.join([code.crop(0, room - 1), Strip([Segment("…", pad)])])
        return Strip.join([prefix, code.crop_extend(0, room, pad)])

    def _cursor_cell(self, line: int, hunk: int | None) -> Segment:
        base = self._base()
        if hunk is None or hunk != self._cursor:
            return Segment(" ", base)
        if self._lines is not None:
            lines = self._layout.lines(hunk)
            if lines.ordinal(line) == self._lines.cursor:
                return self._mark(LINE_CURSOR, base)
        return self._mark(CURSOR, base)

    def _line_cell(self, line: int, hunk: int | None) -> Segment:
        base = self._base()
        if hunk is None or self._layout.marker(line) not in ("+", "-"):
            return Segment(" ", base)
        model = self.hunks[hunk]
        if model.whole:  # taken whole (a link's target): every line as the hunk goes
            box = self._review.box(model)
            state = {"applied": "applied", "none": "unselected"}.get(box.value, "selected")
            return self._mark(LINE[state], base)
        ordinal = self._layout.lines(hunk).ordinal(line)
        if ordinal in self._review.applied(model):
            return self._mark(LINE["applied"], base)
        chosen = ordinal in self._review.selected(model)
        return self._mark(LINE["selected" if chosen else "unselected"], base)

    def _box(self, hunk: int, pad: Style) -> list[Segment]:
        box = self._review.box(self.hunks[hunk])
        return [self._mark(BOX[box.value], pad), Segment(" ", pad)]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (tabs expanded, controls replaced), for the clipboard."""
        if self._message is not None or self.side_by_side:
            return None
        text = "\n".join(self._shown(index) for index in range(self.line_count))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _shown(self, index: int) -> str:
        """Line ``index`` as it reads on screen: what the segments of ``_line_strip`` hold."""
        line = self.line_text(index)
        return line[:1] + clean(line[1:]) if self._is_code(index) else clean(line)

    def _line_strip(self, index: int) -> tuple[Strip, Style]:
        cached = self._strips.get(index)
        if cached is not None:
            return cached
        line = self.line_text(index)
        marker = line[:1]
        if not self._is_code(index):
            component = "diff-text--hunk" if line.startswith("@@") else "diff-text--meta"
            style = self._style(component)
            segments = [Segment(clean(line), style)]
        else:
            style = self._style(_CODE_MARKERS[marker])
            tokens = self._tokens_of(index)
            spans = self._word_spans(index, marker)
            if spans:
                tokens = overlay(tokens, spans, self._style(_WORD[marker]))
            segments = [Segment(marker, style + Style(bold=True))]
            segments.extend(
                Segment(text, style + token if token else style) for text, token in tokens
            )
        strip = Strip(segments)
        if strip.cell_length > self._longest:
            self._longest = strip.cell_length
            self._resize_virtual()
        self._strips[index] = (strip, style)
        return strip, style

    def _word_spans(self, index: int, marker: str) -> tuple[tuple[int, int], ...]:
        hunk = self._layout.hunk_at(index)
        if marker not in _WORD or hunk is None:
            return ()
        partner = self._layout.lines(hunk).partner(index)
        if partner is None:
            return ()
        mine, theirs = clean(self.line_text(index)[1:]), clean(self.line_text(partner)[1:])
        found = changed_spans(theirs, mine) if marker == "+" else changed_spans(mine, theirs)
        if found is None:
            return ()
        return found[1] if marker == "+" else found[0]

    def _tokens_of(self, index: int) -> Tokens:
        theme = self._dark_or_light
        if theme is None:
            # Asked once per restyle: the app's current theme is looked up by name each time.
            theme = self._dark_or_light = DARK_THEME if self.app.current_theme.dark else LIGHT_THEME
        if theme != self._theme_name:
            self._theme_name = theme
            self._tokens.clear()
        block = index // BLOCK_LINES
        tokens = self._tokens.get(block)
        if tokens is None:
            first = block * BLOCK_LINES
            last = min(first + BLOCK_LINES, self.line_count)
            code_lines = list(self._code_lines(range(first, last)))
            self.highlighted_lines += len(code_lines)
            highlighted = iter(highlight_lines(self._lexer, theme, code_lines))
            tokens = [
                next(highlighted) if self._is_code(line) else [] for line in range(first, last)
            ]
            self._tokens[block] = tokens
        return tokens[index % BLOCK_LINES]

    def _is_code(self, index: int) -> bool:
        return index >= self._layout.first_hunk and self.line_text(index)[:1] in _CODE_MARKERS

    def _code_lines(self, indexes: Iterable[int]) -> Iterable[str]:
        """The code of each +/-/context line in ``indexes``, marker dropped, tabs expanded."""
        for index in indexes:
            if self._is_code(index):
                yield clean(self.line_text(index)[1:])
