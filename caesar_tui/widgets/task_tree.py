"""The left pane: tasks by delegation (a task's follow-up turns under it), each with its state
in one line.

A label is built when its line is drawn (and kept until its task or the clock changes it):
a thousand tasks cost their visible lines, and the clock's tick looks at those lines only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

from caesar_core.store import TaskNode, build_tree
from caesar_core.store.record import ChecksMark
from caesar_core.watch import TaskView
from caesar_tui.keys import bind
from caesar_tui.widgets.task_labels import (
    ClockKey,
    age_text,
    clock_key,
    clock_texts,
    fixed_texts,
    matches,
    rich_style,
)
from caesar_tui.widgets.tree_lines import (
    TOGGLE,
    Age,
    LineDrawing,
    Part,
    PartKey,
    keep_drawn,
    splice_drawn,
    spliced,
)

Label = tuple[Part, ...]
"""A label as the parts it is drawn from."""
FixedParts = tuple[Label, Label, Label]
"""The parts of a label's :data:`~caesar_tui.widgets.task_labels.FixedTexts`, resolved."""
BuiltLabel = tuple[TaskView, ClockKey, Label, FixedParts, int, int]
"""A label as built: from which view and clock key, its parts, those of them the view alone
decides, its serial number and that of its fixed parts (the same while only the clock
changes the label)."""
_UNBUILT = Text()


class TaskTree(Tree[str]):
    """Roots, then children by parent, in creation order; the node data is the task id."""

    DEFAULT_CSS = """
    TaskTree {
        width: 1fr;
        min-width: 40;
        border-right: solid $panel-lighten-2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # The tree's own enter would select (and fold) the node: here it opens the detail.
        bind("detail", "open", "Detail", show=False, help="focus the selected task's detail"),
    ]

    @dataclass
    class Opened(Message):
        """Enter on a task: the person wants to read (or answer) its detail."""

        tree: TaskTree
        task_id: str

        @property
        def control(self) -> TaskTree:
            return self.tree

    @dataclass
    class Selected(Message):
        """The cursor moved to a task."""

        tree: TaskTree
        task_id: str

        @property
        def control(self) -> TaskTree:
            return self.tree

    _adding = False
    """:meth:`_rebuild` is adding nodes (see :meth:`_invalidate`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("tasks", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._task_nodes: dict[str, TreeNode[str]] = {}
        self._views: dict[str, TaskView] = {}
        self._filter = ""
        self._now = datetime.fromtimestamp(0, UTC)
        """The clock as of the last update or tick: what labels are drawn with."""
        self._labels: dict[str, BuiltLabel] = {}
        """Each task's label as last built, with the view and clock key it was built from."""
        self._line_style = Style()
        self._frame: tuple[int, int, int] | None = None
        """The horizontal and vertical scroll and the width, while a frame is drawn."""
        self._keys: tuple[datetime, dict[str, ClockKey]] = (self._now, {})
        """The clock keys the last tick computed for the lines on screen, and its clock."""
        self._serial = 0
        """Counts labels built: a line drawn is kept by the serial of its label."""
        self._drawing: LineDrawing | None = None
        """The component styles lines are drawn with (asked on a frame's first line)."""
        self._drawing_key: tuple[object, ...] = ()
        """What they were asked for: kept between frames while it holds (the clock's
        tick draws a frame a second; its lines need the same styles as the last)."""
        self._drawn: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self._aged: LRUCache[tuple[object, ...], tuple[Strip, int]] = LRUCache(1024)
        """Each line last drawn whole (uncropped) and the index of its age's segment, by all
        it is drawn from but the age: a tick that changes only the age replaces that segment
        (``spliced``) instead of drawing the line again."""
        self._part_styles: LRUCache[PartKey, Style] = LRUCache(4096)
        self._age_offsets: LRUCache[tuple[int, ChecksMark], int] = LRUCache(1024)
        """Where a label's age starts (its cells before it), by the serial of its fixed
        parts (the checks mark before it is the same while only the age changes)."""
        self._spliced: dict[int, tuple[Strip, int]] = {}
        """The lines a tick last put an age into, and where (``splice_drawn``)."""
        self._widths: dict[str, tuple[TaskView, int, tuple[datetime, str], int]] = {}
        """Each task's view, the cells of what it alone decides of its label, and the line's
        width at a moment with a fold toggle: the tree measures every line each time it is
        laid out (a resize, a scrollbar shown), often at the same moment."""

    def update_views(self, views: dict[str, TaskView], now: datetime) -> None:
        """Add new tasks where they belong and relabel changed ones; keeps the cursor."""
        self._views.update(views)
        self._now = now
        if any(task_id not in self._task_nodes for task_id in views):
            self._rebuild(now)
            return
        for task_id in views:
            self._task_nodes[task_id].refresh()  # its label is built again when drawn

    def refresh_labels(self, now: datetime) -> None:
        """Ages and stall marks move with the clock, without any new file change.

        Only the lines on screen are looked at, and redrawn when their clock-driven parts
        changed; a line scrolled into view is looked at then (``watch_scroll_y``).
        """
        self._now = now
        self._refresh_stale_lines()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._refresh_stale_lines()

    def _refresh_stale_lines(self) -> None:
        """Redraw the visible lines whose label the clock has changed since it was built."""
        scroll_x, top = self.scroll_offset
        now, keys = self._now, dict[str, ClockKey]()
        ages: list[Region] = []
        changed: list[Age] = []
        aged: list[str] = []
        for y, line in enumerate(self._tree_lines[top : top + self.size.height]):
            task_id = line.node.data
            built = self._labels.get(task_id) if task_id is not None else None
            if task_id is not None and built is not None:
                keys[task_id] = key = clock_key(built[0], now)
                if built[1] == key:
                    continue
                cells = self._age_cells(line, built, key)
                if cells is None:
                    line.node.refresh()
                else:  # the age alone: the rest of the line is not sent to the terminal again
                    ages.append(Region(cells.start - scroll_x, y, len(cells), 1))
                    changed.append(
                        (y, cells.start - scroll_x, age_text(built[1][0]), age_text(key[0]))
                    )
                    aged.append(task_id)
        self._keys = (now, keys)  # the lines drawn next are built with these
        if ages:
            spliced = splice_drawn(self, changed, self._spliced)  # those lines are not drawn again
            self.refresh(*ages)
            keep_drawn(self, spliced)
            for task_id in aged:
                self._built(task_id)  # the label as the line now shows it

    def _age_cells(self, line: _TreeLine[str], built: BuiltLabel, key: ClockKey) -> range | None:
        """Where on its line the age is drawn, when the age is all the clock changed of a
        label and it keeps its width; None: the line is drawn again whole."""
        was, now = built[1], key
        if was[1:] != now[1:]:
            return None  # the stall mark or the checks: what follows them moves
        old_age, new_age = age_text(was[0]), age_text(now[0])
        if cell_len(old_age) != cell_len(new_age):
            return None
        # The label's cells before its age are the same while its fixed parts and checks are.
        offset = self._age_offsets.get((built[5], now[2]))
        if offset is None:
            head, agent, _ = built[3]
            offset = self._age_offsets[built[5], now[2]] = (
                sum(cell_len(text) for text, _ in head)
                + cell_len(clock_texts(now)[0][0])
                + sum(cell_len(text) for text, _ in agent)
            )
        start = (
            line._get_guide_width(self.guide_depth, self.show_root)
            + cell_len(self._toggle(line.node))
            + offset
        )
        return range(start, start + cell_len(new_age))

    def set_filter(self, query: str, now: datetime) -> None:
        self._filter = query
        self._rebuild(now)

    @property
    def selected_id(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def ids_in_order(self) -> list[str]:
        ordered: list[str] = []

        def walk(node: TreeNode[str]) -> None:
            for child in node.children:
                if child.data is not None:
                    ordered.append(child.data)
                walk(child)

        walk(self.root)
        return ordered

    def select_task(self, task_id: str) -> None:
        node = self._task_nodes.get(task_id)
        if node is not None:
            self.move_cursor(node)

    def _rebuild(self, now: datetime) -> None:
        selected = self.selected_id
        self._now = now
        self.clear()
        self._task_nodes.clear()
        self._labels.clear()
        shown = {
            i: v for i, v in self._views.items() if not self._filter or matches(v, self._filter)
        }
        self._adding = True  # one invalidation for the whole tree, not one a node
        try:
            for root in build_tree(v.record for v in shown.values()):
                self._add(self.root, root, shown, now)
        finally:
            self._adding = False
        self.root.expand()  # the branches are added expanded: one NodeExpanded, not one a task
        if selected is not None and selected in self._task_nodes:
            # A node just added has no line until the tree is laid out (moved to, the cursor
            # would fall to the top row): its place in the order is its line.
            self.cursor_line = self.ids_in_order().index(selected)
            self.scroll_to_node(self._task_nodes[selected], animate=False)

    def _invalidate(self) -> None:
        """Every node added invalidates the tree's lines and lays it out again: while
        :meth:`_rebuild` adds them, only the expansion that ends it does."""
        if not self._adding:
            super()._invalidate()

    def process_label(self, label: str | Text) -> Text:
        """A task's label is built when drawn: the placeholder it is added with is not
        split into lines a thousand times."""
        return Text() if label is _UNBUILT else super().process_label(label)

    def _add(
        self, parent: TreeNode[str], node: TaskNode, shown: dict[str, TaskView], now: datetime
    ) -> None:
        task_id = node.record.id
        # The label is built when the line is drawn (render_label).
        if node.children:
            branch = parent.add(_UNBUILT, data=task_id, expand=True)
        else:
            branch = parent.add_leaf(_UNBUILT, data=task_id)
        self._task_nodes[task_id] = branch
        for child in node.children:
            self._add(branch, child, shown, now)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._labels.clear()  # a new theme: the labels' colours with it
        self._drawing = None
        self._drawn.clear()
        self._aged.clear()
        self._part_styles.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._line_style = self.rich_style  # once a frame: Tree asks for it again every line
        self._pseudo_classes = self.get_pseudo_class_state()
        key = (self._pseudo_classes, self._line_style, self.show_guides, self.guide_depth)
        if key != self._drawing_key:
            self._drawing, self._drawing_key = None, key
        # The scroll and the width asked once a frame, not on each of its lines.
        self._frame = (*self.scroll_offset, self.size.width)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        frame = self._frame
        if frame is None:  # a line asked outside a frame
            scroll_x, scroll_y, width = (*self.scroll_offset, self.size.width)
            style = self.rich_style
        else:
            (scroll_x, scroll_y, width), style = frame, self._line_style
        return self._render_line(y + scroll_y, scroll_x, scroll_x + width, style)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """A task's line as ``Tree`` draws it, from its label's parts (``tree_lines``)."""
        lines = self._tree_lines
        width = x2 - x1  # Tree draws from the horizontal scroll to it plus the width
        line = lines[y] if y < len(lines) else None
        if line is None or line.node.data is None or line.node.data not in self._views:
            return super()._render_line(y, x1, x2, base_style)
        path = line.path
        node = path[-1]
        is_hover = self.hover_line >= 0 and any(step._hover for step in path)
        _, clock, parts, fixed, serial, fixed_serial = self._built(line.node.data)
        updates = tuple(step._updates for step in path)
        drawn = (is_hover, width, self._pseudo_classes, updates, base_style)
        key = (y, x1, x2, serial, *drawn)
        strip = self._drawn.get(key)
        if strip is None:
            # The age is the part after the head, the checks mark and the agent (_label).
            mark = len(fixed[0]) + 1 + len(fixed[1])
            aged_key = (y, fixed_serial, clock[1:], self.virtual_size.width, *drawn)
            aged = self._aged.get(aged_key)
            whole = spliced(*aged, parts[mark][0]) if aged is not None else None
            if whole is None:
                if self._drawing is None:
                    self._drawing = LineDrawing(self, self._part_styles)
                prefix = self._prefix(node, base_style)[0]
                whole, index = self._drawing.line(
                    y, path, line.last, is_hover, base_style, prefix, parts, width, mark
                )
            else:
                index = aged[1] if aged is not None else None
            if index is not None:
                self._aged[aged_key] = (whole, index)
            strip = self._drawn[key] = whole.crop(x1, x2)
        return strip

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        if node.data is None or node.data not in self._views:
            return super().render_label(node, base_style, style)
        label = Text.assemble(*self._parts(node.data))
        label.stylize(style)
        return Text.assemble(self._prefix(node, base_style), label)

    def get_label_width(self, node: TreeNode[str]) -> int:
        if node.data is None or node.data not in self._views:
            return super().get_label_width(node)
        # Without building the label: the tree measures every line (a thousand of them) each
        # time it lays itself out, and a label is built only to be drawn.
        view = self._views[node.data]
        now, toggle = self._now, self._toggle(node)
        measured = self._widths.get(node.data)
        if measured is not None and measured[0] is view and measured[2] == (now, toggle):
            return measured[3]  # the tree measured again (a resize), at the same moment
        if measured is None or measured[0] is not view:
            texts = fixed_texts(view)
            fixed = sum(cell_len(text) for part in texts for text, _ in part)
        else:
            fixed = measured[1]
        moving = clock_texts(clock_key(view, now))
        width = cell_len(toggle) + fixed + sum(cell_len(text) for text, _ in moving)
        self._widths[node.data] = (view, fixed, (now, toggle), width)
        return width

    def _prefix(self, node: TreeNode[str], base_style: Style) -> tuple[str, Style]:
        """What the tree draws before a label: the fold toggle of a node with children."""
        if not node.allow_expand:
            return "", base_style
        return self._toggle(node), base_style + TOGGLE

    def _toggle(self, node: TreeNode[str]) -> str:
        if not node.allow_expand:
            return ""
        return self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE

    def _parts(self, task_id: str) -> Label:
        """The task's label now, built again only when its view or the clock changed it (the
        clock's parts alone when only the clock did)."""
        return self._built(task_id)[2]

    def _built(self, task_id: str) -> BuiltLabel:
        view = self._views[task_id]
        at, keys = self._keys
        key = keys.get(task_id) if at is self._now else None
        if key is None:
            key = clock_key(view, self._now)
        built = self._labels.get(task_id)
        if built is not None and built[0] is view and built[1] == key:
            return built
        self._serial += 1
        if built is not None and built[0] is view:
            fixed, fixed_serial = built[3], built[5]
        else:
            fixed, fixed_serial = self._fixed_parts(view), self._serial
        label = self._label(fixed, key)
        built = self._labels[task_id] = (view, key, label, fixed, self._serial, fixed_serial)
        return built

    def _fixed_parts(self, view: TaskView) -> FixedParts:
        """The parts of a task's label that only its view decides."""
        head, agent, tail = fixed_texts(view)
        return self._resolved(head), self._resolved(agent), self._resolved(tail)

    def _label(self, fixed: FixedParts, clock: ClockKey) -> Label:
        head, agent, tail = fixed
        checked, shown_age, stall = clock_texts(clock)
        return head + self._resolved((checked,)) + agent + self._resolved((shown_age, stall)) + tail

    def _resolved(self, parts: Iterable[tuple[str, str]]) -> Label:
        """Parts with their styles as Rich draws them, the empty ones left out. Built with the
        theme's variables like every pane; the tree draws Rich text, so each style is
        resolved once a theme (``task_labels.rich_style``), not on every label."""
        theme = self.app.theme
        return tuple((text, rich_style(style, theme)) for text, style in parts if text)

    def action_open(self) -> None:
        task_id = self.selected_id
        if task_id is not None:
            self.post_message(self.Opened(self, task_id))

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Selected(self, event.node.data))
