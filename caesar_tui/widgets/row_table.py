"""A table of fixed-width columns with a row cursor, drawn line by line, each row drawn once.

Textual's ``DataTable`` draws what a person sees here, but any change to it (a row added, a
cell updated) invalidates the drawing of every row: with a table on screen, an appended event
or a spinner's tick redrew fifty rows, tens of milliseconds each time. :class:`RowTable` draws
its rows the way ``DataTable`` does (the same cell padding, component styles, cursor and hover)
and keeps each row's drawing until that row, the cursor or hover on it, or the widget's
styles change: an append costs the new row and the two cursor rows, a tick its running rows.

Rows are added and updated by key; the columns are fixed when it is made (no auto width).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Region, Size, Spacing, clamp
from textual.reactive import reactive
from textual.renderables.styled import Styled
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle

CELL_PADDING = 1
"""Blank cells each side of a cell's content, as ``DataTable`` has them."""
HEADER = -1
"""The row index of the header line."""


def content_cell(cell: Content, width: int, pre: Style, post: Style) -> list[Segment]:
    """``cell`` drawn as a line ``width`` cells wide, exactly as the console draws
    ``Styled(Padding(cell, (0, CELL_PADDING)), pre, post)`` (``DataTable``'s way), by the same
    steps without the console's renderable machinery: a third of the time, and a screen of
    activity draws hundreds of cells."""
    blank = Style.null()  # the padding's own style ("none")
    rendered = cell.render_segments(VisualStyle(), "\n")  # what the console renders of it
    lines = Segment.split_and_crop_lines(
        rendered, width - 2 * CELL_PADDING, style=blank, pad=True, include_new_lines=False
    )
    line = next(iter(lines), [])
    pad = Segment(" " * CELL_PADDING, blank)
    return list(Segment.apply_style([pad, *line, pad], pre, post))


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int
    """Cells of content, without the padding."""

    @property
    def render_width(self) -> int:
        return self.width + 2 * CELL_PADDING


_RowLine = tuple[str | None, int, bool, bool, tuple[str, ...], int, Style]
"""What one row's drawing depends on: its key (None: the header), its version, whether the
cursor and the hover are on it, the pseudo-classes, the widget's width and base style."""


class RowTable(ScrollView, can_focus=True):
    """Rows of cells (``Content``) under a header; ``cursor_row`` is the highlighted row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-table--header",
        "row-table--cursor",
        "row-table--hover",
        "row-table--header-cursor",
        "row-table--header-hover",
    }

    # DataTable's look, under this widget's names.
    DEFAULT_CSS = """
    RowTable {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .row-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .row-table--header {
                background-tint: $foreground 5%;
            }
        }
        & > .row-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .row-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .row-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .row-table--header-cursor {
            background: $accent-darken-1;
            color: $foreground;
        }
        & > .row-table--header-hover {
            background: $accent 30%;
        }
        & > .row-table--hover {
            background: $block-hover-background;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home", "cursor_top", "Top", show=False),
        Binding("ctrl+end", "cursor_bottom", "Bottom", show=False),
        Binding("home", "scroll_leftmost", "Home", show=False),
        Binding("end", "scroll_rightmost", "End", show=False),
    ]

    cursor_row: reactive[int] = reactive(0)
    """The highlighted row's index."""

    LINE_CACHE_SIZE = 1024

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = tuple(columns)
        self._header_labels = [Text.from_markup(column.label) for column in self.columns]
        self._row_keys: list[str] = []
        self._row_index: dict[str, int] = {}
        self._row_cells: dict[str, list[Content]] = {}
        self._row_versions: dict[str, int] = {}
        self._hover_row = 0
        self._show_hover = False
        self._row_lines: LRUCache[_RowLine, list[Segment]] = LRUCache(self.LINE_CACHE_SIZE)
        self._row_strips: LRUCache[tuple[_RowLine, int], Strip] = LRUCache(self.LINE_CACHE_SIZE)
        """Each row's line as drawn at a horizontal scroll offset."""
        self._table_width = sum(column.render_width for column in self.columns)
        self._pseudo_classes: tuple[str, ...] = ()
        self.virtual_size = Size(self._table_width, 1)
        self.drawn_rows = 0
        """Rows drawn (not taken from the cache) since the table was made: tests read it to
        prove an update costs the rows it touched, not the screen."""

    # -- rows ------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._row_keys)

    def has_row(self, key: str) -> bool:
        return key in self._row_index

    def get_row_index(self, key: str) -> int:
        return self._row_index[key]

    def get_row_at(self, index: int) -> list[Content]:
        """The cells of the row at ``index``, in column order."""
        return list(self._row_cells[self._row_keys[index]])

    def add_row(self, cells: Iterable[Content], key: str) -> None:
        self._row_index[key] = len(self._row_keys)
        self._row_keys.append(key)
        self._row_cells[key] = list(cells)
        self._row_versions[key] = 0
        self._grow(Size(self._table_width, len(self._row_keys) + 1))
        self._refresh_row(len(self._row_keys) - 1)

    def _grow(self, size: Size) -> None:
        """A taller table. Setting ``virtual_size`` lays the whole screen out again; a table
        that scrolls already only needs its scrollbar told (what a row appended changes)."""
        if self.show_vertical_scrollbar and size.height > self.virtual_size.height:
            self.set_reactive(RowTable.virtual_size, size)
            self.vertical_scrollbar.window_virtual_size = size.height
        else:
            self.virtual_size = size

    def update_row(self, key: str, cells: dict[str, Content]) -> None:
        """Replace the cells named by column key of the row ``key``."""
        row = self._row_cells[key]
        for position, column in enumerate(self.columns):
            if column.key in cells:
                row[position] = cells[column.key]
        self._row_versions[key] += 1
        self._refresh_row(self._row_index[key])

    def clear(self) -> None:
        self._row_keys.clear()
        self._row_index.clear()
        self._row_cells.clear()
        self._row_versions.clear()
        self._row_lines.clear()
        self._row_strips.clear()
        self.cursor_row = 0
        self.virtual_size = Size(self._table_width, 1)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    # -- the cursor ------------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return clamp(row, 0, self.row_count - 1)

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        self._scroll_cursor_into_view()

    def move_cursor(self, *, row: int, animate: bool = False) -> None:
        self._scroll_cursor_into_view(animate=animate, row=row)
        self.cursor_row = row

    def _scroll_cursor_into_view(self, animate: bool = False, row: int | None = None) -> None:
        row = self.cursor_row if row is None else clamp(row, 0, self.row_count - 1)
        if not self.row_count:
            return
        width = max(self.size.width, self._table_width)
        region = Region(int(self.scroll_x), row + 1, width, 1)
        self.scroll_to_region(region, animate=animate, spacing=Spacing(1, 0, 0, 0), force=True)

    def action_cursor_up(self) -> None:
        self._set_hover(False)
        self.cursor_row -= 1

    def action_cursor_down(self) -> None:
        self._set_hover(False)
        self.cursor_row += 1

    def action_page_down(self) -> None:
        self._set_hover(False)
        height = self.scrollable_content_region.height - 1
        self.scroll_relative(y=height, animate=False, force=True)
        self.cursor_row = min(self.cursor_row + height, self.row_count - 1)

    def action_page_up(self) -> None:
        self._set_hover(False)
        height = self.scrollable_content_region.height - 1
        self.scroll_relative(y=-height, animate=False)
        self.cursor_row = max(self.cursor_row - height, 0)

    def action_cursor_top(self) -> None:
        self._set_hover(False)
        self.cursor_row = 0

    def action_cursor_bottom(self) -> None:
        self._set_hover(False)
        self.cursor_row = self.row_count - 1

    def action_scroll_leftmost(self) -> None:
        self._set_hover(False)
        self.scroll_x = 0

    def action_scroll_rightmost(self) -> None:
        self._set_hover(False)
        self.scroll_x = self.max_scroll_x

    # -- the mouse -------------------------------------------------------------------------

    def _on_mouse_move(self, event: events.MouseMove) -> None:
        meta = event.style.meta
        if "row" not in meta:
            self._set_hover(False)
            return
        old, self._hover_row = self._hover_row, meta["row"]
        self._show_hover = True
        self._refresh_row(old)
        self._refresh_row(self._hover_row)

    def _on_leave(self, _: events.Leave) -> None:
        self._set_hover(False)

    async def _on_click(self, event: events.Click) -> None:
        self._set_hover(True)
        row = event.style.meta.get("row")
        if isinstance(row, int) and row != HEADER:
            self.cursor_row = row
            self._scroll_cursor_into_view(animate=True)
            event.stop()

    def _set_hover(self, shown: bool) -> None:
        if shown != self._show_hover:
            self._show_hover = shown
            self._refresh_row(self._hover_row)

    # -- drawing ---------------------------------------------------------------------------

    def _refresh_row(self, index: int) -> None:
        """Repaint the row at ``index`` if it is on screen (the header is ``HEADER``)."""
        y = 0 if index == HEADER else index + 1 - round(self.scroll_y)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._row_lines.clear()
        self._row_strips.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pseudo_classes = tuple(sorted(self.get_pseudo_classes()))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base_style = self.rich_style
        index = HEADER if y == 0 else y - 1 + scroll_y
        if index >= self.row_count:
            return Strip.blank(width, base_style)
        key = None if index == HEADER else self._row_keys[index]
        cursor = index == self.cursor_row
        hover = self._show_hover and index == self._hover_row
        version = -1 if key is None else self._row_versions[key]
        cache_key = (key, version, cursor, hover, self._pseudo_classes, width, base_style)
        shown = self._row_strips.get((cache_key, scroll_x))
        if shown is None:
            segments = self._row_lines.get(cache_key)
            if segments is None:
                segments = self._row_lines[cache_key] = self._draw_row(index, key, cursor, hover)
            # Cut at the left edge only, then to the width, as DataTable does.
            cropped = Strip(segments).crop(scroll_x)
            shown = cropped.adjust_cell_length(width, base_style).simplify()
            self._row_strips[cache_key, scroll_x] = shown
        return shown

    def _draw_row(self, index: int, key: str | None, cursor: bool, hover: bool) -> list[Segment]:
        """The row's segments, the whole table wide and out to the widget's edge."""
        self.drawn_rows += 1
        base_style = self.rich_style
        width = self.size.width
        header = index == HEADER
        if header:
            row_style = self.get_component_styles("row-table--header").rich_style
            cells: Sequence[Text | Content] = self._header_labels
        else:
            row_style = base_style
            assert key is not None
            cells = self._row_cells[key]
        segments: list[Segment] = []
        component, post = self._cell_styles(header, cursor, hover)
        for column_index, (column, cell) in enumerate(zip(self.columns, cells, strict=True)):
            meta = Style.from_meta({"row": index, "column": column_index})
            pre = row_style + meta + component
            if isinstance(cell, Content):
                segments.extend(content_cell(cell, column.render_width, pre, post))
                continue
            styled = Styled(Padding(cell, (0, CELL_PADDING)), pre, post)
            options = self.app.console_options.update_dimensions(column.render_width, 1)
            lines = self.app.console.render_lines(styled, options.update(no_wrap=True))
            segments.extend(lines[0])
        # The row's style carried to the widget's edge, as DataTable does for a row cursor.
        extend = row_style + self._cell_styles(header, cursor, hover, post=False)[0]
        extend += Style.from_meta({"row": index, "column": 0, "out_of_bounds": True})
        segments.append(Segment(" " * max(0, width - self._table_width), extend))
        return segments

    def _cell_styles(
        self, header: bool, cursor: bool, hover: bool, *, post: bool = True
    ) -> tuple[Style, Style]:
        """The cursor's and hover's component style of a cell, and what is laid over its
        content (the component's colours win over the cell's own, as in DataTable)."""
        get = self.get_component_rich_style
        component = Style()
        if hover:
            component += get("row-table--hover")
            if header:
                component += get("row-table--header-hover")
        if cursor and not header:
            component += get("row-table--cursor")
        if not post:
            return component, Style.null()
        laid_over = Style.from_color(color=component.color) + Style.from_color(
            bgcolor=component.bgcolor
        )
        return component, laid_over
