"""The task tree's lines, drawn from pieces kept between frames.

Textual's ``Tree`` draws a line by assembling a Rich ``Text`` (guides, toggle, label), asking
its component styles again and rendering that text through the console: about a fifth of a
millisecond a line. The clock redraws every line on screen once a second while the tasks are
young (their ages count seconds), so that cost was most of an idle ``caesar watch``.
:class:`LineDrawing` makes the same segments (a test compares them with ``Tree``'s own, line
by line) from a label's parts, the component styles asked once per frame, and the guides'
strings; nothing is laid out or rendered through the console.

A tick that changes only ages draws no line at all: :func:`splice_drawn` puts the new age
into the line Textual keeps as drawn (with its border, styles and filters).

It follows ``Tree._render_line`` and the styles cache of Textual 8.2.8 (pinned in
pyproject.toml): an upgrade of Textual is checked by the tests (a line as ``Tree`` draws it;
a ticked screen as the same screen drawn again) and the snapshots.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets import Tree
    from textual.widgets.tree import TreeNode

Part = tuple[str, Style]
"""A piece of a label and the Rich style it is drawn in."""

PartKey = tuple[Style, Style, Style, int, int]
"""What a label part's style is made of: the line's base style, the part's, the label's, the
line and the node."""

TOGGLE = Style.from_meta({"toggle": True})
"""How the tree marks its fold toggle (a click there folds the node), as Textual's does."""


class LineDrawing:
    """What one frame of a tree draws its lines with: asked once, on the frame's first line."""

    def __init__(self, tree: Tree[Any], part_styles: LRUCache[PartKey, Style]) -> None:
        """Args:
        tree: The tree drawn.
        part_styles: Each label part's whole style by what makes it (kept by the tree between
            frames: a line redrawn for its age has every other part's style already).
        """
        styles = tree.get_component_styles
        rich = tree.get_component_rich_style
        self.tree = tree
        self.base_hidden = styles("tree--guides").color.a == 0
        self.hover_hidden = styles("tree--guides-hover").color.a == 0
        self.selected_hidden = styles("tree--guides-selected").color.a == 0
        self.guide = rich("tree--guides", partial=True)
        self.guide_hover = self.guide + rich("tree--guides-hover", partial=True)
        self.guide_selected = self.guide + rich("tree--guides-selected", partial=True)
        self.highlight_line = rich("tree--highlight-line")
        self.label = rich("tree--label", partial=True)
        self.highlight = rich("tree--highlight", partial=True)
        self.cursor = rich("tree--cursor", partial=False)
        self._guides: dict[tuple[Style, bool], tuple[str, str, str, str]] = {}
        self._combined: dict[tuple[Style, ...], Style] = {}
        self._part_styles = part_styles

    def _combine(self, *styles: Style) -> Style:
        """Styles added in order, once a frame (none of them carries meta)."""
        found = self._combined.get(styles)
        if found is None:
            found = self._combined[styles] = Style.combine(styles)
        return found

    def guides(self, style: Style, hidden: bool) -> tuple[str, str, str, str]:
        """Space, vertical, terminator and cross, as ``Tree`` picks them for a style."""
        found = self._guides.get((style, hidden))
        if found is None:
            tree = self.tree
            if tree.show_guides and not hidden:
                lines = tree.LINES["default"]
                if style.bold:
                    lines = tree.LINES["bold"]
                elif style.underline2:
                    lines = tree.LINES["double"]
            else:
                lines = ("  ", "  ", "  ", "  ")
            depth = max(0, tree.guide_depth - 2)
            space, vertical, terminator, cross = (f"{c[0]}{c[1] * depth} " for c in lines)
            found = self._guides[style, hidden] = (space, vertical, terminator, cross)
        return found

    def line(
        self,
        y: int,
        path: Sequence[TreeNode[Any]],
        last: bool,
        is_hover: bool,
        base_style: Style,
        prefix: str,
        parts: Iterable[Part],
        width: int,
        mark: int = -1,
    ) -> tuple[Strip, int | None]:
        """The whole line (uncropped) of the node at the end of ``path``, drawn at ``y``, and
        the index of the segment that is the label's part ``mark`` alone (None: that part is
        not a segment of its own), which a later frame may replace (:func:`spliced`)."""
        tree = self.tree
        base = self.highlight_line if is_hover else base_style
        at_line = Style(meta={"line": y})
        line_style = base + at_line
        pieces = _Pieces()
        self._guides_of(pieces, path, last, base, at_line)
        label_style = self.label
        if tree.hover_line == y:
            label_style += self.highlight
        if tree.cursor_line == y:
            label_style += self.cursor
        node_id = path[-1]._id
        pieces.cut()  # the label starts: its node's meta starts there
        if prefix:
            meta = Style(meta={"node": node_id})
            pieces.add(prefix, TOGGLE, line_style + (line_style + TOGGLE) + meta)
            pieces.cut()  # the label's own style starts after the toggle
        # Rich adds the line's style, the part's, the label's, then the node's meta; the same
        # style with the three kept between lines and the two metas (the line's, then the
        # node's) added last: one addition per part instead of three, and kept between
        # frames (a line redrawn for its age has every other part's style already).
        part_styles = self._part_styles
        marked: int | None = None
        for index, (text, style) in enumerate(parts):
            key = (base, style, label_style, y, node_id)
            whole = part_styles.get(key)
            if whole is None:
                metas = Style(meta={"line": y, "node": node_id})
                whole = part_styles[key] = self._combine(base, style, label_style) + metas
            pieces.add(text, style, whole)
            if index == mark and style:
                # A style of its own starts a segment, and the next piece starts another.
                marked = len(pieces.segments) - 1
        segments = pieces.segments
        drawn = sum(cell_len(segment.text) for segment in segments)
        pad = max(tree.virtual_size.width, width) - drawn
        if pad > 0:
            segments.append(Segment(" " * pad, line_style))
        return Strip(segments), marked

    def _guides_of(
        self,
        pieces: _Pieces,
        path: Sequence[TreeNode[Any]],
        last: bool,
        base: Style,
        at_line: Style,
    ) -> None:
        """The guides before a node's label, in the style its ancestors' hover and selection
        give them, as ``Tree`` draws them."""
        tree = self.tree
        guide_style = self.guide
        hidden = True
        hover = path[0]._hover
        selected = path[0]._selected and tree.has_focus
        for node in path[1:]:
            hidden = self.base_hidden
            if hover:
                guide_style, hidden = self.guide_hover, self.hover_hidden
            if selected:
                guide_style, hidden = self.guide_selected, self.selected_hidden
            space, vertical, _, _ = self.guides(guide_style, hidden)
            if node != path[-1]:
                guide = space if node.is_last else vertical
                pieces.add(guide, guide_style, self._combine(base, guide_style) + at_line)
            hover = hover or node._hover
            selected = (selected or node._selected) and tree.has_focus
        if len(path) > 1:
            _, _, terminator, cross = self.guides(guide_style, hidden)
            style = self._combine(base, guide_style) + at_line
            pieces.add(terminator if last else cross, guide_style, style)


def spliced(strip: Strip, index: int, text: str) -> Strip | None:
    """``strip`` with its segment ``index`` reading ``text`` in the same style (the clock's
    tick changes a task's age and nothing else of its line); None: ``text`` would not take
    the same cells, and the line is drawn again whole."""
    segments = list(strip)
    old = segments[index]
    if cell_len(old.text) != cell_len(text):
        return None
    segments[index] = Segment(text, old.style)
    return Strip(segments, strip.cell_length)


class _Pieces:
    """A line's segments as Rich's text rendering cuts them: only where a style starts or
    ends, so consecutive pieces without a style of their own run on into one segment."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self._styled = True
        """Whether the last piece had a style of its own (or a cut came after it)."""

    def add(self, text: str, own: Style, style: Style) -> None:
        segments = self.segments
        if not own and not self._styled:
            segments[-1] = Segment(segments[-1].text + text, style)
        else:
            segments.append(Segment(text, style))
        self._styled = bool(own)

    def cut(self) -> None:
        """A style starts here: the next piece is a segment of its own."""
        self._styled = True


Age = tuple[int, int, str, str]
"""An age that changed on screen: its line and first cell (in the widget's content), the text
the line shows and the text it shows now."""


def splice_drawn(
    widget: Widget, ages: Iterable[Age], found: dict[int, tuple[Strip, int]]
) -> set[int]:
    """Each age's new text put into its line as the widget last drew it whole (Textual keeps
    each line with its border and styles, ``Widget._styles_cache``): a clock's tick that
    changes only ages then draws no line again (a line drawn whole goes through Textual's
    styles, borders and filters: about as long again as drawing it). Only a line drawn and
    not since marked for drawing is changed, and only where a segment of it starts at the
    age's cell and reads the old age; the lines changed are returned, and the caller's
    ``refresh`` of their cells must not draw them again (:func:`keep_drawn`).

    ``found``: by line, the line this put there last and the index of its age's segment
    (kept by the caller between ticks): a line spliced before is not searched again."""
    cache = widget._styles_cache
    drawn, dirty = cache._cache, cache._dirty_lines
    left, top = widget.content_offset
    kept: set[int] = set()
    for y, x, old, new in ages:
        at = y + top
        line = drawn.get(at)
        if line is None or at in dirty or cell_len(old) != cell_len(new):
            continue
        last = found.get(at)
        index = last[1] if last is not None and last[0] is line else _segment_at(line, x + left)
        if index is None or index >= len(line) or line._segments[index].text != old:
            continue
        new_line = _with_text(line, index, new)
        # The same line through the filters it was shown with (colours as the terminal gets
        # them): what the next frame would apply to it, done by replacing the same segment
        # (a filter changes styles, never text, segment for segment).
        filters = line._filter_cache
        for key in list(filters.keys()):
            filtered = filters.get(key)
            if filtered is not None and len(filtered) == len(line):
                new_line._filter_cache[key] = _with_text(filtered, index, new)
        drawn[at] = new_line
        found[at] = (new_line, index)
        kept.add(at)
    return kept


def keep_drawn(widget: Widget, lines: set[int]) -> None:
    """The lines :func:`splice_drawn` changed are not drawn again by the refresh of their
    cells (which still sends those cells to the terminal)."""
    widget._styles_cache._dirty_lines.difference_update(lines)


def _segment_at(strip: Strip, x: int) -> int | None:
    """The index of the segment of ``strip`` that starts at cell ``x`` (None: none does)."""
    at = 0
    for index, segment in enumerate(strip):
        if at == x:
            return None if segment.control else index
        if at > x:
            return None
        at += cell_len(segment.text)
    return None


def _with_text(strip: Strip, index: int, text: str) -> Strip:
    """``strip`` with its segment ``index`` reading ``text`` (as many cells) in its style."""
    segments = list(strip)
    segments[index] = Segment(text, segments[index].style)
    return Strip(segments, strip.cell_length)
