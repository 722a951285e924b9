"""Reconciliation: what a task changed, as git sees it, whatever the agent says.

The base is always a fixed point recorded when the task started -- the commit its worktree
was created at (``changes_since``), or a snapshot tree of an in-place working directory
(``changes_between``) -- never HEAD: an agent that commits its work moves HEAD, and a diff
against HEAD would then report nothing. The other side is the working directory's content
(see ``content.py``), so committed, staged, unstaged and untracked work all count.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, DiffFind, FileMode

from caesar_core.git.changes import (
    FileChange,
    PatchSpan,
    Snapshot,
    Spans,
    TreeDiff,
    as_unicode,
    assemble,
    link_leaves_repository,
    patch_digest,
)
from caesar_core.git.content import as_tree, content_tree, exclusions, tree_diff
from caesar_core.git.hunks import Sides, file_hunks
from caesar_core.git.repo import (
    GitError,
    normalize_rel,
    open_repository,
    resolve_commit,
    under_any,
    workdir_of,
)
from caesar_core.git.viagit import changes as changes_by_git
from caesar_core.layout import CAESAR_DIR
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Hunk

__all__ = [
    "FileChange",
    "PatchSpan",
    "Reconciled",
    "Snapshot",
    "TreeDiff",
    "as_unicode",
    "assemble",
    "changes_between",
    "changes_between_by_pygit2",
    "changes_between_snapshots",
    "changes_since",
    "changes_since_by_pygit2",
    "link_leaves_repository",
    "patch_digest",
    "reconcile",
    "snapshot_by_pygit2",
    "to_tree_diff",
]

_ACTIONS = {
    DeltaStatus.ADDED: ChangeAction.CREATED,
    DeltaStatus.COPIED: ChangeAction.CREATED,
    DeltaStatus.DELETED: ChangeAction.DELETED,
    DeltaStatus.MODIFIED: ChangeAction.MODIFIED,
    DeltaStatus.TYPECHANGE: ChangeAction.MODIFIED,
    DeltaStatus.RENAMED: ChangeAction.RENAMED,
}


@dataclass(slots=True)
class Reconciled:
    """The pygit2 objects behind a ``TreeDiff``, for ``apply`` to merge without recomputing."""

    repo: pygit2.Repository
    base_tree: pygit2.Tree
    tree: pygit2.Tree
    diff: pygit2.Diff


def changes_since(
    workdir: Path,
    base_ref: str,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """What differs between commit ``base_ref`` and ``workdir``'s current content.

    Covers commits made on top of ``base_ref``, staged, unstaged and untracked-not-ignored
    files; renames are detected (50% similarity, git's default). ``exclude`` and ``paths``
    use prefix semantics on path components; ``.caesar/`` is always excluded. Neither the
    index nor any file of ``workdir`` is modified; new blobs and trees are written to the
    object store.

    The ``git`` program answers when it can (``git.viagit``); pygit2 otherwise
    (:func:`changes_since_by_pygit2`), with the same result.
    """
    found = changes_by_git(
        workdir, base_ref, peel="commit", exclude=exclude, with_patch=with_patch, paths=paths
    )
    if found is not None:
        return found
    return changes_since_by_pygit2(
        workdir, base_ref, exclude=exclude, with_patch=with_patch, paths=paths
    )


def changes_since_by_pygit2(
    workdir: Path,
    base_ref: str,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """:func:`changes_since` computed by libgit2 alone: the reference the ``git`` program's
    answer is held to, and what answers when git cannot."""
    repo = _open_workdir(workdir)
    base = resolve_commit(repo, base_ref)
    found = reconcile(repo, base.tree, exclude=exclude, paths=paths)
    return to_tree_diff(found, str(base.id), with_patch=with_patch)


def snapshot_by_pygit2(workdir: Path, *, exclude: Sequence[str] = ()) -> Snapshot:
    """Record ``workdir``'s content (untracked-not-ignored files included) as a tree, by
    libgit2 alone: what ``git.snapshot_by_git.snapshot`` falls back to."""
    repo = _open_workdir(workdir)
    return Snapshot(tree=str(content_tree(repo, exclusions(exclude))))


def changes_between(
    workdir: Path,
    snap: Snapshot,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """What changed in ``workdir`` since ``snap`` was taken (in-place tasks); the ``git``
    program answers when it can, as for :func:`changes_since`."""
    found = changes_by_git(
        workdir, snap.tree, peel="tree", exclude=exclude, with_patch=with_patch, paths=paths
    )
    if found is not None:
        return found
    return changes_between_by_pygit2(
        workdir, snap, exclude=exclude, with_patch=with_patch, paths=paths
    )


def changes_between_by_pygit2(
    workdir: Path,
    snap: Snapshot,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """:func:`changes_between` computed by libgit2 alone."""
    repo = _open_workdir(workdir)
    base_tree = as_tree(repo, snap.tree)
    found = reconcile(repo, base_tree, exclude=exclude, paths=paths)
    return to_tree_diff(found, snap.tree, with_patch=with_patch)


def changes_between_snapshots(
    workdir: Path, old: Snapshot, new: Snapshot, *, with_patch: bool = False
) -> TreeDiff:
    """What differs between two snapshots of ``workdir`` (one turn of a task to the next)."""
    repo = _open_workdir(workdir)
    base_tree, tree = as_tree(repo, old.tree), as_tree(repo, new.tree)
    diff = tree_diff(base_tree, tree)
    diff.find_similar(flags=DiffFind.FIND_RENAMES)
    found = Reconciled(repo=repo, base_tree=base_tree, tree=tree, diff=diff)
    return to_tree_diff(found, old.tree, with_patch=with_patch)


def _open_workdir(workdir: Path) -> pygit2.Repository:
    """The repository of ``workdir``, refusing one found above a damaged task worktree.

    Task worktrees live in ``<root>/.caesar/wt/``; if one lost its ``.git``, discovery would
    climb to the main repository, where ``.caesar/`` is excluded, and report "no changes"
    for work that is really there.
    """
    repo = open_repository(workdir)
    root = workdir_of(repo).resolve()
    try:
        inner = workdir.resolve().relative_to(root).parts
    except ValueError:
        inner = ()
    if inner[:1] == (CAESAR_DIR,):
        raise GitError(
            f"{workdir} is not a git worktree (its .git is missing); only {root} was found",
            "inspect the directory by hand before removing it",
        )
    return repo


def reconcile(
    repo: pygit2.Repository,
    base_tree: pygit2.Tree,
    *,
    exclude: Sequence[str] = (),
    paths: Sequence[str] | None = None,
) -> Reconciled:
    """Diff ``base_tree`` against the working content, restricted to the selected paths.

    When something must be left out, the compared tree is rebuilt as ``base_tree`` plus the
    selected changes only, so the diff, the patch and a later merge all agree on one tree.
    Renames are detected on that final diff, so a rename half outside the selection shows
    as the half inside it.
    """
    excludes = exclusions(exclude)
    selected = None if paths is None else [normalize_rel(p, "selected path") for p in paths]
    if selected is not None and "" in selected:
        selected = None
    work = content_tree(repo, excludes)
    diff = tree_diff(base_tree, as_tree(repo, work))

    def keep(path: str) -> bool:
        if under_any(path, excludes):
            return False
        return selected is None or under_any(path, selected)

    deltas = list(diff.deltas)
    tree_id = work
    if not all(keep(delta.new_file.path) for delta in deltas):
        index = pygit2.Index()
        index.read_tree(base_tree)
        for delta in deltas:
            path = delta.new_file.path
            if not keep(path):
                continue
            if delta.status == DeltaStatus.DELETED:
                index.remove(path)
            else:
                index.add(pygit2.IndexEntry(path, delta.new_file.id, delta.new_file.mode))
        tree_id = index.write_tree(repo)
        diff = tree_diff(base_tree, as_tree(repo, tree_id))
    diff.find_similar(flags=DiffFind.FIND_RENAMES)
    return Reconciled(repo=repo, base_tree=base_tree, tree=as_tree(repo, tree_id), diff=diff)


def to_tree_diff(found: Reconciled, base: str, *, with_patch: bool) -> TreeDiff:
    """The public view of a reconciliation: one ``FileChange`` per file, sorted by path."""
    sections: list[tuple[FileChange, str]] = []
    spans = Spans()  # made here as ``assemble`` makes them, so no change is built twice
    for patch in found.diff:
        if patch is None:  # pragma: no cover - tree-to-tree deltas always carry a patch
            continue
        delta = patch.delta
        action = _ACTIONS.get(delta.status, ChangeAction.MODIFIED)
        _, additions, deletions = patch.line_stats
        data = patch.data if with_patch else b""  # the text git would print, made once
        text = data.decode("utf-8", "replace")
        target = None
        if action is not ChangeAction.DELETED and delta.new_file.mode == FileMode.LINK:
            target = _link_target(found.repo, delta.new_file.id)
        change = FileChange(
            path=delta.new_file.path,
            action=action,
            old_path=delta.old_file.path if action is ChangeAction.RENAMED else None,
            additions=additions,
            deletions=deletions,
            binary=bool(delta.is_binary),
            link_target=target,
            link_outside=target is not None and link_leaves_repository(delta.new_file.path, target),
            span=spans.of(text),
            hunks=file_hunks(_sides(delta), data) if with_patch else (),
            old_blob=_blob_id(delta.old_file),
            new_blob=_blob_id(delta.new_file),
            old_mode=int(delta.old_file.mode),
            new_mode=int(delta.new_file.mode),
        )
        sections.append((change, text))
    return assemble(base, str(found.tree.id), sections)


_LETTERS = {
    DeltaStatus.ADDED: "A",
    DeltaStatus.DELETED: "D",
    DeltaStatus.MODIFIED: "M",
    DeltaStatus.RENAMED: "R",
    DeltaStatus.COPIED: "C",
    DeltaStatus.TYPECHANGE: "T",
}


def hunks_of(patch: pygit2.Patch) -> tuple[Hunk, ...]:
    """The hunks of one file's patch as libgit2 parsed it, made as a reconciliation makes them
    (for a diff that was not computed here: a patch text read back)."""
    return file_hunks(_sides(patch.delta), patch.data)


def _sides(delta: pygit2.DiffDelta) -> Sides:
    """A delta's two sides as :func:`~caesar_core.git.hunks.file_hunks` takes them."""
    old, new = delta.old_file, delta.new_file
    return Sides(
        status=_LETTERS.get(delta.status, "M"),
        old_path=old.path,
        old_id=str(old.id),
        old_mode=int(old.mode),
        new_path=new.path,
        new_id=str(new.id),
        new_mode=int(new.mode),
        binary=bool(delta.is_binary),
    )


def _blob_id(side: pygit2.DiffFile) -> str | None:
    """The blob of one side of a delta; None where the file does not exist."""
    return None if side.mode == 0 or side.id.raw == bytes(20) else str(side.id)


def _link_target(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    """A link blob's content: the path it points to (bytes that are not UTF-8 kept escaped)."""
    blob = repo.get(oid)
    return os.fsdecode(blob.data) if isinstance(blob, pygit2.Blob) else ""
