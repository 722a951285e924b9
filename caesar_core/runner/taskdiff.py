"""A task's diff, recomputed now: what ``caesar diff`` shows and ``apply`` starts from.

Every diff is recomputed against the task's frozen ``base_ref`` with its laid-down paths left
out, so ``caesar diff`` a week later shows what the agent did, committed or not. This module
needs the reconciliation alone (``git.diff``), not the merge machinery: ``caesar diff`` imports
nothing else of the git layer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git.errors import DamagedWorktreeError

TYPE_CHECKING = False  # typing costs ~4 ms, before caesar diff --json starts git
if TYPE_CHECKING:
    from typing import Any

    from caesar_core.git.changes import TreeDiff
    from caesar_core.git.staging import Staging
    from caesar_core.store.diffsource import DiffSource
    from caesar_core.store.record import TaskRecord


class GitCannotTellError(Exception):
    """``task_diff(..., pygit2=False)``: git cannot tell this diff, pygit2 would have to."""


@contextmanager
def inspecting(record: TaskRecord | DiffSource) -> Iterator[None]:
    """A damaged worktree's refusal, with the way to throw that task's worktree away."""
    try:
        yield
    except DamagedWorktreeError as error:
        raise DamagedWorktreeError(
            error.reason,
            f"{error.remedy}; or throw the worktree away: caesar discard {record.id} --force",
        ) from None


class UnknownBaseError(CaesarError):
    """A worktree task whose base commit nobody recorded: its diff cannot be told."""

    exit_code = ExitCode.FAILURE

    def __init__(self, record: TaskRecord | DiffSource) -> None:
        super().__init__(
            f"task {record.id} has a worktree ({record.worktree_path}) but no known base "
            "commit: its record names none, and its task.json no full commit id as base_ref",
            f"see what its branch holds with `git -C {record.worktree_path} log`; "
            "nothing can be diffed or applied without the commit the task started from",
        )


def diff_target(record: TaskRecord | DiffSource) -> tuple[Path, str, str] | None:
    """What a task's diff compares: (the directory, the base, ``commit`` or ``tree``); None
    when nothing can be compared; :class:`UnknownBaseError` for a worktree without a base."""
    if record.worktree_path and not record.base_ref and Path(record.worktree_path).is_dir():
        raise UnknownBaseError(record)
    if record.worktree_path and record.base_ref and Path(record.worktree_path).is_dir():
        return Path(record.worktree_path), record.base_ref, "commit"
    if record.start_snapshot:
        return Path(record.workspace), record.start_snapshot, "tree"
    return None


def start_task_diff(record: TaskRecord | DiffSource) -> Staging | None:
    """The git program's first, longest step of :func:`task_diff` started (``add -A`` of the
    work into a private index), for the caller to pass there once it has done other work;
    None where there is nothing to start (:func:`task_diff` then says why, if anything)."""
    from caesar_core.git.staging import begin

    try:
        target = diff_target(record)
    except CaesarError:
        return None
    if target is None:
        return None
    workdir, base, peel = target
    return begin(workdir, base, peel=peel, exclude=record.excluded_paths)


def task_diff(
    record: TaskRecord | DiffSource,
    *,
    with_patch: bool = False,
    pygit2: bool = True,
    started: Staging | None = None,
) -> TreeDiff | None:
    """What the task changed, recomputed now; None when there is no git to ask. Without
    ``pygit2`` (the console script's own answer, which must not load it),
    :class:`GitCannotTellError` where git cannot tell the diff. ``started`` is
    :func:`start_task_diff`'s (taken, and closed, here)."""
    try:
        with inspecting(record):
            target = diff_target(record)
            if target is None:
                return None
            workdir, base, peel = target
            exclude = record.excluded_paths
            given, started = started, None  # taken: closed by what it is given to
            if pygit2:
                from caesar_core.git.recompute import changes

                return changes(
                    workdir, base, peel=peel, exclude=exclude, with_patch=with_patch, started=given
                )
            from caesar_core.git.viagit import changes as changes_by_git

            found = changes_by_git(
                workdir, base, peel=peel, exclude=exclude, with_patch=with_patch, started=given
            )
            if found is None:
                raise GitCannotTellError(workdir)
            return found
    finally:
        if started is not None:
            started.close()


def diff_json(task_id: str, diff: TreeDiff | None) -> dict[str, Any]:
    """A task's diff as ``caesar diff --json`` and the MCP ``caesar_diff`` return it: the
    task's id and ``TreeDiff.to_json``; without git (``diff`` None) no file, ``base`` null."""
    body: dict[str, Any] = (
        diff.to_json()
        if diff is not None
        else {"base": None, "tree": None, "is_empty": True, "files": [], "patch": ""}
    )
    return {"task_id": task_id, **body}
