"""Bringing a task's changes into the main working tree: a three-way merge, files only.

The ancestor is the task's base commit, "ours" the main repository's HEAD now (it may have
moved on since the task started), "theirs" the base plus the task's changes. The merge runs
on trees in the object store; only when it is clean, and only when no file it would touch
holds uncommitted work of the user, are files written. Nothing is committed and the main
index is never touched: the user reviews the result with ``git diff`` and commits it.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileMode, FileStatus

from caesar_core.fs import atomic_write
from caesar_core.git.content import as_tree, tree_diff
from caesar_core.git.diff import (
    FileChange,
    changes_since,
    patch_digest,
    reconcile,
    to_tree_diff,
)
from caesar_core.git.repo import (
    GitError,
    LocalChangesError,
    open_repository,
    open_root,
    resolve_commit,
    workdir_of,
)


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """The outcome of ``apply_changes``.

    ``files`` are the paths the task changed (renames at both ends), ``changes`` the same as
    ``changes_since`` reports them, ``written`` the paths actually created, modified or
    deleted in the main working tree (fewer when HEAD already had some of the changes), and
    ``digest`` the ``patch_digest`` of the task's patch: record it to tell later whether
    anything is left unapplied.
    """

    applied: bool
    files: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    digest: str | None = None
    changes: list[FileChange] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Write:
    path: str
    blob: pygit2.Oid
    mode: int
    created: bool


def apply_changes(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    *,
    paths: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
) -> ApplyResult:
    """Merge the task's changes (``workdir`` against ``base_ref``) into ``repo_root``'s files.

    Conflicts write nothing and come back as ``applied=False`` with the paths involved.
    Uncommitted local changes (or an untracked or ignored file) on any path the merge would
    write raise ``LocalChangesError`` before anything is written. ``paths`` restricts the
    change set; paths outside it stay as the base has them.
    """
    task_repo = open_repository(workdir)
    base = resolve_commit(task_repo, base_ref)
    found = reconcile(task_repo, base.tree, exclude=exclude, paths=paths)
    task = to_tree_diff(found, str(base.id), with_patch=True)
    digest = patch_digest(task.patch)
    if task.is_empty:
        return ApplyResult(applied=True, digest=digest)

    main = open_root(repo_root)
    if main.head_is_unborn:
        raise GitError(
            f"{workdir_of(main)} has no commit to apply onto",
            "make a first commit in the main repository, then apply again",
        )
    ours = main.head.peel(pygit2.Tree)
    if found.tree.id not in main.odb or base.tree.id not in main.odb:
        raise GitError(
            f"{workdir} does not share an object store with {repo_root}",
            "apply a task from a worktree of this repository",
        )
    merged = main.merge_trees(as_tree(main, base.tree.id), ours, as_tree(main, found.tree.id))
    if merged.conflicts is not None:
        conflicted = {
            entry.path for sides in merged.conflicts for entry in sides if entry is not None
        }
        return ApplyResult(
            applied=False, files=task.paths, conflicts=sorted(conflicted), changes=task.files
        )

    result = as_tree(main, merged.write_tree(main))
    writes, deletes = _plan(tree_diff(ours, result))
    root = workdir_of(main)
    blocked = _blocked(main, root, writes, deletes)
    if blocked:
        raise LocalChangesError(blocked)
    for path in sorted(deletes, reverse=True):
        _delete(root, path)
    for write in writes:
        _write(main, root, write)
    touched = sorted({write.path for write in writes} | deletes)
    return ApplyResult(
        applied=True, files=task.paths, digest=digest, changes=task.files, written=touched
    )


def unapplied_work(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    applied_digest: str | None,
    exclude: Sequence[str] = (),
) -> bool:
    """Whether ``workdir`` holds changes that were not applied (as recorded by the digest).

    Committed work counts: the worktree is compared with its base commit, not with its
    HEAD, so a task whose agent committed is never mistaken for a clean one. A worktree
    that cannot be read answers True: nothing may be deleted that could not be inspected.
    """
    if not workdir.exists():
        return False
    try:
        diff = changes_since(workdir, base_ref, exclude=exclude, with_patch=True)
    except GitError:
        return True
    if diff.is_empty:
        return False
    del repo_root  # the worktree shares the object store; its own repository answers
    return patch_digest(diff.patch) != applied_digest


def _plan(diff: pygit2.Diff) -> tuple[list[_Write], set[str]]:
    """Files to write and to delete so that the working tree goes from HEAD to the merge."""
    writes: list[_Write] = []
    deletes: set[str] = set()
    for delta in diff.deltas:
        new, old = delta.new_file, delta.old_file
        if delta.status == DeltaStatus.DELETED:
            deletes.add(old.path)
            continue
        if FileMode.COMMIT in (new.mode, old.mode):
            raise GitError(
                f"the task changes the submodule {new.path}",
                "update the submodule by hand in the main working tree",
            )
        writes.append(_Write(new.path, new.id, int(new.mode), delta.status == DeltaStatus.ADDED))
    writes.sort(key=lambda write: write.path)
    return writes, deletes


def _blocked(
    repo: pygit2.Repository, root: Path, writes: list[_Write], deletes: set[str]
) -> list[str]:
    """Paths the merge would write over something that is not HEAD's committed content."""
    status = {
        path: flags
        for path, flags in repo.status(untracked_files="all", ignored=False).items()
        if flags not in (FileStatus.CURRENT, FileStatus.IGNORED)
    }
    blocked = {path for path in (*deletes, *(w.path for w in writes)) if path in status}
    for write in writes:
        target = root / write.path
        if write.created and os.path.lexists(target) and not _replaced(target, write.path, deletes):
            blocked.add(write.path)
        parent = posixpath.dirname(write.path)
        while parent:
            full = root / parent
            is_dir = full.is_dir() and not full.is_symlink()
            if os.path.lexists(full) and not is_dir and parent not in deletes:
                blocked.add(parent)
            parent = posixpath.dirname(parent)
    return sorted(blocked)


def _replaced(target: Path, path: str, deletes: set[str]) -> bool:
    """A directory that only holds files the merge deletes is no obstacle to a file."""
    if target.is_symlink() or not target.is_dir():
        return path in deletes
    for folder, _dirs, names in os.walk(target):
        for name in names:
            rel = Path(folder, name).relative_to(target).as_posix()
            if f"{path}/{rel}" not in deletes:
                return False
    return True


def _delete(root: Path, path: str) -> None:
    target = root / path
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    parent = target.parent
    while parent != root:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


def _write(repo: pygit2.Repository, root: Path, write: _Write) -> None:
    target = root / write.path
    blob = repo[write.blob]
    if not isinstance(blob, pygit2.Blob):  # pragma: no cover - merge results hold blobs
        raise GitError(f"{write.path} is not a file in the merge", "report this as a bug")
    if target.is_dir() and not target.is_symlink():
        target.rmdir()  # emptied by the deletions (checked in _blocked)
    target.parent.mkdir(parents=True, exist_ok=True)
    if write.mode == FileMode.LINK:
        _replace_with_symlink(target, os.fsdecode(blob.data))
        return
    mode = 0o755 if write.mode == FileMode.BLOB_EXECUTABLE else 0o644
    atomic_write(target, blob.data, mode=mode)


def _replace_with_symlink(target: Path, pointee: str) -> None:
    """Create the symlink under a fresh name, then rename it over ``target`` in one step."""
    while True:
        link = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.symlink(pointee, link)
        except FileExistsError:
            continue
        break
    try:
        os.replace(link, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        raise
