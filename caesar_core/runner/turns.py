"""Follow-up turns (``caesar continue``): a new task that goes on with an ended one.

A follow-up runs the same agent (same model, network and mode) in the same workspace, from the
same frozen ``base_ref``: the worktree is reused, never recreated, so the work of every turn
adds up there and ``caesar diff`` of any turn shows the whole of it. Its brief carries the
previous objective, the reviewer's message, their open comments, the hunks they rejected with
why, and the output of the checks that failed, and the agent's own session is resumed where
its CLI can (else the turn starts fresh and says so in a finding).

The record links the turns: ``continues`` (the previous turn), ``chain`` (the first), ``turn``
(its number), and on the previous one ``continued_by``, claimed under its lock, so one turn
follows another once: the worktree is that later turn's to change. ``turn_base``, the tree of
the workspace when a turn starts (the previous turn's work as the reviewer left it), is what
``caesar diff --since-previous`` compares with; the end of a turn is the next one's
``turn_base``, or the workspace itself for the last one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from caesar_core.agents.base import Adapter
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git.changes import Snapshot, TreeDiff
from caesar_core.git.snapshot_by_git import snapshot
from caesar_core.protocol.report import Finding
from caesar_core.protocol.task import (
    FollowUp,
    FollowUpCheck,
    FollowUpComment,
    FollowUpHunk,
    Isolation,
)
from caesar_core.review.followup import failed_checks, rejected_hunks
from caesar_core.runner.delegation import NetworkChoice, Request
from caesar_core.runner.resume import fresh_session
from caesar_core.runner.sweep import sweep_one
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore, UnknownTaskError

REVIEW_BUDGET = 60_000
"""Characters of review material (comments, hunks, check output) a brief carries at most: the
brief is one command-line argument, and Linux refuses one past 128 KiB."""


class ContinueRefused(CaesarError):
    """The task cannot be continued as asked; nothing was written."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class Continuation:
    """A follow-up decided: the turn it continues and what its brief will carry."""

    previous: TaskRecord
    first_turn: str
    first_objective: str
    message: str
    comments: Sequence[FollowUpComment] = ()

    @property
    def turn(self) -> int:
        return self.previous.turn + 1

    @property
    def objective(self) -> str:
        return self.message.strip() or (
            f"Continue the work of turn {self.previous.turn} and answer its review."
        )

    @property
    def workspace(self) -> Path:
        """Where the first turn was asked from (the user's tree): decisions are made there."""
        return Path(self.previous.source_workspace or self.previous.workspace)

    def request(self, timeout_ms: int | None = None) -> Request:
        """The previous turn's request, as its record has it, with this turn's objective."""
        previous = self.previous
        return Request(
            objective=self.objective,
            agent=previous.agent,
            role=previous.role,
            mode=previous.mode,
            isolation="inplace" if previous.isolation is Isolation.INPLACE else "worktree",
            network=_NETWORK.get(previous.network_asked),
            timeout_ms=timeout_ms or previous.deadline_ms,
            model=previous.model,
            channel=previous.report_tier == "channel",
        )

    def followup(self) -> FollowUp:
        """What the task file and the brief say about this turn, within ``REVIEW_BUDGET``."""
        budget = _Budget(REVIEW_BUDGET)
        comments = [c for c in self.comments if budget.take(_size_of_comment(c))]
        hunks = [h for h in rejected_hunks(self.previous) if budget.take(_size_of_hunk(h))]
        checks = [c for c in failed_checks(self.previous) if budget.take(_size_of_check(c))]
        return FollowUp(
            continues=self.previous.id,
            first_turn=self.first_turn,
            turn=self.turn,
            first_objective=self.first_objective,
            previous_objective=self.previous.objective,
            message=self.message.strip(),
            comments=comments,
            rejected_hunks=hunks,
            failed_checks=checks,
            omitted=budget.refused,
        )

    def record_fields(self) -> dict[str, object]:
        """What the new record takes from the previous one: the chain and the workspace."""
        previous = self.previous
        return {
            "continues": previous.id,
            "chain": self.first_turn,
            "turn": self.turn,
            "workspace": previous.workspace,
            "source_workspace": previous.source_workspace,
            "worktree_path": previous.worktree_path,
            "branch": previous.branch,
            "base_ref": previous.base_ref,
            "excluded_paths": list(previous.excluded_paths),
            "start_snapshot": previous.start_snapshot,
        }

    def session_for(self, adapter: Adapter) -> tuple[str | None, Finding | None]:
        """The session to resume, or None and the finding that says why the turn is fresh."""
        previous = self.previous
        if not adapter.capabilities.resume:
            how = (
                " (declare resume_args and session_from in its [[agent]] entry)"
                if hasattr(adapter, "config")
                else ""
            )
            why = f"{adapter.id} cannot resume a session{how}"
        elif previous.session_id is None:
            why = f"turn {previous.turn} left no session of {adapter.id} to resume"
        else:
            return previous.session_id, None
        return None, fresh_session(f"{why}; this turn started a new one with the full brief.")


def continuation(
    store: TaskStore,
    task_id: str,
    message: str = "",
    *,
    comments: Sequence[FollowUpComment] = (),
) -> Continuation:
    """The follow-up of ``task_id``, or the refusal that says why it cannot be one.

    ``comments`` are the reviewer's open comments; by default those ``caesar comment`` left
    (``review.comments``), each with its code as it is now."""
    previous, _ = sweep_one(store, store.get(task_id))  # an abandoned task concluded first
    refuse_unless_continuable(previous)
    if not comments:
        from caesar_core.review.comments import followup_comments

        comments = followup_comments(store, previous)
    first_turn = previous.chain or previous.id
    first_objective = previous.objective
    if previous.chain:
        # The first turn's record gone or broken: the previous objective stands.
        with contextlib.suppress(CaesarError, OSError):
            first_objective = store.get(previous.chain).objective
    return Continuation(previous, first_turn, first_objective, message, tuple(comments))


def refuse_unless_continuable(record: TaskRecord) -> None:
    """A turn can be continued once it ended, while its workspace is there, and only once."""
    task = record.id
    new_task = f"start a new task instead: caesar run OBJECTIVE --agent {record.agent}"
    if not record.status.terminal:
        raise ContinueRefused(
            f"task {task} is still {record.status.value}",
            f"wait for its end (caesar logs {task} --follow) or cancel it (caesar cancel "
            f"{task}), then continue it",
        )
    if record.continued_by:
        raise ContinueRefused(
            f"task {task} was already continued by {record.continued_by}",
            f"continue the latest turn of the chain (see caesar ps): caesar continue "
            f"{record.continued_by}",
        )
    if record.discarded_at is not None:
        how = (
            "its work was applied and its worktree removed"
            if record.applied_digest
            else ("its worktree was discarded")
        )
        raise ContinueRefused(f"task {task} cannot be continued: {how}", new_task)
    if record.isolation is Isolation.WORKTREE and not (
        record.worktree_path and Path(record.worktree_path).is_dir()
    ):
        raise ContinueRefused(
            f"task {task} cannot be continued: its worktree {record.worktree_path} is gone",
            new_task,
        )
    if not Path(record.workspace).is_dir():
        raise ContinueRefused(
            f"task {task} cannot be continued: its workspace {record.workspace} is gone",
            new_task,
        )


def claim(store: TaskStore, previous_id: str, turn_id: str) -> None:
    """Name ``turn_id`` as the one turn that continues ``previous_id``, under its lock: of two
    follow-ups asked at once, one wins and the other is refused."""

    def change(record: TaskRecord) -> TaskRecord:
        refuse_unless_continuable(record)
        return record.model_copy(update={"continued_by": turn_id})

    store.update(previous_id, change)


def release(store: TaskStore, previous_id: str, turn_id: str) -> None:
    """Undo :func:`claim` when the new turn could not even be recorded."""

    def change(record: TaskRecord) -> TaskRecord:
        if record.continued_by != turn_id:
            return record
        return record.model_copy(update={"continued_by": None})

    store.update(previous_id, change)


def turn_base(record: TaskRecord) -> str | None:
    """The tree of the workspace now (its laid-down paths left out), when git can tell."""
    if record.worktree_path or record.start_snapshot:
        return snapshot(Path(record.workspace), exclude=record.excluded_paths).tree
    return None


# -- --since-previous ----------------------------------------------------------------------


def since_previous(store: TaskStore, record: TaskRecord, *, with_patch: bool = False) -> TreeDiff:
    """What this turn alone changed: from its ``turn_base`` to the next turn's, or to the
    workspace now when it is the latest turn."""
    if record.continues is None:
        raise ContinueRefused(
            f"task {record.id} is the first turn of its task: there is no previous turn",
            f"see all of its work: caesar diff {record.id}",
        )
    if record.turn_base is None:
        raise ContinueRefused(
            f"task {record.id} ran outside git: caesar cannot tell what this turn changed",
            "see its report's changes: caesar logs " + record.id,
        )
    workspace = Path(record.workspace)
    if not workspace.is_dir():
        raise ContinueRefused(
            f"task {record.id}'s workspace {record.workspace} is gone", "nothing left to show"
        )
    from caesar_core.git.diff import (  # loads pygit2: only this question needs git.diff
        changes_between,
        changes_between_snapshots,
    )

    start = Snapshot(record.turn_base)
    later = _next_turn(store, record)
    if later is not None and later.turn_base is not None:
        return changes_between_snapshots(
            workspace, start, Snapshot(later.turn_base), with_patch=with_patch
        )
    return changes_between(workspace, start, exclude=record.excluded_paths, with_patch=with_patch)


def _next_turn(store: TaskStore, record: TaskRecord) -> TaskRecord | None:
    if not record.continued_by:
        return None
    try:
        return store.get(record.continued_by)
    except UnknownTaskError:
        return None  # claimed by a turn that never got recorded: this one is the latest


@dataclass
class _Budget:
    left: int
    refused: int = 0

    def take(self, size: int) -> bool:
        if size > self.left:
            self.refused += 1
            return False
        self.left -= size
        return True


def _size_of_comment(comment: FollowUpComment) -> int:
    return len(comment.path) + len(comment.text) + sum(len(line) + 3 for line in comment.code)


def _size_of_hunk(hunk: FollowUpHunk) -> int:
    return (
        len(hunk.path) + len(hunk.header) + len(hunk.reason) + sum(len(x) + 3 for x in hunk.lines)
    )


def _size_of_check(check: FollowUpCheck) -> int:
    return len(check.command) + len(check.outcome) + len(check.output)


_NETWORK: dict[str | None, NetworkChoice] = {"auto": "auto", "on": "on", "off": "off"}
