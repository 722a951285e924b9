"""``caesar watch``: every task of a project, live, with the means to act on them.

The App stays thin: it lays out the panes, follows the project, and routes keys and messages
to two helpers: :class:`~caesar_tui.detail.DetailLoader` reads what the detail tabs show,
:class:`~caesar_tui.actions.TaskActions` carries actions out through caesar_core exactly as the
CLI does. Reading files, computing diffs and writing answers all happen in workers; results
come back as messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, TypeVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import Footer, TabbedContent, TabPane

from caesar_core.git import TreeDiff
from caesar_core.protocol.event import Event
from caesar_core.runner import worktrees
from caesar_core.store.record import TaskRecord, TaskStatus
from caesar_core.watch import TaskView
from caesar_core.watch.monitor import RECENT_EVENTS
from caesar_tui.actions import TaskActions
from caesar_tui.clock import Clock, system_clock
from caesar_tui.detail import DetailLoader
from caesar_tui.messages import (
    AnswerRequested,
    ApplyDone,
    ApprovalRequested,
    DiffReady,
    HistoryLoaded,
    ProjectUpdated,
)
from caesar_tui.modals.filter import FilterModal
from caesar_tui.modals.help import HelpModal
from caesar_tui.source import ProjectSource
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.diff_view import DiffView
from caesar_tui.widgets.log_view import LogView
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.report_view import ReportView
from caesar_tui.widgets.status_bar import StatusBar
from caesar_tui.widgets.task_tree import TaskTree

DiffProvider = Callable[[TaskRecord], TreeDiff | None]
W = TypeVar("W", bound=Widget)
TABS = ("activity", "questions", "diff", "report", "log")


def compute_diff(record: TaskRecord) -> TreeDiff | None:
    return worktrees.task_diff(record, with_patch=True)


class CaesarApp(App[None]):
    TITLE = "caesar"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("j,down", "move(1)", "Down", show=False),
        Binding("k,up", "move(-1)", "Up", show=False),
        Binding("enter", "focus_detail", "Detail", show=False),
        Binding("1", "tab('activity')", "Activity", show=False),
        Binding("2", "tab('questions')", "Questions", show=False),
        Binding("3", "tab('diff')", "Diff", show=False),
        Binding("4", "tab('report')", "Report", show=False),
        Binding("5", "tab('log')", "Log", show=False),
        Binding("n", "next_needing_input", "Next ?"),
        Binding("a", "answer", "Answer"),
        Binding("A", "apply", "Apply"),
        Binding("x", "cancel_task", "Cancel"),
        Binding("d", "discard", "Discard"),
        Binding("/", "filter", "Filter"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self,
        source: ProjectSource,
        *,
        clock: Clock = system_clock,
        diff_provider: DiffProvider = compute_diff,
        notify_bell: bool = True,
    ) -> None:
        super().__init__()
        self.source = source
        self.clock = clock
        self.diff_provider = diff_provider
        self.notify_bell = notify_bell
        self.views: dict[str, TaskView] = {}
        self._early: list[Event] = []
        self._history_generation = 0
        """Events of the selected task that arrived while its history was being read."""
        self.filter_text = ""
        self.loaded = asyncio.Event()
        """Set once the first scan is on screen: tests and the benchmark wait on it."""
        self.task_actions = TaskActions(self)
        self.detail = DetailLoader(self)

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield TaskTree(id="tasks")
            with TabbedContent(id="detail", initial="activity"):
                with TabPane("1 Activity", id="activity"):
                    yield ActivityView(id="activity-view")
                with TabPane("2 Questions", id="questions"):
                    yield QuestionsPane(id="questions-pane", clock=self.clock)
                with TabPane("3 Diff", id="diff"):
                    yield DiffView(id="diff-view")
                with TabPane("4 Report", id="report"):
                    yield ReportView(id="report-view")
                with TabPane("5 Log", id="log"):
                    yield LogView(id="log-view")
        yield Footer()

    def on_mount(self) -> None:
        self._main(TaskTree).focus()
        self.follow_project()
        self.set_interval(1.0, self.tick)

    def _shutting_down(self) -> bool:
        """The app is shutting down: messages and ticks still in flight find no screen, or a
        main screen whose widgets are already removed, to update."""
        return not self.screen_stack or not self.screen_stack[0].query(TaskTree)

    def _main(self, kind: type[W]) -> W:
        """A widget of the main screen, whatever modal is on top of it.

        ``App.query_one`` searches the active screen: with a confirmation or the help open,
        a file update or the clock tick would not find the tree and the app would fail.
        """
        return self.screen_stack[0].query_one(kind)

    # -- the project, live -----------------------------------------------------------------

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def follow_project(self) -> None:
        """The first scan, then one batch per file notification; reading happens in threads."""
        self.post_message(await asyncio.to_thread(self.source.initial))
        async for paths in self.source.changes():
            update = await asyncio.to_thread(self.source.apply, paths)
            if update.views:
                self.post_message(update)

    def on_project_updated(self, update: ProjectUpdated) -> None:
        if self._shutting_down():
            return
        now = self.clock()
        before = dict(self.views)
        self.views.update(update.views)
        tree = self._main(TaskTree)
        tree.update_views(update.views, now)
        self._status()
        selected = tree.selected_id
        if selected is None and tree.ids_in_order():
            tree.select_task(tree.ids_in_order()[0])
            selected = tree.selected_id
        if selected in update.views:
            activity = self._main(ActivityView)
            if activity.task_id != selected or selected in update.resets:
                self._show_task(selected)
            else:
                fresh = update.events.get(selected, [])
                if activity.loading:
                    self._early.extend(fresh)
                else:
                    activity.extend(fresh, now)
                self.detail.refresh(selected)
        if not update.full:
            self._announce(before, update.views)
        self.loaded.set()

    def _announce(self, before: dict[str, TaskView], after: dict[str, TaskView]) -> None:
        """A question arrived or a task ended: say so, and ring the terminal bell."""
        for task_id, view in after.items():
            old = before.get(task_id)
            short = task_id[2:10]
            new_questions = (
                {q.id for q in view.pending} - {q.id for q in old.pending}
                if old
                else {q.id for q in view.pending}
            )
            if new_questions:
                self.notify(f"{short} asks: {view.pending[0].question}", title="Question")
                self._bell()
            seen = {a.id for a in old.approvals} if old else set()
            held = {a.id for a in view.approvals} - seen
            if held:
                self.notify(f"{short} {view.asking}", title="Approval (a, then y/n)")
                self._bell()
            if view.record.status.terminal and (old is None or not old.record.status.terminal):
                severity: SeverityLevel = (
                    "information" if view.record.status is TaskStatus.SUCCEEDED else "error"
                )
                self.notify(
                    f"{short} {view.record.status.value}: {view.activity.headline}",
                    title="Task ended",
                    severity=severity,
                )
                self._bell()

    def _bell(self) -> None:
        if self.notify_bell:
            self.bell()

    def tick(self) -> None:
        """Once a second: ages, stall marks and spinners follow the clock (no I/O here)."""
        if self._shutting_down():
            return
        now = self.clock()
        self._main(TaskTree).refresh_labels(now)
        self._main(ActivityView).tick(now)
        self._main(QuestionsPane).tick(now)

    def _status(self) -> None:
        self._main(StatusBar).show(self.views.values(), self.source.root.name, self.filter_text)

    # -- the selected task -----------------------------------------------------------------

    @on(TaskTree.Selected)
    def _selected(self, message: TaskTree.Selected) -> None:
        if self._shutting_down():
            return
        if self._main(ActivityView).task_id != message.task_id:
            self._show_task(message.task_id)

    def _show_task(self, task_id: str) -> None:
        self._main(ActivityView).start_loading(task_id)
        self._early = []
        self._history_generation += 1
        self.load_history(task_id, self._history_generation)
        self.detail.refresh(task_id)

    @work(thread=True, group="history", exit_on_error=False)
    def load_history(self, task_id: str, generation: int) -> None:
        """The task's last events, read from the end of its log: cost set by the count."""
        events = self.source.monitor.history(task_id, RECENT_EVENTS)
        self.post_message(HistoryLoaded(task_id, events, generation))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        if self._shutting_down():
            return
        activity = self._main(ActivityView)
        if message.generation != self._history_generation or activity.task_id != message.task_id:
            return  # a read overtaken by a newer switch: its events may be older than _early
        now = self.clock()
        activity.show(message.task_id, message.events, now)
        activity.extend(self._early, now)  # only what the history did not include
        self._early = []

    def on_diff_ready(self, message: DiffReady) -> None:
        if not self._shutting_down():
            self.detail.diff_ready(message, self._main(TaskTree).selected_id)

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        if self._shutting_down():
            return
        task_id = self._main(TaskTree).selected_id
        if task_id is not None:
            self.detail.refresh(task_id)

    # -- keys --------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        tree = self._main(TaskTree)
        if delta > 0:
            tree.action_cursor_down()
        else:
            tree.action_cursor_up()

    def action_focus_detail(self) -> None:
        pane = self._main(TabbedContent).active
        panes: dict[str, type[Widget]] = {
            "activity": ActivityView,
            "questions": QuestionsPane,
            "diff": DiffView,
            "report": ReportView,
            "log": LogView,
        }
        widget = panes.get(pane)
        if widget is QuestionsPane:
            self._main(QuestionsPane).focus_first_question()
        elif widget is not None:
            self._main(widget).focus()

    def action_tab(self, name: str) -> None:
        self._main(TabbedContent).active = name

    def action_next_needing_input(self) -> None:
        tree = self._main(TaskTree)
        order = tree.ids_in_order()
        waiting = [i for i in order if self.views[i].needs_input]
        if not waiting:
            self.notify("no task is waiting for an answer")
            return
        current = tree.selected_id
        later = [i for i in waiting if current is None or order.index(i) > order.index(current)]
        tree.select_task((later or waiting)[0])

    def action_answer(self) -> None:
        task_id = self._main(TaskTree).selected_id
        view = self.views.get(task_id) if task_id is not None else None
        if view is None or not (view.pending or view.approvals):
            self.notify("the selected task has no pending question or approval")
            return
        self.action_tab("questions")
        self._main(QuestionsPane).focus_first_question()

    @on(QuestionsPane.Dismissed)
    def _questions_left(self) -> None:
        self._main(TaskTree).focus()

    # -- writes: carried out by TaskActions (caesar_tui/actions.py) ---------------------------

    @on(AnswerRequested)
    def _answer(self, message: AnswerRequested) -> None:
        self.task_actions.answer(message.task_id, message.question_id, message.answer)

    @on(ApprovalRequested)
    def _decide(self, message: ApprovalRequested) -> None:
        self.task_actions.decide(message.task_id, message.approval_id, message.decision)

    def _selected_record(self) -> TaskRecord | None:
        task_id = self._main(TaskTree).selected_id
        return self.views[task_id].record if task_id in self.views else None

    def action_apply(self) -> None:
        self.task_actions.apply(self._selected_record())

    def on_apply_done(self, message: ApplyDone) -> None:
        if not self._shutting_down():
            self.task_actions.applied(message)

    def action_cancel_task(self) -> None:
        self.task_actions.cancel(self._selected_record())

    def action_discard(self) -> None:
        self.task_actions.discard(self._selected_record())

    def action_filter(self) -> None:
        def chosen(text: str | None) -> None:
            if text is not None:
                self.filter_text = text.strip()
                self._main(TaskTree).set_filter(self.filter_text, self.clock())
                self._status()

        self.push_screen(FilterModal(self.filter_text), chosen)

    def action_help(self) -> None:
        rows = [
            ("q", "quit"),
            ("↑ ↓  j k", "move between tasks"),
            ("enter", "focus the detail pane"),
            ("1-5", "Activity, Questions, Diff, Report, Log"),
            ("n", "next task waiting for you (a question or an approval)"),
            ("a", "answer: focus the first approval, else the first question"),
            ("1-9", "in a question: pick that option"),
            ("y / n", "on an approval: allow / deny the held tool call"),
            ("A", "apply the task's diff to your tree (selected files)"),
            ("x", "cancel the task"),
            ("d", "discard the task's worktree"),
            ("/", "filter: text, status:running, agent:codex"),
            ("?", "this help"),
        ]
        self.push_screen(HelpModal(rows))

    async def on_unmount(self) -> None:
        self.detail.close()
        self.source.close()


def make_app(
    root: Path,
    *,
    only: tuple[str, ...] = (),
    poll: bool = False,
    clock: Clock = system_clock,
    diff_provider: DiffProvider = compute_diff,
) -> CaesarApp:
    return CaesarApp(
        ProjectSource(root, only=only, poll=poll, clock=clock),
        clock=clock,
        diff_provider=diff_provider,
    )
