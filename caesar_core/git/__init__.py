"""The git layer: worktrees for tasks, reconciliation of what they changed, and apply.

It runs on pygit2 (libgit2), and on the ``git`` program where that spares a ``caesar run``
loading libgit2 (``program``: git run pinned so nothing of an agent's choosing runs;
``repo_by_git``, ``worktree_by_git``, ``snapshot_by_git``, ``viagit``: the same answers by
git, pygit2 when git cannot). Modules, one job each: ``errors`` (``GitError`` and its
kinds), ``branches`` (task branch names, lock reasons), ``repo`` (opening repositories),
``worktree`` (create, remove, list),
``checkout`` (filling a new worktree fast), ``filters`` (when content filters are no-ops),
``content`` (the tree of a working directory's content, built without touching its index),
``diff`` (changes since a base commit or a snapshot), ``hunks`` (a file's patch as hunks),
``select`` (the files and tree a hunk selection leaves), ``apply`` (three-way merge into the
main working tree), ``writeout`` (writing the merge's files).

Each name loads with its module on first use (:mod:`caesar_core.lazy`): a task's run reads
its diff without loading the apply machinery.
"""

from __future__ import annotations

from caesar_core.lazy import exports

TYPE_CHECKING = False  # typing costs ~4 ms, before caesar diff --json starts git

if TYPE_CHECKING:
    from caesar_core.git.apply import (
        ApplyResult,
        apply_changes,
        unapplied_changes,
        unapplied_work,
    )
    from caesar_core.git.branches import branch_name, task_lock_reason
    from caesar_core.git.changes import (
        FileChange,
        PatchSpan,
        Snapshot,
        TreeDiff,
        as_unicode,
        assemble,
        link_leaves_repository,
        patch_digest,
    )
    from caesar_core.git.diff import (
        changes_between,
        changes_between_snapshots,
        changes_since,
    )
    from caesar_core.git.errors import (
        DamagedWorktreeError,
        GitError,
        LocalChangesError,
        OutsideLinksError,
    )
    from caesar_core.git.repo import is_ignored
    from caesar_core.git.repo_by_git import find_repository, head_commit
    from caesar_core.git.snapshot_by_git import snapshot
    from caesar_core.git.worktree import (
        WorktreeInfo,
        list_worktrees,
        lock_worktree,
        remove_worktree,
    )
    from caesar_core.git.worktree_by_git import create_worktree

_HOMES = {
    "caesar_core.git.apply": (
        "ApplyResult",
        "apply_changes",
        "unapplied_changes",
        "unapplied_work",
    ),
    "caesar_core.git.changes": (
        "FileChange",
        "PatchSpan",
        "Snapshot",
        "TreeDiff",
        "as_unicode",
        "assemble",
        "link_leaves_repository",
        "patch_digest",
    ),
    "caesar_core.git.diff": (
        "changes_between",
        "changes_between_snapshots",
        "changes_since",
    ),
    "caesar_core.git.branches": ("branch_name", "task_lock_reason"),
    "caesar_core.git.errors": (
        "DamagedWorktreeError",
        "GitError",
        "LocalChangesError",
        "OutsideLinksError",
    ),
    "caesar_core.git.repo": ("is_ignored",),
    "caesar_core.git.repo_by_git": ("find_repository", "head_commit"),
    "caesar_core.git.worktree": (
        "WorktreeInfo",
        "list_worktrees",
        "lock_worktree",
        "remove_worktree",
    ),
    "caesar_core.git.snapshot_by_git": ("snapshot",),
    "caesar_core.git.worktree_by_git": ("create_worktree",),
}
__getattr__ = exports(__name__, _HOMES)

__all__ = [
    "ApplyResult",
    "DamagedWorktreeError",
    "FileChange",
    "GitError",
    "LocalChangesError",
    "OutsideLinksError",
    "PatchSpan",
    "Snapshot",
    "TreeDiff",
    "WorktreeInfo",
    "apply_changes",
    "as_unicode",
    "assemble",
    "branch_name",
    "changes_between",
    "changes_between_snapshots",
    "changes_since",
    "create_worktree",
    "find_repository",
    "head_commit",
    "is_ignored",
    "link_leaves_repository",
    "list_worktrees",
    "lock_worktree",
    "patch_digest",
    "remove_worktree",
    "snapshot",
    "task_lock_reason",
    "unapplied_changes",
    "unapplied_work",
]
