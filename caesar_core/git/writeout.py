"""Writing a merge's result into the main working tree: the files only, never the index.

``plan`` turns the diff from HEAD to the merged tree into files to write and to delete;
``already_there`` finds those the working tree already holds as the merge leaves them;
``blocked_paths`` those that hold the user's uncommitted work (or stand in the way), which
``git.apply`` refuses before anything is written; ``delete`` and ``write_file`` do the writing
(atomic replaces; a link is made under a fresh name and renamed into place). Like git's own
checkout, the working tree's files are not fsynced: a rename makes each one whole or absent.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileMode, FileStatus

from caesar_core.fs import atomic_write
from caesar_core.git.repo import GitError


@dataclass(frozen=True, slots=True)
class Write:
    """One file the merge leaves in the working tree: its blob and mode, and whether HEAD lacks
    it (``created``); ``data`` is its content when it is at hand (a blob not stored)."""

    path: str
    blob: pygit2.Oid
    mode: int
    created: bool
    data: bytes | None = None

    def content(self, repo: pygit2.Repository) -> bytes:
        if self.data is not None:
            return self.data
        blob = repo[self.blob]
        if not isinstance(blob, pygit2.Blob):  # pragma: no cover - merge results hold blobs
            raise GitError(f"{self.path} is not a file in the merge", "report this as a bug")
        return blob.data


def plan(diff: pygit2.Diff) -> tuple[list[Write], set[str]]:
    """Files to write and to delete so that the working tree goes from HEAD to the merge."""
    writes: list[Write] = []
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
        writes.append(Write(new.path, new.id, int(new.mode), delta.status == DeltaStatus.ADDED))
    writes.sort(key=lambda write: write.path)
    return writes, deletes


def blocked_paths(
    repo: pygit2.Repository, root: Path, writes: list[Write], deletes: set[str]
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


def already_there(
    repo: pygit2.Repository, root: Path, writes: list[Write], deletes: set[str]
) -> set[str]:
    """Paths the working tree already holds as the merge leaves them: nothing to write."""
    there = {path for path in deletes if not os.path.lexists(root / path)}
    there.update(write.path for write in writes if _holds(repo, root / write.path, write))
    return there


def _holds(repo: pygit2.Repository, target: Path, write: Write) -> bool:
    """Whether ``target`` is already the file (or link) ``write`` would leave there."""
    try:
        info = os.lstat(target)
    except OSError:
        return False
    data = write.content(repo)
    if write.mode == FileMode.LINK:
        return stat.S_ISLNK(info.st_mode) and os.fsencode(os.readlink(target)) == data
    executable = write.mode == FileMode.BLOB_EXECUTABLE
    if not stat.S_ISREG(info.st_mode) or bool(info.st_mode & 0o100) != executable:
        return False
    if info.st_size != len(data):
        return False
    try:
        return target.read_bytes() == data
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


def delete(root: Path, path: str) -> None:
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


def write_file(repo: pygit2.Repository, root: Path, write: Write) -> None:
    target = root / write.path
    data = write.content(repo)
    if target.is_dir() and not target.is_symlink():
        target.rmdir()  # emptied by the deletions (checked in blocked_paths)
    target.parent.mkdir(parents=True, exist_ok=True)
    if write.mode == FileMode.LINK:
        _replace_with_symlink(target, os.fsdecode(data))
        return
    mode = 0o755 if write.mode == FileMode.BLOB_EXECUTABLE else 0o644
    atomic_write(target, data, mode=mode, durable=False)


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
