"""After the run: applying a task's diff to your tree, discarding it, collecting worktrees.

The diff itself is ``taskdiff`` (re-exported here): recomputed against the task's frozen
``base_ref``, so what is applied is what ``caesar diff`` showed. No worktree
whose branch holds work that was not applied is ever removed without ``--force``: the
reference implementation judged "clean" by ``git status`` and deleted committed work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git import (
    ApplyResult,
    DamagedWorktreeError,
    GitError,
    apply_changes,
    find_repository,
    list_worktrees,
    lock_worktree,
    remove_worktree,
    task_lock_reason,
    unapplied_changes,
)
from caesar_core.git.repo import open_repository
from caesar_core.review.hunks import Pick, resolve
from caesar_core.review.revert import revert
from caesar_core.runner.sweep import abandoned
from caesar_core.runner.taskdiff import UnknownBaseError, inspecting, task_diff
from caesar_core.store.record import TaskRecord, applied_hunk, rejected_hunk
from caesar_core.store.store import TaskStore


class NoWorktreeError(CaesarError):
    exit_code = ExitCode.USAGE

    def __init__(self, record: TaskRecord, what: str) -> None:
        if record.discarded_at is not None:
            why, remedy = "it was discarded", "nothing left to do for this task"
        else:
            why = f"{record.isolation.value} isolation"
            remedy = "an in-place task changed your tree directly; see `git diff` there"
        super().__init__(f"task {record.id} has no worktree to {what} ({why})", remedy)


def apply_json(task_id: str, result: ApplyResult) -> dict[str, Any]:
    """An apply's outcome as ``caesar apply --json`` and the MCP ``caesar_apply`` return it."""
    return {"task_id": task_id, **result.to_json()}


def apply(
    store: TaskStore,
    record: TaskRecord,
    paths: Sequence[str] | None = None,
    *,
    picks: Sequence[Pick] | None = None,
    allow_outside_links: bool = False,
) -> ApplyResult:
    """Bring a worktree task's changes into the main working tree, three-way, uncommitted.

    ``picks`` takes only those hunks (or changed lines of them); the record keeps each hunk
    taken (id, digest, lines), so the rest can be applied later and ``gc`` counts what is
    left. Symbolic links pointing out of the repository are refused unless
    ``allow_outside_links``.
    """
    worktree = _worktree(record, "apply")
    repo = _main_repository(record)
    assert record.base_ref is not None
    with inspecting(record):
        result = apply_changes(
            repo,
            worktree,
            record.base_ref,
            paths=paths,
            exclude=record.excluded_paths,
            allow_outside_links=allow_outside_links,
            picks=picks,
            applied=record.taken,
        )
    now = datetime.now(UTC)
    if result.applied and picks is not None and result.picked:
        taken = [applied_hunk(hunk, lines, now) for hunk, lines in result.picked]
        store.update(
            record.id,
            lambda r: r.model_copy(
                update={"applied_at": now, "applied_hunks": [*r.applied_hunks, *taken]}
            ),
        )
    elif result.applied and picks is None and result.files:
        store.set(record.id, applied_at=now, applied_digest=result.digest)
    return result


@dataclass(frozen=True)
class RejectResult:
    """The outcome of :func:`reject`: the hunks reverted out of the task's worktree (as
    picks), the worktree's paths written or removed, and the reason recorded."""

    hunks: list[str]
    files: list[str]
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The outcome as ``caesar reject --json`` and the MCP ``caesar_reject`` return it."""
        return {"rejected": True, "hunks": self.hunks, "files": self.files, "reason": self.reason}


def reject(
    store: TaskStore, record: TaskRecord, picks: Sequence[Pick], *, reason: str = ""
) -> RejectResult:
    """Revert ``picks`` out of the task's worktree and record them rejected, with ``reason``.

    They leave the task's diff; the record keeps their lines for a follow-up turn. A task
    still running is refused (its agent writes the same files).
    """
    worktree = _worktree(record, "reject hunks from")
    if not record.status.terminal and not abandoned(record):
        raise CaesarError(
            f"task {record.id} is still {record.status.value}: its agent may be writing the "
            "files the hunks are in",
            f"wait for it to finish, or cancel it first: caesar cancel {record.id}",
            exit_code=ExitCode.USAGE,
        )
    diff = task_diff(record, with_patch=True)
    assert diff is not None  # a worktree task always has git to ask
    hunks = [hunk for change in diff.files for hunk in change.hunks]
    selection = resolve(picks, hunks)
    with inspecting(record):
        written = revert(worktree, open_repository(worktree), diff.files, selection)
    now = datetime.now(UTC)
    chosen = [hunk for hunk in hunks if selection.has(hunk)]
    entries = [rejected_hunk(hunk, selection.of(hunk), reason, now) for hunk in chosen]
    store.update(
        record.id,
        lambda r: r.model_copy(update={"rejected_hunks": [*r.rejected_hunks, *entries]}),
    )
    return RejectResult([str(pick) for pick in selection.picks(chosen)], written, reason)


def reject_json(task_id: str, result: RejectResult) -> dict[str, Any]:
    """A reject's outcome as ``caesar reject --json`` and the MCP ``caesar_reject`` return it."""
    return {"task_id": task_id, **result.to_json()}


def discard(store: TaskStore, record: TaskRecord, *, force: bool = False) -> None:
    """Remove a task's worktree and branch; refuses unapplied work unless forced. The turns
    of a task share one worktree: only the latest may discard it, for all of them."""
    if record.continued_by:
        raise CaesarError(
            f"task {record.id} was continued by {record.continued_by}: its worktree is that "
            "turn's now",
            f"discard the latest turn of the chain (see caesar ps): caesar discard "
            f"{record.continued_by}",
            exit_code=ExitCode.USAGE,
        )
    worktree = _worktree(record, "discard")
    repo = _main_repository(record)
    if not record.status.terminal and not abandoned(record):
        raise CaesarError(
            f"task {record.id} is still {record.status.value}",
            f"cancel it first: caesar cancel {record.id}",
            exit_code=ExitCode.USAGE,
        )
    try:
        unapplied = not force and _holds_unapplied_work(repo, worktree, record)
    except GitError as error:
        raise CaesarError(
            f"task {record.id}'s worktree cannot be inspected, so caesar cannot tell whether it "
            f"holds unapplied work: {error.reason}",
            f"{error.remedy}, then discard again; or throw it away as it is: "
            f"caesar discard {record.id} --force",
            exit_code=ExitCode.FAILURE,
        ) from None
    if unapplied:
        raise CaesarError(
            f"task {record.id} holds changes that were never applied",
            f"review them with `caesar diff {record.id}`, apply them with `caesar apply "
            f"{record.id}`, or pass --force to throw them away",
            exit_code=ExitCode.FAILURE,
        )
    remove_worktree(repo, worktree, record.branch)
    _discarded(store, record)


@dataclass(frozen=True)
class Collected:
    path: str
    task_id: str | None
    decision: str
    """``removed``, ``kept`` or ``would remove`` (dry run)."""
    reason: str


def gc(store: TaskStore, *, dry_run: bool = False, force: bool = False) -> list[Collected]:
    """Remove the worktrees of ended tasks, keeping any that hold unapplied work.

    Each task is decided on its own: one whose record or worktree cannot be read is kept, with
    the reason, and the others are collected all the same.
    """
    decisions: list[Collected] = []
    listing = store.list()
    for unreadable, problem in listing.problems:
        decisions.append(
            Collected(str(unreadable), unreadable.stem, "kept", f"unreadable record: {problem}")
        )
    records = {r.id: r for r in listing.records}
    repo = find_repository(store.root)
    known_paths: set[str] = set()
    # The turns of a task share one worktree: the latest turn (never continued) decides.
    for record in (r for r in records.values() if not r.continued_by):
        if not record.worktree_path or not Path(record.worktree_path).is_dir():
            continue
        known_paths.add(str(Path(record.worktree_path).resolve()))
        decisions.append(_collect(store, record, dry_run=dry_run, force=force))
    if repo is not None:
        for info in list_worktrees(repo):
            path = str(Path(info.path).resolve())
            inside = Path(path).parent == (store.home / "wt").resolve()
            if not inside or path in known_paths:
                continue
            decisions.append(
                Collected(path, None, "kept", "orphan worktree with no task record; remove by hand")
            )
    return decisions


def _collect(store: TaskStore, record: TaskRecord, *, dry_run: bool, force: bool) -> Collected:
    """``gc``'s decision on one task's worktree, carried out (unless ``dry_run``)."""
    assert record.worktree_path is not None
    path = record.worktree_path
    if not record.status.terminal and not abandoned(record):
        return Collected(path, record.id, "kept", "still running")
    if not record.base_ref:
        why = "no known base commit (record and task.json name none): kept; remove by hand"
        return Collected(path, record.id, "kept", why)
    # One task's broken worktree is kept and said so; the others are still collected.
    try:
        repo_root = _main_repository(record)
    except CaesarError as error:
        return Collected(path, record.id, "kept", error.reason)
    try:
        unapplied = _holds_unapplied_work(repo_root, Path(path), record)
    except GitError as error:
        if not force:
            damaged = isinstance(error, DamagedWorktreeError)
            cause = "its git index is damaged" if damaged else error.reason
            why = f"cannot be inspected ({cause}): caesar discard {record.id} --force"
            return Collected(path, record.id, "kept", why)
        unapplied = True
    if not force and unapplied:
        # A worktree made before caesar locked them is locked now, so that the reference's
        # gc (which judges by `git status`, blind to commits) cannot remove committed work.
        if not dry_run:
            with contextlib.suppress(GitError, OSError):
                lock_worktree(repo_root, Path(path), task_lock_reason(record.id))
        why = f"holds unapplied work: caesar apply {record.id} (or gc --force)"
        return Collected(path, record.id, "kept", why)
    reason = "applied" if record.applied_digest or record.applied_hunks else "no changes"
    if force and unapplied:
        reason = "forced: unapplied work discarded"
    if dry_run:
        return Collected(path, record.id, "would remove", reason)
    try:
        remove_worktree(repo_root, Path(path), record.branch)
    except GitError as error:
        return Collected(path, record.id, "kept", f"not removed: {error.reason}")
    _discarded(store, record)
    return Collected(path, record.id, "removed", reason)


def _discarded(store: TaskStore, record: TaskRecord) -> None:
    """The worktree of ``record`` is gone: so it is for every earlier turn that shared it."""
    now = datetime.now(UTC)
    store.set(record.id, discarded_at=now)
    seen = {record.id}
    earlier = record.continues
    while earlier and earlier not in seen:  # a hand-edited cycle ends the walk
        seen.add(earlier)
        try:
            turn = store.get(earlier)
        except CaesarError:
            return  # a turn whose record is gone: the ones before it are not reachable
        if turn.worktree_path != record.worktree_path:
            return
        store.set(earlier, discarded_at=now)
        earlier = turn.continues


def _holds_unapplied_work(repo: Path, worktree: Path, record: TaskRecord) -> bool:
    """Whether the worktree holds work never applied; ``GitError`` when it cannot be told."""
    assert record.base_ref is not None
    return unapplied_changes(
        repo,
        worktree,
        record.base_ref,
        record.applied_digest,
        exclude=record.excluded_paths,
        settled=record.settled,
    )


def _worktree(record: TaskRecord, what: str) -> Path:
    if not record.worktree_path or not Path(record.worktree_path).is_dir():
        raise NoWorktreeError(record, what)
    if not record.base_ref:
        raise UnknownBaseError(record)
    return Path(record.worktree_path)


def _main_repository(record: TaskRecord) -> Path:
    source = Path(record.source_workspace or record.workspace)
    repo = find_repository(source)
    if repo is None:
        raise CaesarError(
            f"the workspace {source} of task {record.id} is no longer a git repository",
            "restore it, or remove the worktree by hand",
        )
    return repo
