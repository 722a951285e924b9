"""What a person asks of a task from ``caesar watch``, carried out: answer a question, allow
or deny a held tool call, apply (the whole task, or hunks and lines of it), reject hunks,
cancel, discard.

Plain blocking functions, no Textual: the main screen runs each in a thread worker (group
``act``) and shows the :class:`Outcome`. They go through caesar_core exactly as the CLI does.
A refusal (:class:`~caesar_core.errors.CaesarError`: already answered, unknown task, a
conflict) is an outcome; anything else is unexpected and propagates, so the worker fails and
the person is told (:mod:`caesar_tui.workers`). What reaches for git (``worktrees``,
``turns``: pygit2) or the review comments is imported by the action that needs it, not when
the app starts.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from caesar_core.errors import CaesarError
from caesar_core.executable import caesar_command
from caesar_core.protocol.approvals import ApprovalDecision
from caesar_core.review.hunks import Pick
from caesar_core.runner import control
from caesar_core.store.approvals import answer_approval
from caesar_core.store.ids import short_task_id
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore
from caesar_core.terminal import safe_text

BY = "watch"
"""Who answered, as recorded in the answer files."""


@dataclass(frozen=True)
class Outcome:
    """What came of one action, as the notification says it."""

    title: str
    text: str
    ok: bool = True
    conflicts: tuple[str, ...] = ()
    """An apply that found conflicts wrote nothing; these are the paths."""


def answer(store: TaskStore, task_id: str, question_id: str, text: str) -> Outcome:
    try:
        control.answer(store, task_id, question_id, text, by=BY)
    except CaesarError as error:
        return Outcome("Answer", str(error), ok=False)
    return Outcome(question_id, f"answered: {text}")


def decide(store: TaskStore, task_id: str, approval_id: str, decision: ApprovalDecision) -> Outcome:
    """Like ``caesar approve``: the first answer wins (a person, or the bridge's timeout)."""
    try:
        answer_approval(store.paths(task_id).root, approval_id, decision, by=BY)
    except CaesarError as error:
        return Outcome("Approval", str(error), ok=False)
    return Outcome(approval_id, "allowed" if decision == "allow" else "denied")


def apply(store: TaskStore, record: TaskRecord, paths: Sequence[str] | None) -> Outcome:
    """The task's changes (or only ``paths``) into the main working tree, uncommitted."""
    try:
        from caesar_core.runner import worktrees

        result = worktrees.apply(store, record, paths)
    except CaesarError as error:
        return Outcome("Apply", str(error), ok=False)
    if not result.applied:
        return Outcome("Apply", "Conflicts: nothing was applied", False, tuple(result.conflicts))
    return Outcome("Apply", f"applied {len(result.files)} file(s), not committed")


def apply_hunks(store: TaskStore, record: TaskRecord, picks: Sequence[Pick]) -> Outcome:
    """Only the chosen hunks (or lines of them) into the main working tree, uncommitted."""
    try:
        from caesar_core.runner import worktrees

        result = worktrees.apply(store, record, picks=picks)
    except CaesarError as error:
        return Outcome("Apply", str(error), ok=False)
    if not result.applied:
        return Outcome("Apply", "Conflicts: nothing was applied", False, tuple(result.conflicts))
    taken = len(result.picked)
    text = f"applied {taken} hunk(s) to {len(result.written)} file(s), not committed"
    if result.already_hunks:
        text += f"; already in your tree: {', '.join(result.already_hunks)}"
    return Outcome("Apply", text)


def reject(store: TaskStore, record: TaskRecord, picks: Sequence[Pick], reason: str) -> Outcome:
    """Revert the chosen hunks in the task's worktree, recorded as rejected (with ``reason``)."""
    try:
        from caesar_core.runner import worktrees

        result = worktrees.reject(store, record, picks, reason=reason)
    except CaesarError as error:
        return Outcome("Reject", str(error), ok=False)
    hunks = len({pick.split(":")[0] for pick in result.hunks})
    return Outcome("Reject", f"rejected {hunks} hunk(s): reverted in the task's worktree")


def comment(
    store: TaskStore, record: TaskRecord, path: str, start: int, end: int, text: str
) -> Outcome:
    """Like ``caesar comment ID PATH:LINES TEXT``: on lines of the task's diff (new side)."""
    from caesar_core.review import comments  # the comments' models: when first written

    try:
        added = comments.add_comment(store, record, path, start, end, text, author=BY)
    except CaesarError as error:
        return Outcome("Comment", str(error), ok=False)
    lines = f"{start}" if start == end else f"{start}-{end}"
    note = (
        f"; the unreadable comments file was kept as {added.set_aside}" if added.set_aside else ""
    )
    return Outcome("Comment", f"commented on {path}:{lines}{note}")


def resolve_comment(store: TaskStore, record: TaskRecord, comment_id: str) -> Outcome:
    """Like ``caesar comment ID --resolve COMMENT_ID``."""
    from caesar_core.review import comments

    try:
        resolved = comments.resolve_comment(store, record, comment_id)
    except CaesarError as error:
        return Outcome("Comment", str(error), ok=False)
    return Outcome("Comment", f"resolved {resolved.id}")


def cancel(store: TaskStore, task_id: str) -> Outcome:
    try:
        control.cancel(store, task_id, by=BY)
    except CaesarError as error:
        return Outcome("Cancel", str(error), ok=False)
    return Outcome(short_task_id(task_id), "cancelled")


def discard(store: TaskStore, record: TaskRecord) -> Outcome:
    try:
        from caesar_core.runner import worktrees

        worktrees.discard(store, record)
    except CaesarError as error:
        return Outcome("Discard", str(error), ok=False)
    return Outcome(short_task_id(record.id), "worktree discarded")


CONTINUE_STARTED = 15.0
"""Seconds a follow-up's ``caesar continue`` has to record its new turn."""


def request_changes(store: TaskStore, record: TaskRecord, message: str) -> Outcome:
    """A follow-up turn of ``record``, as ``caesar continue ID MESSAGE`` starts it: refused
    at once when the task cannot be continued; else run by a detached ``caesar continue``
    (the app follows it as any task) and its new turn's id awaited."""
    try:
        from caesar_core.runner import turns

        turns.refuse_unless_continuable(store.get(record.id))
    except CaesarError as error:
        return Outcome("Request changes", str(error), ok=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [*caesar_command(), "continue", record.id, message, "--json"],
            cwd=store.root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
        )
        # Reaped when it ends (it follows the turn to its end, as ``caesar continue`` does).
        threading.Thread(target=process.wait, name="caesar-continue", daemon=True).start()
        deadline = time.monotonic() + CONTINUE_STARTED
        while time.monotonic() < deadline:
            continued_by = store.get(record.id).continued_by
            if continued_by:
                return Outcome("Request changes", f"turn {continued_by} started")
            if process.poll() is not None and not store.get(record.id).continued_by:
                errors.seek(0)
                text = errors.read(4000).decode("utf-8", "replace").strip()
                return Outcome("Request changes", safe_text(text, lines=True), ok=False)
            time.sleep(0.05)
    return Outcome("Request changes", "caesar continue has not started the turn yet", ok=False)
