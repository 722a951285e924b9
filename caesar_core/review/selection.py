"""A task's hunks, and the files a selection of them leaves: what ``caesar check --hunk`` runs
on and what the review screen lists.

``task_hunks`` recomputes the task's diff (``runner.worktrees.task_diff``), so the ids are
those of the worktree as it is now. ``selected_contents`` is the content of each file the
selection touches at the task's base with only the selected changes made (``git.select``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from caesar_core.git.diff import TreeDiff
from caesar_core.git.repo import open_repository
from caesar_core.git.select import FileSide, selected_files
from caesar_core.review.hunks import Hunk, Pick, resolve
from caesar_core.store.record import TaskRecord


def task_hunks(record: TaskRecord) -> list[Hunk]:
    """Every hunk of the task's diff now, file by file in path order (none without git)."""
    from caesar_core.runner.taskdiff import task_diff

    diff = task_diff(record, with_patch=True)
    return [] if diff is None else all_hunks(diff)


def all_hunks(diff: TreeDiff) -> list[Hunk]:
    return [hunk for change in diff.files for hunk in change.hunks]


def selected_sides(record: TaskRecord, picks: Sequence[Pick]) -> list[FileSide]:
    """The files ``picks`` touch as the selection leaves them (blob and mode, or gone).

    Unknown or stale ids, bad ranges: ``SelectionError`` with the current ids.
    """
    from caesar_core.runner.taskdiff import task_diff

    diff = task_diff(record, with_patch=True)
    hunks = [] if diff is None else all_hunks(diff)
    selection = resolve(picks, hunks)
    if diff is None:
        return []
    repo = open_repository(Path(record.worktree_path or record.workspace))
    return selected_files(repo, diff.files, selection)


def selected_contents(record: TaskRecord, picks: Sequence[Pick]) -> dict[str, bytes | None]:
    """Path -> that file's content at ``base_ref`` with only the selected changes made (None:
    the selection deletes it; a rename's old path is None). A symbolic link's content is its
    target (see :func:`selected_sides` for the modes)."""
    sides = selected_sides(record, picks)
    if not sides:
        return {}
    repo = open_repository(Path(record.worktree_path or record.workspace))
    return {side.path: side.content(repo) for side in sides}
