"""The tree of a working directory's current content, computed without touching its index.

Reconciliation needs one question answered: "what would a commit of everything here look
like?" -- committed work, staged, unstaged and untracked-not-ignored files alike. Asking
``git status`` answers a different question (it compares against HEAD, which the agent may
have moved) and ``git add -A`` would rewrite the agent's index. So the answer is built in
memory: the repository's index is loaded, compared with the working directory (its stat
cache keeps unchanged files from being read at all), the files that differ are hashed into
the in-memory index, and the result is written as a tree into the object store. The index
file on disk is never written. The comparison itself is ``scan.workdir_deltas`` (two cores on a
large tree).

Excluded paths (always ``.caesar/``) are skipped before any file is read: a secret such as
an untracked ``.env`` is never hashed or stored.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, DiffOption, FileMode, ObjectType

from caesar_core.errors import ExitCode
from caesar_core.git.filters import AttributeProbe
from caesar_core.git.paths import exclusions
from caesar_core.git.repo import (
    DamagedWorktreeError,
    GitError,
    under_any,
    workdir_of,
)
from caesar_core.git.scan import index_stamp, workdir_deltas

__all__ = ["as_tree", "content_tree", "exclusions", "index_of", "store_blob", "tree_diff"]

_READ_LIMIT = 64 * 1024 * 1024
"""Bigger files are streamed by libgit2 rather than read into memory here."""


def content_tree(repo: pygit2.Repository, excludes: Sequence[str]) -> pygit2.Oid:
    """The tree of the working directory's content, as ``git add -A`` would stage it.

    ``excludes`` must come from :func:`exclusions`; their entries are left as the index has
    them, and callers filter them out of any diff (see ``diff.reconcile``).
    """
    workdir = workdir_of(repo)
    stamp = index_stamp(repo)
    index = index_of(repo)  # loaded from disk, changed in memory only, never written back
    try:
        pending = workdir_deltas(repo, index, stamp)
    except pygit2.GitError as exc:
        raise GitError(
            f"could not read the working tree {workdir}: {exc}",
            "check the files' permissions, then try again",
        ) from exc
    probe = AttributeProbe(repo, workdir)
    removed: list[str] = []
    added: list[pygit2.IndexEntry] = []
    for delta in pending:
        path = delta.new_file.path or delta.old_file.path
        if under_any(path, excludes):
            continue
        if delta.status == DeltaStatus.UNREADABLE:
            raise GitError(
                f"cannot read {workdir / path}",
                "fix its permissions (or exclude it), then try again",
            )
        found = _blob(repo, workdir, path, delta.new_file.mode, probe)
        if found is None:
            removed.append(path)
        else:
            added.append(pygit2.IndexEntry(path, found[0], found[1]))
    conflicts = index.conflicts
    for path in removed:
        if conflicts is not None and path in conflicts:
            del conflicts[path]
        if path in index:
            index.remove(path)
    for entry in added:
        if conflicts is not None and entry.path in conflicts:
            del conflicts[entry.path]
        index.add(entry)
    try:
        tree: pygit2.Oid = index.write_tree()
    except pygit2.GitError as exc:
        raise GitError(
            f"the index of {workdir} has unresolved merge conflicts ({exc})",
            "resolve the conflicts (or `git merge --abort`) in that working tree, then retry",
            exit_code=ExitCode.USAGE,
        ) from exc
    return tree


def index_of(repo: pygit2.Repository) -> pygit2.Index:
    """The repository's index as on disk, or :class:`DamagedWorktreeError` when it is not one.

    An agent can write over its worktree's index (``<common>/worktrees/<name>/index``):
    libgit2 then refuses it, and that refusal must name the file and the way out.
    """
    try:
        index: pygit2.Index = repo.index
    except (pygit2.GitError, OSError, ValueError) as exc:
        path = Path(str(repo.path)) / "index"
        workdir = workdir_of(repo)
        raise DamagedWorktreeError(
            f"the git index of {workdir} ({path}) cannot be read: {exc}",
            f"rebuild it, keeping the files: rm '{path}' && git -C '{workdir}' reset -q",
        ) from None
    return index


def _blob(
    repo: pygit2.Repository, workdir: Path, path: str, mode: FileMode, probe: AttributeProbe
) -> tuple[pygit2.Oid, FileMode] | None:
    """The blob id and mode of the file at ``path`` now; None when it is gone.

    Plain files are hashed here and written only when the object store lacks them:
    libgit2's own blob writers stream through a temporary file that is created and deleted
    even when the object exists, a file-system round trip per changed file on every call.
    """
    full = workdir / path
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(info.st_mode):
        return store_blob(repo, os.fsencode(os.readlink(full))), FileMode.LINK
    if not stat.S_ISREG(info.st_mode):
        return None  # a nested repository or a special file: not content git would add
    if mode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
        mode = FileMode.BLOB_EXECUTABLE if info.st_mode & 0o100 else FileMode.BLOB
    if info.st_size > _READ_LIMIT or not probe.plain(path):
        return repo.create_blob_fromworkdir(path), mode
    try:
        data = full.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GitError(
            f"cannot read {full}: {exc}", "fix its permissions (or exclude it), then try again"
        ) from exc
    return store_blob(repo, data), mode


def store_blob(repo: pygit2.Repository, data: bytes) -> pygit2.Oid:
    """The id of a blob of ``data``, written to the object store when it lacks one."""
    oid = pygit2.hash(data)
    if oid not in repo.odb:
        repo.odb.write(ObjectType.BLOB, data)
    return oid


def as_tree(repo: pygit2.Repository, oid: pygit2.Oid | str) -> pygit2.Tree:
    """The tree ``oid`` names, or a ``GitError`` when the object store lacks it."""
    try:
        found = repo[oid]
    except (KeyError, ValueError) as exc:
        raise GitError(
            f"tree {oid} is not in the object store of {workdir_of(repo)}",
            "the snapshot was pruned by `git gc`; discard the task and run it again",
        ) from exc
    if not isinstance(found, pygit2.Tree):
        raise GitError(f"{oid} is not a tree", "pass the tree recorded by snapshot()")
    return found


def tree_diff(old: pygit2.Tree, new: pygit2.Tree) -> pygit2.Diff:
    """Tree-to-tree diff with git's defaults (3 context lines, hunks not merged)."""
    return old.diff_to_tree(
        new, flags=DiffOption.INCLUDE_TYPECHANGE, context_lines=3, interhunk_lines=0
    )
