"""What a person asks of a task from ``caesar watch``, carried out: answer a question, allow or
deny a held tool call, apply, cancel, discard.

:class:`TaskActions` is the app's controller for these: it asks for a confirmation where the
step cannot be undone, writes in a thread worker (group ``act``) through caesar_core exactly
as the CLI does, and notifies the outcome. The app keeps the bindings and routes its
``action_*`` methods and messages here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from caesar_core.errors import CaesarError
from caesar_core.protocol.approvals import ApprovalDecision
from caesar_core.runner import control, worktrees
from caesar_core.store.approvals import answer_approval
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore
from caesar_tui.messages import ApplyDone
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.widgets.diff_view import DiffView
from caesar_tui.widgets.questions import QuestionsPane

if TYPE_CHECKING:
    from caesar_tui.app import CaesarApp


class TaskActions:
    """The writes of one app; every method runs on the app's thread except the workers'."""

    def __init__(self, app: CaesarApp) -> None:
        self.app = app

    def _work(self, name: str, write: Callable[[], None]) -> None:
        """Like ``@work(thread=True, group="act", exit_on_error=False)`` on the app."""
        self.app.run_worker(write, name=name, group="act", exit_on_error=False, thread=True)

    @property
    def _store(self) -> TaskStore:
        return self.app.source.monitor.store

    # -- questions and held tool calls -------------------------------------------------------

    def answer(self, task_id: str, question_id: str, answer: str) -> None:
        self._work("write_answer", partial(self._write_answer, task_id, question_id, answer))

    def _write_answer(self, task_id: str, question_id: str, answer: str) -> None:
        app = self.app
        try:
            control.answer(self._store, task_id, question_id, answer, by="watch")
            app.call_from_thread(app.notify, f"answered: {answer}", title=question_id)
        except CaesarError as error:
            app.call_from_thread(app.notify, str(error), title="Answer", severity="error")
            app.call_from_thread(app._main(QuestionsPane).reopen, question_id)

    def decide(self, task_id: str, approval_id: str, decision: ApprovalDecision) -> None:
        self._work("write_decision", partial(self._write_decision, task_id, approval_id, decision))

    def _write_decision(self, task_id: str, approval_id: str, decision: ApprovalDecision) -> None:
        """Like ``caesar approve``: the first answer wins (a person, or the bridge's timeout)."""
        app = self.app
        try:
            task_dir = self._store.paths(task_id).root
            answer_approval(task_dir, approval_id, decision, by="watch")
            done = "allowed" if decision == "allow" else "denied"
            app.call_from_thread(app.notify, done, title=approval_id)
        except CaesarError as error:
            app.call_from_thread(app.notify, str(error), title="Approval", severity="error")
            app.call_from_thread(app._main(QuestionsPane).reopen_approval, approval_id)

    # -- the task's worktree and process -----------------------------------------------------

    def apply(self, record: TaskRecord | None) -> None:
        app = self.app
        if record is None:
            return
        if not record.worktree_path:
            app.notify("this task ran in place: its changes are already in your tree")
            return
        diff_view = app._main(DiffView)
        paths: list[str] | None = None
        if diff_view.task_id == record.id and diff_view.diff is not None:
            if not diff_view.selected_paths:
                app.notify("no file selected in the Diff tab (space toggles, a selects all)")
                return
            if not diff_view.all_selected:
                paths = diff_view.selected_paths
        body = paths if paths is not None else ["every file of the task's diff"]

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._work("apply_task", partial(self._apply_task, record, paths))

        app.push_screen(
            ConfirmModal(f"Apply {record.id[2:10]} to your working tree?", body), decided
        )

    def _apply_task(self, record: TaskRecord, paths: list[str] | None) -> None:
        try:
            result = worktrees.apply(self._store, record, paths)
            self.app.post_message(ApplyDone(record.id, result))
        except CaesarError as error:
            self.app.post_message(ApplyDone(record.id, None, str(error)))

    def applied(self, message: ApplyDone) -> None:
        app = self.app
        result = message.result
        if result is None:
            app.notify(message.error or "apply failed", title="Apply", severity="error")
        elif result.applied:
            app.notify(f"applied {len(result.files)} file(s), not committed", title="Apply")
        else:
            app.push_screen(
                ConfirmModal(
                    "Conflicts: nothing was applied",
                    [f"conflict: {path}" for path in result.conflicts],
                    conflicts=result.conflicts,
                )
            )

    def cancel(self, record: TaskRecord | None) -> None:
        if record is None or record.status.terminal:
            self.app.notify("the selected task has already ended")
            return

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._work("cancel_task", partial(self._cancel_task, record.id))

        self.app.push_screen(
            ConfirmModal(f"Cancel {record.id[2:10]}?", [record.objective]), decided
        )

    def _cancel_task(self, task_id: str) -> None:
        try:
            control.cancel(self._store, task_id, by="watch")
        except CaesarError as error:
            app = self.app
            app.call_from_thread(app.notify, str(error), title="Cancel", severity="error")

    def discard(self, record: TaskRecord | None) -> None:
        if record is None or not record.worktree_path:
            self.app.notify("the selected task has no worktree to discard")
            return

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._work("discard_task", partial(self._discard_task, record))

        self.app.push_screen(
            ConfirmModal(
                f"Discard the worktree of {record.id[2:10]}?",
                [record.worktree_path, "work never applied is kept: use `caesar discard --force`"],
            ),
            decided,
        )

    def _discard_task(self, record: TaskRecord) -> None:
        app = self.app
        try:
            worktrees.discard(self._store, record)
            app.call_from_thread(app.notify, "worktree discarded", title=record.id[2:10])
        except CaesarError as error:
            app.call_from_thread(app.notify, str(error), title="Discard", severity="error")
