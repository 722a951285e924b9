"""Bringing a task's changes into the main working tree: a three-way merge, files only.

The ancestor is the task's base commit, "ours" the main repository's HEAD now (it may have
moved on since the task started), "theirs" the base plus the task's changes -- all of them, or
only the selected hunks (``picks``; ``git.select``). The merge runs on trees in the object
store; only when it is clean, and only when no file it would touch holds uncommitted work of
the user, are files written. Nothing is committed and the main index is never touched: the user
reviews the result with ``git diff`` and commits it.

Hunks applied earlier (``applied``, as the task's record keeps them) are not the user's work: a
file that holds exactly what the earlier applies left there may be written again, and "theirs"
keeps those hunks for it, so the rest of a task can be applied later, hunk by hunk. A file the
user changed since (or reverted) is the user's again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from caesar_core.errors import ExitCode
from caesar_core.git.content import as_tree, tree_diff
from caesar_core.git.diff import (
    FileChange,
    TreeDiff,
    changes_since,
    patch_digest,
)
from caesar_core.git.repo import (
    GitError,
    LocalChangesError,
    OutsideLinksError,
    open_repository,
    open_root,
    resolve_commit,
    workdir_of,
)
from caesar_core.git.select import FileSide, selected_files, selected_tree
from caesar_core.git.writeout import (
    Write,
    already_there,
    blocked_paths,
    delete,
    plan,
    write_file,
)
from caesar_core.review.hunks import Hunk, Pick, Selection, Taken, recorded, resolve


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """The outcome of ``apply_changes``.

    ``files`` are the paths the task changed (renames at both ends), ``changes`` the same as
    ``changes_since`` reports them, ``written`` the paths actually created, modified or
    deleted in the main working tree (fewer when HEAD already had some of the changes), and
    ``digest`` the ``patch_digest`` of the task's patch: record it to tell later whether
    anything is left unapplied. ``already`` are the paths the working tree already held as
    the merge leaves them (a second apply), so nothing was written there. With a hunk
    selection, ``picked`` holds each hunk taken now with the changed lines taken (what the
    record keeps), and ``already_hunks`` the picks the tree already held from an earlier apply.
    """

    applied: bool
    files: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    digest: str | None = None
    changes: list[FileChange] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    picked: list[tuple[Hunk, frozenset[int]]] = field(default_factory=list)
    already_hunks: list[str] = field(default_factory=list)

    @property
    def hunks(self) -> list[str]:
        """The hunks taken now, as picks (``h_…`` or ``h_…:N-M``)."""
        selection = Selection({hunk.id: lines for hunk, lines in self.picked})
        return [str(pick) for pick in selection.picks([hunk for hunk, _ in self.picked])]

    @property
    def links(self) -> list[FileChange]:
        """The changes that leave a symbolic link."""
        return [change for change in self.changes if change.link_target is not None]

    def to_json(self) -> dict[str, Any]:
        """The outcome as ``caesar apply --json`` and the MCP ``caesar_apply`` return it."""
        return {
            "applied": self.applied,
            "files": self.files,
            "written": self.written,
            "already_applied": self.already,
            "conflicts": self.conflicts,
            "digest": self.digest,
            "hunks": self.hunks,
            "already_applied_hunks": self.already_hunks,
            "links": [
                {"path": link.path, "target": link.link_target, "outside": link.link_outside}
                for link in self.links
            ],
        }


def apply_changes(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    *,
    paths: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    allow_outside_links: bool = False,
    picks: Sequence[Pick] | None = None,
    applied: Iterable[Taken] = (),
) -> ApplyResult:
    """Merge the task's changes (``workdir`` against ``base_ref``) into ``repo_root``'s files.

    Conflicts write nothing and come back as ``applied=False`` with the paths involved.
    Uncommitted local changes (or an untracked or ignored file) on any path the merge would
    write raise ``LocalChangesError`` before anything is written, unless the file already
    holds exactly what the merge would write (the task was applied before) or what earlier
    applies of ``applied`` hunks left there. ``paths`` restricts the change set; paths outside
    it stay as the base has them; an empty one is refused (it would select everything).
    ``picks`` restricts it to those hunks (or changed lines of them): an unknown or stale id,
    or a bad range, raises ``SelectionError`` with the current ids before anything is done.
    A symbolic link pointing out of the repository raises ``OutsideLinksError`` unless
    ``allow_outside_links``.
    """
    if paths is not None and any(not path.strip() for path in paths):
        raise GitError(
            "an empty path was given to select the files to apply",
            "name a file or directory of the task's changes (see `caesar diff --stat`), "
            "or give no path to apply them all",
            exit_code=ExitCode.USAGE,
        )
    task_repo = open_repository(workdir)
    base = resolve_commit(task_repo, base_ref)
    task = changes_since(workdir, str(base.id), exclude=exclude, with_patch=True, paths=paths)
    task_tree = pygit2.Oid(hex=task.tree)
    digest = patch_digest(task.patch)
    hunks = [hunk for change in task.files for hunk in change.hunks]
    chosen = resolve(picks, hunks) if picks is not None else None
    if task.is_empty:
        return ApplyResult(applied=True, digest=digest)
    changes = task.files if chosen is None else _touched(task, chosen)
    outside = [change for change in changes if change.link_outside]
    if outside and not allow_outside_links:
        raise OutsideLinksError([(link.path, link.link_target or "") for link in outside])

    main = open_root(repo_root)
    if main.head_is_unborn:
        raise GitError(
            f"{workdir_of(main)} has no commit to apply onto",
            "make a first commit in the main repository, then apply again",
        )
    ours = main.head.peel(pygit2.Tree)
    if task_tree not in main.odb or base.tree.id not in main.odb:
        raise GitError(
            f"{workdir} does not share an object store with {repo_root}",
            "apply a task from a worktree of this repository",
        )
    root = workdir_of(main)
    base_tree = as_tree(main, base.tree.id)
    earlier = recorded(applied, hunks)
    owned, dropped = _earlier_applies(main, root, base_tree, ours, task, earlier)
    files = sorted({path for change in changes for path in _paths(change)})
    sides, picked, already_hunks = _selected(main, task, chosen, earlier, dropped)
    if sides is None:
        outcome = _merge(main, base_tree, ours, as_tree(main, task_tree))
    else:
        outcome = _merge_sides(main, base_tree, ours, sides)
    if isinstance(outcome, Conflicts):
        return ApplyResult(applied=False, files=files, conflicts=outcome.paths, changes=changes)
    writes, deletes = outcome
    already = already_there(main, root, writes, deletes)
    writes = [write for write in writes if write.path not in already]
    deletes -= already
    blocked = [path for path in blocked_paths(main, root, writes, deletes) if path not in owned]
    if blocked:
        raise LocalChangesError(blocked)
    for path in sorted(deletes, reverse=True):
        delete(root, path)
    for write in writes:
        write_file(main, root, write)
    touched = sorted({write.path for write in writes} | deletes)
    return ApplyResult(
        applied=True,
        files=files,
        digest=digest,
        changes=changes,
        written=touched,
        already=sorted(already),
        picked=picked,
        already_hunks=already_hunks,
    )


def _selected(
    repo: pygit2.Repository,
    task: TreeDiff,
    chosen: Selection | None,
    earlier: Selection,
    dropped: set[str],
) -> tuple[list[FileSide] | None, list[tuple[Hunk, frozenset[int]]], list[str]]:
    """The files "theirs" holds (None: the task's whole tree), the hunks taken now (with their
    lines) and the picks already applied: the selected hunks and, for the files that still
    hold them, the hunks applied earlier."""
    if chosen is None:
        return None, [], []
    hunks = [hunk for change in task.files for hunk in change.hunks]
    holding = [h.id for c in task.files if not _paths(c) & dropped for h in c.hunks]
    kept = earlier.only(holding)
    fresh = chosen.without(kept, hunks)
    sides = selected_files(repo, task.files, fresh.union(kept))
    picked = [(hunk, fresh.of(hunk)) for hunk in hunks if fresh.has(hunk)]
    return sides, picked, [str(pick) for pick in chosen.without(fresh, hunks).picks(hunks)]


@dataclass(frozen=True, slots=True)
class Conflicts:
    paths: list[str]


def _merge(
    repo: pygit2.Repository, base_tree: pygit2.Tree, ours: pygit2.Tree, theirs: pygit2.Tree
) -> tuple[list[Write], set[str]] | Conflicts:
    """The three-way merge on trees: what to write and delete to go from HEAD to it."""
    merged = repo.merge_trees(base_tree, ours, theirs)
    if merged.conflicts is not None:
        found = {entry.path for sides in merged.conflicts for entry in sides if entry is not None}
        return Conflicts(sorted(found))
    return plan(tree_diff(ours, as_tree(repo, merged.write_tree(repo))))


def _merge_sides(
    repo: pygit2.Repository, base_tree: pygit2.Tree, ours: pygit2.Tree, sides: list[FileSide]
) -> tuple[list[Write], set[str]] | Conflicts:
    """:func:`_merge` of the base with ``sides`` in place. A path HEAD has as the base has it
    merges to the side itself, written from memory; only the others go through the merge."""
    direct: list[FileSide] = []
    merging: list[FileSide] = []
    for side in sides:
        same = _entry(ours, side.path) == _entry(base_tree, side.path)
        (direct if same else merging).append(side)
    writes: list[Write] = []
    deletes: set[str] = set()
    if merging:
        theirs = as_tree(repo, selected_tree(repo, base_tree, merging))
        outcome = _merge(repo, base_tree, ours, theirs)
        if isinstance(outcome, Conflicts):
            return outcome
        writes, deletes = outcome
    for side in direct:
        now = _entry(ours, side.path)
        if side.blob is None:
            if now is not None:
                deletes.add(side.path)
        elif now != (str(side.blob), side.mode):
            writes.append(Write(side.path, side.blob, side.mode, now is None, side.data))
    writes.sort(key=lambda write: write.path)
    return writes, deletes


def _entry(tree: pygit2.Tree, path: str) -> tuple[str, int] | None:
    """The blob id and mode at ``path`` in ``tree``; None when it has none."""
    try:
        found = tree[path]
    except KeyError:
        return None
    return str(found.id), int(found.filemode)


def _paths(change: FileChange) -> set[str]:
    return {p for p in (change.path, change.old_path) if p}


def _touched(task: TreeDiff, selection: Selection) -> list[FileChange]:
    """The files of which ``selection`` takes something."""
    return [c for c in task.files if any(selection.has(hunk) for hunk in c.hunks)]


def _earlier_applies(
    repo: pygit2.Repository,
    root: Path,
    base_tree: pygit2.Tree,
    ours: pygit2.Tree,
    task: TreeDiff,
    earlier: Selection,
) -> tuple[set[str], set[str]]:
    """Which paths hold exactly what applying ``earlier`` left (``owned``: caesar's, not the
    user's), and which of the paths those applies changed no longer hold it (``dropped``)."""
    if not earlier:
        return set(), set()
    outcome = _merge_sides(repo, base_tree, ours, selected_files(repo, task.files, earlier))
    if isinstance(outcome, Conflicts):
        return set(), {path for change in _touched(task, earlier) for path in _paths(change)}
    writes, deletes = outcome
    owned = already_there(repo, root, writes, deletes)
    changed = {write.path for write in writes} | deletes
    return owned, changed - owned


def unapplied_work(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    applied_digest: str | None,
    exclude: Sequence[str] = (),
    settled: Iterable[Taken] = (),
) -> bool:
    """Whether ``workdir`` holds changes that were not applied (as recorded by the digest, or
    hunk by hunk: ``settled`` are the hunks applied or rejected, with their lines).

    Committed work counts: the worktree is compared with its base commit, not with its
    HEAD, so a task whose agent committed is never mistaken for a clean one. A worktree
    that cannot be read answers True: nothing may be deleted that could not be inspected.
    """
    try:
        return unapplied_changes(repo_root, workdir, base_ref, applied_digest, exclude, settled)
    except GitError:
        return True


def unapplied_changes(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    applied_digest: str | None,
    exclude: Sequence[str] = (),
    settled: Iterable[Taken] = (),
) -> bool:
    """:func:`unapplied_work`, raising ``GitError`` when the worktree cannot be inspected
    (for callers that say why they keep it)."""
    if not workdir.exists():
        return False
    diff = changes_since(workdir, base_ref, exclude=exclude, with_patch=True)
    if diff.is_empty:
        return False
    del repo_root  # the worktree shares the object store; its own repository answers
    if patch_digest(diff.patch) == applied_digest:
        return False
    hunks = [hunk for change in diff.files for hunk in change.hunks]
    done = recorded(settled, hunks)
    return not all(done.whole(hunk) for hunk in hunks)
