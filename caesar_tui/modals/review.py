"""The confirmations of applying and rejecting a task's work: what it takes, file by file and
hunk by hunk, and what stands against it (caesar's checks failed, or were not run)."""

from __future__ import annotations

from caesar_core.review.checks import apply_warning
from caesar_core.store.ids import short_task_id
from caesar_core.store.record import TaskRecord
from caesar_tui.marks import WARNING
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.review import Choice

REASON_PROMPT = "why (optional; a follow-up turn of the task is told)"


def apply_confirmation(record: TaskRecord, choice: Choice | None) -> ConfirmModal:
    """Applying ``choice`` of ``record``'s diff (None: the whole task, its Diff tab unread)."""
    short = short_task_id(record.id)
    if choice is None:
        title, body = f"Apply {short} to your working tree?", ["every file of its diff"]
    else:
        what = "every hunk" if choice.whole else f"{choice.hunks} hunk(s)"
        title = f"Apply {what} of {choice.files} file(s) of {short} to your tree?"
        body = list(choice.lines)
    warning = apply_warning(record)
    if warning is None:
        return ConfirmModal(title, [*body, "caesar's checks passed"])
    return ConfirmModal(title, body, warnings=[f"{WARNING.glyph} {warning}"])


def reject_confirmation(record: TaskRecord, choice: Choice) -> ConfirmModal:
    """Rejecting ``choice``, with a line to say why (``ConfirmModal.reason``)."""
    return ConfirmModal(
        f"Reject {choice.hunks} hunk(s) of {choice.files} file(s) of {short_task_id(record.id)}?",
        [*choice.lines, "they are reverted in the task's worktree and leave its diff"],
        reason_prompt=REASON_PROMPT,
        confirm_label="reject",
        cancel_label="keep",
    )
