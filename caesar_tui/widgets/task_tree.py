"""The left pane: tasks by delegation (a task's follow-up turns under it), each with its state
in one line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from caesar_core.events.fold import STALL_AFTER
from caesar_core.humanize import age, clip, one_line
from caesar_core.runner.slots import pid_alive
from caesar_core.store import TaskNode, build_tree
from caesar_core.store.record import checks_mark
from caesar_core.terminal import safe_text
from caesar_core.watch import TaskView
from caesar_tui.keys import bind
from caesar_tui.marks import CHECKS, MUTED, NEEDS_INPUT, STALLED, STATUS

HEADLINE_WIDTH = 70
READING = "reading its log…"
"""The headline of a task whose log is not read yet (the first screen reads its own first)."""


def matches(view: TaskView, query: str) -> bool:
    """The filter: words that must all match; ``status:X`` and ``agent:X`` target a field."""
    for word in query.lower().split():
        if word.startswith("status:"):
            wanted = word[len("status:") :]
            state = "needs_input" if view.needs_input else view.record.status.value
            if not state.startswith(wanted):
                return False
        elif word.startswith("agent:"):
            if not view.record.agent.lower().startswith(word[len("agent:") :]):
                return False
        else:
            haystack = " ".join(
                (
                    view.id,
                    view.record.agent,
                    view.record.role or "",
                    view.record.objective,
                    view.activity.headline,
                )
            ).lower()
            if word not in haystack:
                return False
    return True


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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("tasks", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._task_nodes: dict[str, TreeNode[str]] = {}
        self._views: dict[str, TaskView] = {}
        self._filter = ""
        self._clock_keys: dict[str, tuple[str, bool]] = {}

    def update_views(self, views: dict[str, TaskView], now: datetime) -> None:
        """Add new tasks where they belong and relabel changed ones; keeps the cursor."""
        self._views.update(views)
        if any(task_id not in self._task_nodes for task_id in views):
            self._rebuild(now)
            return
        for task_id in views:
            self._task_nodes[task_id].set_label(self._label(self._views[task_id], now))

    def refresh_labels(self, now: datetime) -> None:
        """Ages and stall marks move with the clock, without any new file change.

        Only labels whose clock-driven parts changed are rebuilt: with a thousand tasks, a
        relabel of every node each second would stall the event loop for nothing.
        """
        for task_id, node in self._task_nodes.items():
            view = self._views[task_id]
            key = self._clock_key(view, now)
            if self._clock_keys.get(task_id) != key:
                node.set_label(self._label(view, now))

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
        self.clear()
        self._task_nodes.clear()
        shown = {
            i: v for i, v in self._views.items() if not self._filter or matches(v, self._filter)
        }
        for root in build_tree(v.record for v in shown.values()):
            self._add(self.root, root, shown, now)
        self.root.expand_all()
        if selected is not None and selected in self._task_nodes:
            self.move_cursor(self._task_nodes[selected])

    def _add(
        self, parent: TreeNode[str], node: TaskNode, shown: dict[str, TaskView], now: datetime
    ) -> None:
        view = shown[node.record.id]
        label = self._label(view, now)
        if node.children:
            branch = parent.add(label, data=view.id, expand=True)
        else:
            branch = parent.add_leaf(label, data=view.id)
        self._task_nodes[view.id] = branch
        for child in node.children:
            self._add(branch, child, shown, now)

    def _clock_key(self, view: TaskView, now: datetime) -> tuple[str, bool]:
        """What of a label depends on the clock: the age as shown, and the stall mark."""
        record, activity = view.record, view.activity
        stalled = (
            not record.status.terminal
            and activity.last_at is not None
            and now - activity.last_at >= STALL_AFTER
        )
        return age((now - record.created_at).total_seconds()), stalled

    def _label(self, view: TaskView, now: datetime) -> Text:
        record, activity = view.record, view.activity
        status = record.status
        shown_age, stalled = self._clock_keys[view.id] = self._clock_key(view, now)
        who = safe_text(record.role or record.agent)
        if view.needs_input:
            headline = view.asking
        else:
            headline = READING if view.reading else activity.headline
        headline = clip(safe_text(one_line(headline)), HEADLINE_WIDTH)
        # One mark column: a task waiting on a person shows the question mark in its place, so
        # the ids of every row stay aligned.
        mark = NEEDS_INPUT if view.needs_input else STATUS[status]
        checked = CHECKS[checks_mark(record.checks, pid_alive)]
        label = Content.assemble(
            (mark.glyph + " ", mark.style),
            (record.id[2:10], "bold"),
            (" " + checked.glyph, checked.style),
            (f" {who:<10.10} ", "$text-secondary"),
            (f"{shown_age:>4} ", MUTED),
            (f"{STALLED.glyph} " if stalled else "", STALLED.style),
            # The turns of a task (caesar continue) are one chain under its first turn.
            (f"turn {record.turn} " if record.chained else "", "$text-accent"),
            (headline, "$text-warning" if view.needs_input else MUTED if view.reading else ""),
        )
        # Built with the theme's variables like every pane; the tree draws Rich text, so the
        # styles are resolved against the theme here.
        return Text.assemble(*((text, style.rich_style) for text, style in label.render(end="")))

    def action_open(self) -> None:
        task_id = self.selected_id
        if task_id is not None:
            self.post_message(self.Opened(self, task_id))

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Selected(self, event.node.data))
