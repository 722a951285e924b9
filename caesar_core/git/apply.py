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
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileMode, FileStatus

from caesar_core.errors import ExitCode
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
    OutsideLinksError,
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
    anything is left unapplied. ``already`` are the paths the working tree already held as
    the merge leaves them (a second apply), so nothing was written there.
    """

    applied: bool
    files: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    digest: str | None = None
    changes: list[FileChange] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)


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
    allow_outside_links: bool = False,
) -> ApplyResult:
    """Merge the task's changes (``workdir`` against ``base_ref``) into ``repo_root``'s files.

    Conflicts write nothing and come back as ``applied=False`` with the paths involved.
    Uncommitted local changes (or an untracked or ignored file) on any path the merge would
    write raise ``LocalChangesError`` before anything is written, unless the file already
    holds exactly what the merge would write (the task was applied before). ``paths``
    restricts the change set; paths outside it stay as the base has them; an empty one is
    refused (it would select everything). A symbolic link pointing out of the repository
    raises ``OutsideLinksError`` unless ``allow_outside_links``.
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
    found = reconcile(task_repo, base.tree, exclude=exclude, paths=paths)
    task = to_tree_diff(found, str(base.id), with_patch=True)
    digest = patch_digest(task.patch)
    if task.is_empty:
        return ApplyResult(applied=True, digest=digest)
    if task.outside_links and not allow_outside_links:
        raise OutsideLinksError(
            [(link.path, link.link_target or "") for link in task.outside_links]
        )

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
    already = _already_there(main, root, writes, deletes)
    writes = [write for write in writes if write.path not in already]
    deletes -= already
    blocked = _blocked(main, root, writes, deletes)
    if blocked:
        raise LocalChangesError(blocked)
    for path in sorted(deletes, reverse=True):
        _delete(root, path)
    for write in writes:
        _write(main, root, write)
    touched = sorted({write.path for write in writes} | deletes)
    return ApplyResult(
        applied=True,
        files=task.paths,
        digest=digest,
        changes=task.files,
        written=touched,
        already=sorted(already),
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
    try:
        return unapplied_changes(repo_root, workdir, base_ref, applied_digest, exclude)
    except GitError:
        return True


def unapplied_changes(
    repo_root: Path,
    workdir: Path,
    base_ref: str,
    applied_digest: str | None,
    exclude: Sequence[str] = (),
) -> bool:
    """:func:`unapplied_work`, raising ``GitError`` when the worktree cannot be inspected
    (for callers that say why they keep it)."""
    if not workdir.exists():
        return False
    diff = changes_since(workdir, base_ref, exclude=exclude, with_patch=True)
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
    try:
        found = repo.status(untracked_files="all", ignored=False)
    except pygit2.GitError as exc:
        raise GitError(
            f"cannot tell which files of {root} have local changes: {exc}",
            f"check that `git -C '{root}' status` works (a damaged .git/index: "
            "rm .git/index && git reset -q rebuilds it, keeping your files), then apply again",
        ) from None
    status = {
        path: flags
        for path, flags in found.items()
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


def _already_there(
    repo: pygit2.Repository, root: Path, writes: list[_Write], deletes: set[str]
) -> set[str]:
    """Paths the working tree already holds as the merge leaves them: nothing to write."""
    there = {path for path in deletes if not os.path.lexists(root / path)}
    there.update(write.path for write in writes if _holds(repo, root / write.path, write))
    return there


def _holds(repo: pygit2.Repository, target: Path, write: _Write) -> bool:
    """Whether ``target`` is already the file (or link) ``write`` would leave there."""
    try:
        info = os.lstat(target)
    except OSError:
        return False
    blob = repo[write.blob]
    if not isinstance(blob, pygit2.Blob):  # pragma: no cover - merge results hold blobs
        return False
    if write.mode == FileMode.LINK:
        return stat.S_ISLNK(info.st_mode) and os.fsencode(os.readlink(target)) == blob.data
    executable = write.mode == FileMode.BLOB_EXECUTABLE
    if not stat.S_ISREG(info.st_mode) or bool(info.st_mode & 0o100) != executable:
        return False
    if info.st_size != blob.size:
        return False
    try:
        return target.read_bytes() == blob.data
    except OSError:
        return False


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
