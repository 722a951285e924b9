"""The main screen of ``caesar watch``: the task tree, the status line and the selected
task's detail tabs, fed by the project's updates, and the keys that act on that task.

The screen owns its panes and the messages that feed them: :class:`ProjectUpdated` from the
app's watcher, and each detail pane's own (``ActivityView.HistoryLoaded``,
``DiffView.DiffReady``...), which the panes load in thread workers of their own. Writes
(answer, allow/deny, apply, reject, cancel, discard) run :mod:`caesar_tui.actions` in thread workers
of the screen and come back as :class:`MainScreen.Written`. A worker never touches a widget;
what it finds comes back as a message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from caesar_core.config import WATCH_KEYS
from caesar_core.protocol.approvals import ApprovalDecision
from caesar_core.store.ids import short_task_id
from caesar_core.store.record import TaskRecord
from caesar_core.watch import TaskView
from caesar_tui import actions, milestones
from caesar_tui.actions import Outcome
from caesar_tui.announce import news
from caesar_tui.clock import Clock
from caesar_tui.messages import Announced, ProjectUpdated
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.screens.detail_tabs import DetailTabs
from caesar_tui.screens.main_keys import MAIN_BINDINGS, TABS
from caesar_tui.source import TaskFiles
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.approvals import ApprovalCard
from caesar_tui.widgets.keys_footer import KeysFooter
from caesar_tui.widgets.questions import QuestionForm, QuestionsPane
from caesar_tui.widgets.status_bar import StatusBar
from caesar_tui.widgets.task_tree import TaskTree
from caesar_tui.workers import WorkerFailures

if TYPE_CHECKING:
    from caesar_core.protocol.event import Event
    from caesar_core.review.comments import Comments
    from caesar_core.review.hunks import Pick
    from caesar_tui.review import Choice
    from caesar_tui.widgets.diff_view import DiffProvider, DiffView


class MainScreen(WorkerFailures, Screen[None]):
    """Every task of the project on the left, the selected one's detail on the right."""

    BINDINGS: ClassVar[list[BindingType]] = list(MAIN_BINDINGS)

    @dataclass
    class Written(Message):
        """What came of a write, from its worker."""

        outcome: Outcome | None
        """None: the write failed unexpectedly (the worker's error is notified)."""
        retry: QuestionForm | ApprovalCard | None = None
        """The form or card that asked: it answers again if the write did not happen."""
        reread: TaskRecord | None = None
        """The task as the write left it: its diff is read again."""
        select: str | None = None
        """A task to select, once the tree shows it: the turn a request for changes started."""

    @dataclass
    class ReviewRead(Message):
        """The summary the request-changes form opens with, read in a worker."""

        record: TaskRecord
        summary: str

    def __init__(
        self,
        files: TaskFiles,
        *,
        clock: Clock,
        diff_provider: DiffProvider,
        project: str,
        keys: Mapping[str, str] | None = None,
    ) -> None:
        """Args:
        files: What the panes read of a task, and the store the writes go through.
        clock: The app's clock.
        diff_provider: Computes a task's diff (in the Diff tab's worker).
        project: The project's name, for the status line.
        keys: The keys in force by action id (``[watch.keys]``), for the tabs' titles.
        """
        super().__init__()
        self.files = files
        self.clock = clock
        self.project = project
        self.keys = {**WATCH_KEYS, **(keys or {})}
        self.views: dict[str, TaskView] = {}
        """The latest view of every task of the project."""
        self.filter_text = ""
        self.loaded = asyncio.Event()
        """Set once the first scan is on screen: tests and the benchmark wait on it."""
        self._to_select: str | None = None
        """The task to select when the tree first shows it (see ``Written.select``)."""
        self.painted = asyncio.Event()
        """Set once the first full frame is drawn: the app reads the rest of the project
        after it, so that the first screen has the machine to itself."""
        self._first: ProjectUpdated | None = None
        """The first scan, read before the app ran: shown as the screen mounts."""
        self._first_history: tuple[str, list[Event]] | None = None
        """A task's recent activity, read before the app ran: shown if that task is the first
        one shown (it is the tree's first), instead of read by the Activity tab's worker."""
        self._tabs = DetailTabs(self, files, diff_provider, self._read_comments)
        """The Diff, Report and Log tabs' views, made when their tab is first shown."""

    def compose(self) -> ComposeResult:
        files = self.files
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield TaskTree(id="tasks")
            with TabbedContent(id="detail", initial="activity"):
                panes: dict[str, Widget] = {
                    "activity": ActivityView(files.history, self.clock, id="activity-view"),
                    "questions": QuestionsPane(id="questions-pane", clock=self.clock),
                }
                for pane, title in TABS:
                    with TabPane(f"{self._key_of(pane)} {title}", id=pane):
                        if pane in panes:
                            yield panes[pane]
        yield KeysFooter()

    def _key_of(self, action_id: str) -> str:
        """The first key of an action, as the footer shows keys."""
        key = self.keys[action_id].split(",")[0].strip()
        return self.app.get_key_display(Binding(key, action_id))

    def show_first(
        self, update: ProjectUpdated, history: tuple[str, list[Event]] | None = None
    ) -> None:
        """The first scan and a task's recent activity, read before the app runs: shown as
        the screen mounts, before anything is drawn, so that the first frame is the whole
        screen rather than an empty one drawn again."""
        self._first, self._first_history = update, history

    def on_mount(self) -> None:
        self.query_one(TaskTree).focus()
        self.set_interval(1.0, self.tick)
        if self._first is not None:
            first, self._first = self._first, None
            self._project_updated(first)
        self._first_history = None  # for the first task shown only

    # -- the project, live -------------------------------------------------------------------

    @on(ProjectUpdated)
    def _project_updated(self, update: ProjectUpdated) -> None:
        before = {task_id: self.views[task_id] for task_id in update.views if task_id in self.views}
        self.views.update(update.views)
        tree = self.query_one(TaskTree)
        tree.update_views(update.views, self.clock())
        if self._to_select in update.views:
            tree.select_task(self._to_select)
            self._to_select = None
        self._status()
        selected = tree.selected_id
        if selected is None and tree.ids_in_order():
            tree.select_task(tree.ids_in_order()[0])
            selected = tree.selected_id
        if selected in update.views:
            activity = self.query_one(ActivityView)
            if activity.task_id != selected or selected in update.resets:
                self._show(selected)
            else:
                activity.extend(selected, update.events.get(selected, []))
                self._refresh_detail(selected)
        if not update.full:  # the first scan is what was there, not news
            for item in news(before, update.views):
                self.post_message(Announced(item, on_screen=item.task_id == selected))
        elif not self.loaded.is_set():
            self._await_first_frame()
        self.loaded.set()

    def _await_first_frame(self) -> None:
        """``painted`` (and the ``frame`` milestone) once the first scan is on screen and the
        selected task's activity is read and drawn."""

        def shown(loading: bool) -> None:
            if not loading and not self.painted.is_set():
                self.call_after_refresh(self._painted)

        self.watch(self.query_one(ActivityView), "loading", shown)

    def _painted(self) -> None:
        if not self.painted.is_set():
            self.painted.set()
            milestones.mark("frame")

    def tick(self) -> None:
        """Once a second: ages, stall marks, spinners and countdowns follow the clock."""
        now = self.clock()
        self.query_one(TaskTree).refresh_labels(now)
        self.query_one(ActivityView).tick()
        self.query_one(QuestionsPane).tick(now)

    def _status(self) -> None:
        self.query_one(StatusBar).show(self.views.values(), self.project, self.filter_text)

    # -- the selected task -------------------------------------------------------------------

    @on(TaskTree.Selected)
    def _selected(self, message: TaskTree.Selected) -> None:
        if self.query_one(ActivityView).task_id != message.task_id:
            self._show(message.task_id)

    def _show(self, task_id: str) -> None:
        read, self._first_history = self._first_history, None
        history = read[1] if read is not None and read[0] == task_id else None
        self.query_one(ActivityView).follow(task_id, history)
        self._refresh_detail(task_id)

    def _refresh_detail(self, task_id: str) -> None:
        """The panes that show ``task_id``'s state; the tabs not open wait until they are."""
        view = self.views.get(task_id)
        if view is None:
            return
        self.query_one(QuestionsPane).show(view)
        self._tabs.load(self.query_one(TabbedContent).active, view)

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self.query_one("#main").set_class(event.pane.id == "diff", "-review")
        task_id = self.query_one(TaskTree).selected_id
        if task_id is not None:
            self._refresh_detail(task_id)

    @on(TaskTree.Opened)
    def _opened(self) -> None:
        self.action_focus_detail()

    @on(QuestionsPane.Dismissed)
    def _questions_left(self) -> None:
        self.query_one(TaskTree).focus()

    def _select(self, task_id: str) -> None:
        """Select ``task_id`` now if the tree shows it, else when it first does."""
        tree = self.query_one(TaskTree)
        if task_id in tree.ids_in_order():
            tree.select_task(task_id)
        else:
            self._to_select = task_id

    def _selected_record(self) -> TaskRecord | None:
        task_id = self.query_one(TaskTree).selected_id
        return self.views[task_id].record if task_id in self.views else None

    # -- keys --------------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        tree = self.query_one(TaskTree)
        if delta > 0:
            tree.action_cursor_down()
        else:
            tree.action_cursor_up()

    def action_focus_detail(self) -> None:
        pane = self.query_one(TabbedContent).active
        if pane == "questions":
            self.query_one(QuestionsPane).focus_first_question()
        elif pane:
            self.query_one(f"#{pane} > *").focus()

    def action_tab(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane

    def action_next_needing_input(self) -> None:
        tree = self.query_one(TaskTree)
        order = tree.ids_in_order()
        waiting = [task_id for task_id in order if self.views[task_id].needs_input]
        if not waiting:
            self.notify("no task is waiting for an answer")
            return
        current = tree.selected_id
        later = [i for i in waiting if current is None or order.index(i) > order.index(current)]
        tree.select_task((later or waiting)[0])

    def action_answer(self) -> None:
        task_id = self.query_one(TaskTree).selected_id
        view = self.views.get(task_id) if task_id is not None else None
        if view is None or not (view.pending or view.approvals):
            self.notify("the selected task has no pending question or approval")
            return
        self.action_tab("questions")
        self.query_one(QuestionsPane).focus_first_question()

    def action_filter(self) -> None:
        def chosen(text: str | None) -> None:
            if text is not None:
                self.filter_text = text.strip()
                self.query_one(TaskTree).set_filter(self.filter_text, self.clock())
                self._status()

        from caesar_tui.modals.filter import FilterModal  # the modals: when first opened

        self.app.push_screen(FilterModal(self.filter_text), chosen)

    def _worktree_record(self, in_place: str) -> TaskRecord | None:
        record = self._selected_record()
        if record is not None and not record.worktree_path:
            self.notify(f"this task ran in place: {in_place}")
            return None
        return record

    def _choice_of(self, record: TaskRecord, what: str) -> Choice | None:
        """The Diff tab's selection of ``record``'s diff, if it is the one shown there."""
        diff_view = self._tabs.showing_diff(record.id)
        if diff_view is None or diff_view.diff is None:
            return None
        choice = diff_view.choice()
        if choice is None or not choice.picks:
            self.notify(f"nothing is selected in the Diff tab to {what} (space toggles a hunk)")
        return choice

    def action_apply(self) -> None:
        record = self._worktree_record("its changes are already in your tree")
        if record is None:
            return
        diff_view = self._tabs.showing_diff(record.id)
        shown = diff_view is not None and diff_view.diff is not None
        choice = self._choice_of(record, "apply") if shown else None
        if shown and (choice is None or not choice.picks):
            return
        picks = None if choice is None or choice.whole else list(choice.picks)

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._apply(record, picks)

        from caesar_tui.modals.review import apply_confirmation

        self.app.push_screen(apply_confirmation(record, choice), decided)

    def action_reject(self) -> None:
        record = self._worktree_record("there is no worktree to reject its changes in")
        if record is None:
            return
        diff_view = self._tabs.showing_diff(record.id)
        if diff_view is None or diff_view.diff is None:
            self.notify("open the Diff tab to choose what to reject")
            return
        choice = self._choice_of(record, "reject")
        if choice is None or not choice.picks:
            return
        picks = list(choice.picks)
        from caesar_tui.modals.review import reject_confirmation

        modal = reject_confirmation(record, choice)

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._reject(record, picks, modal.reason)

        self.app.push_screen(modal, decided)

    def action_comments(self) -> None:
        record = self._selected_record()
        if record is None:
            self.notify("no task selected")
            return
        store = self.files.store

        def closed(_: None) -> None:
            diff_view = self._tabs.showing_diff(record.id)
            if diff_view is not None:
                diff_view.load(store.get(record.id))

        from caesar_core.review.comments import read_comments
        from caesar_tui.modals.comments import CommentsModal

        self.app.push_screen(
            CommentsModal(
                record.id,
                lambda: read_comments(store, record),
                lambda comment_id: actions.resolve_comment(store, record, comment_id),
            ),
            closed,
        )

    def action_request_changes(self) -> None:
        record = self._selected_record()
        if record is None:
            self.notify("no task selected")
            return
        if not record.status.terminal:
            self.notify(f"the task is still {record.status.value}: request changes once it ends")
            return
        self._read_review(record)

    @work(thread=True, group="read-review", exclusive=True, exit_on_error=False)
    def _read_review(self, record: TaskRecord) -> None:
        """The form's summary reads the comments (and the worktree they are anchored in): in a
        thread, never on the UI thread."""
        from caesar_tui.modals.request_changes import review_summary

        self.post_message(self.ReviewRead(record, review_summary(self.files.store, record)))

    @on(ReviewRead)
    def _ask_for_changes(self, message: ReviewRead) -> None:
        record = message.record

        def sent(text: str | None) -> None:
            if text is not None:
                self._request_changes(record, text)

        from caesar_tui.modals.request_changes import RequestChangesModal

        self.app.push_screen(RequestChangesModal(record, message.summary), sent)

    @work(thread=True, group="act", exit_on_error=False)
    def _request_changes(self, record: TaskRecord, message: str) -> None:
        """The new turn started is selected: it is what the person watches next."""
        outcome = actions.request_changes(self.files.store, record, message)
        turn = self.files.store.get(record.id).continued_by if outcome.ok else None
        self.post_message(self.Written(outcome, select=turn))

    def action_cancel_task(self) -> None:
        record = self._selected_record()
        if record is None or record.status.terminal:
            self.notify("the selected task has already ended")
            return

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._cancel(record.id)

        self.app.push_screen(
            ConfirmModal(f"Cancel {short_task_id(record.id)}?", [record.objective]), decided
        )

    def action_discard(self) -> None:
        record = self._selected_record()
        if record is None or not record.worktree_path:
            self.notify("the selected task has no worktree to discard")
            return

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._discard(record)

        self.app.push_screen(
            ConfirmModal(
                f"Discard the worktree of {short_task_id(record.id)}?",
                [record.worktree_path, "work never applied is kept: use `caesar discard --force`"],
            ),
            decided,
        )

    # -- writes: caesar_tui/actions.py in thread workers --------------------------------------

    @on(QuestionForm.Answered)
    def _answered(self, message: QuestionForm.Answered) -> None:
        self._write_answer(message.form, message.task_id, message.question_id, message.answer)

    @on(ApprovalCard.Decided)
    def _decided(self, message: ApprovalCard.Decided) -> None:
        self._write_decision(message.card, message.task_id, message.approval_id, message.decision)

    @work(thread=True, group="act", exit_on_error=False)
    def _write_answer(self, form: QuestionForm, task_id: str, question_id: str, text: str) -> None:
        outcome = None
        try:
            outcome = actions.answer(self.files.store, task_id, question_id, text)
        finally:
            self.post_message(self.Written(outcome, form))

    @work(thread=True, group="act", exit_on_error=False)
    def _write_decision(
        self, card: ApprovalCard, task_id: str, approval_id: str, decision: ApprovalDecision
    ) -> None:
        outcome = None
        try:
            outcome = actions.decide(self.files.store, task_id, approval_id, decision)
        finally:
            self.post_message(self.Written(outcome, card))

    @work(thread=True, group="act", exit_on_error=False)
    def _apply(self, record: TaskRecord, picks: list[Pick] | None) -> None:
        store = self.files.store
        if picks is None:
            outcome = actions.apply(store, record, None)
        else:
            outcome = actions.apply_hunks(store, record, picks)
        self.post_message(self.Written(outcome, reread=store.get(record.id)))

    @work(thread=True, group="act", exit_on_error=False)
    def _reject(self, record: TaskRecord, picks: list[Pick], reason: str) -> None:
        store = self.files.store
        outcome = actions.reject(store, record, picks, reason)
        self.post_message(self.Written(outcome, reread=store.get(record.id)))

    def _read_comments(self, record: TaskRecord) -> Comments:
        from caesar_core.review.comments import read_comments  # in the Diff tab's worker

        return read_comments(self.files.store, record)

    def on_diff_view_comment_asked(self, message: DiffView.CommentAsked) -> None:
        view = self.views.get(message.task_id)
        if view is not None:
            record = view.record
            self._comment(record, message.path, message.start, message.end, message.text)

    @work(thread=True, group="act", exit_on_error=False)
    def _comment(self, record: TaskRecord, path: str, start: int, end: int, text: str) -> None:
        store = self.files.store
        outcome = actions.comment(store, record, path, start, end, text)
        self.post_message(self.Written(outcome, reread=store.get(record.id)))

    @work(thread=True, group="act", exit_on_error=False)
    def _cancel(self, task_id: str) -> None:
        self.post_message(self.Written(actions.cancel(self.files.store, task_id)))

    @work(thread=True, group="act", exit_on_error=False)
    def _discard(self, record: TaskRecord) -> None:
        self.post_message(self.Written(actions.discard(self.files.store, record)))

    @on(Written)
    def _written(self, message: Written) -> None:
        outcome = message.outcome
        if message.retry is not None and (outcome is None or not outcome.ok):
            message.retry.reopen()  # nothing was written: the form or card may answer again
        if outcome is None:
            return
        if message.select is not None:
            self._select(message.select)
        if message.reread is not None:
            diff_view = self._tabs.showing_diff(message.reread.id)
            if diff_view is not None:
                diff_view.load(message.reread)
        if outcome.conflicts:
            self.app.push_screen(
                ConfirmModal(
                    outcome.text,
                    [f"conflict: {path}" for path in outcome.conflicts],
                    conflicts=list(outcome.conflicts),
                )
            )
            return
        self.notify(
            outcome.text,
            title=outcome.title,
            severity="information" if outcome.ok else "error",
            markup=False,
        )
