"""After the run: a task's diff, applying it to your tree, discarding it, collecting worktrees.

Every diff is recomputed against the task's frozen ``base_ref`` with its laid-down paths left
out, so ``caesar diff`` a week later shows what the agent did, committed or not. No worktree
whose branch holds work that was not applied is ever removed without ``--force``: the
reference implementation judged "clean" by ``git status`` and deleted committed work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git import (
    ApplyResult,
    Snapshot,
    TreeDiff,
    apply_changes,
    changes_between,
    changes_since,
    find_repository,
    list_worktrees,
    remove_worktree,
    unapplied_work,
)
from caesar_core.runner.sweep import abandoned
from caesar_core.store.record import TaskRecord
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


def task_diff(record: TaskRecord, *, with_patch: bool = False) -> TreeDiff | None:
    """What the task changed, recomputed now; None when there is no git to ask."""
    if record.worktree_path and record.base_ref and Path(record.worktree_path).is_dir():
        return changes_since(
            Path(record.worktree_path),
            record.base_ref,
            exclude=record.excluded_paths,
            with_patch=with_patch,
        )
    if record.start_snapshot:
        return changes_between(
            Path(record.workspace),
            Snapshot(record.start_snapshot),
            exclude=record.excluded_paths,
            with_patch=with_patch,
        )
    return None


def apply(store: TaskStore, record: TaskRecord, paths: Sequence[str] | None = None) -> ApplyResult:
    """Bring a worktree task's changes into the main working tree, three-way, uncommitted."""
    worktree = _worktree(record, "apply")
    repo = _main_repository(record)
    assert record.base_ref is not None
    result = apply_changes(
        repo, worktree, record.base_ref, paths=paths, exclude=record.excluded_paths
    )
    if result.applied and result.files:
        store.set(record.id, applied_at=datetime.now(UTC), applied_digest=result.digest)
    return result


def discard(store: TaskStore, record: TaskRecord, *, force: bool = False) -> None:
    """Remove a task's worktree and branch; refuses unapplied work unless forced."""
    worktree = _worktree(record, "discard")
    repo = _main_repository(record)
    if not record.status.terminal and not abandoned(record):
        raise CaesarError(
            f"task {record.id} is still {record.status.value}",
            f"cancel it first: caesar cancel {record.id}",
            exit_code=ExitCode.USAGE,
        )
    if not force and _holds_unapplied_work(repo, worktree, record):
        raise CaesarError(
            f"task {record.id} holds changes that were never applied",
            f"review them with `caesar diff {record.id}`, apply them with `caesar apply "
            f"{record.id}`, or pass --force to throw them away",
            exit_code=ExitCode.FAILURE,
        )
    remove_worktree(repo, worktree, record.branch)
    store.set(record.id, discarded_at=datetime.now(UTC))


@dataclass(frozen=True)
class Collected:
    path: str
    task_id: str | None
    decision: str
    """``removed``, ``kept`` or ``would remove`` (dry run)."""
    reason: str


def gc(store: TaskStore, *, dry_run: bool = False, force: bool = False) -> list[Collected]:
    """Remove the worktrees of ended tasks, keeping any that hold unapplied work.

    Each task is decided on its own: one whose worktree or record cannot be judged is kept,
    with the reason, and the others are collected all the same.
    """
    decisions: list[Collected] = []
    listing = store.list()
    for unreadable, problem in listing.problems:
        decisions.append(
            Collected(str(unreadable), unreadable.stem, "kept", f"unreadable record: {problem}")
        )
    repo = find_repository(store.root)
    known_paths: set[str] = set()
    for record in listing.records:
        if not record.worktree_path or not Path(record.worktree_path).is_dir():
            continue
        known_paths.add(str(Path(record.worktree_path).resolve()))
        try:
            decisions.append(_collect(store, record, dry_run=dry_run, force=force))
        except Exception as error:  # one broken task never stops the collection of the others
            why = error.reason if isinstance(error, CaesarError) else f"{type(error).__name__}"
            detail = "" if isinstance(error, CaesarError) else f": {error}"
            decisions.append(
                Collected(record.worktree_path, record.id, "kept", f"broken: {why}{detail}")
            )
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
    """What ``gc`` does with one task's worktree."""
    assert record.worktree_path is not None
    worktree = Path(record.worktree_path)
    repo_root = _main_repository(record)
    if not record.status.terminal and not abandoned(record):
        return Collected(record.worktree_path, record.id, "kept", "still running")
    unapplied = _holds_unapplied_work(repo_root, worktree, record)
    if unapplied and not force:
        return Collected(
            record.worktree_path,
            record.id,
            "kept",
            f"holds unapplied work: caesar apply {record.id} (or gc --force)",
        )
    reason = "applied" if record.applied_digest else "no changes"
    if unapplied:
        reason = "forced: unapplied work discarded"
    if dry_run:
        return Collected(record.worktree_path, record.id, "would remove", reason)
    remove_worktree(repo_root, worktree, record.branch)
    store.set(record.id, discarded_at=datetime.now(UTC))
    return Collected(record.worktree_path, record.id, "removed", reason)


def _holds_unapplied_work(repo: Path, worktree: Path, record: TaskRecord) -> bool:
    assert record.base_ref is not None
    return unapplied_work(
        repo, worktree, record.base_ref, record.applied_digest, exclude=record.excluded_paths
    )


def _worktree(record: TaskRecord, what: str) -> Path:
    if not record.worktree_path or not record.base_ref or not Path(record.worktree_path).is_dir():
        raise NoWorktreeError(record, what)
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
