"""The tree of a working directory's current content, computed without touching its index.

Reconciliation needs one question answered: "what would a commit of everything here look
like?" -- committed work, staged, unstaged and untracked-not-ignored files alike. Asking
``git status`` answers a different question (it compares against HEAD, which the agent may
have moved) and ``git add -A`` would rewrite the agent's index. So the answer is built in
memory: the repository's index is loaded, ``add_all`` brings it up to date with the files on
disk (its stat cache keeps unchanged files from being re-hashed), and the result is written
as a tree into the object store. The index file on disk is never written.

Excluded paths (always ``.caesar/``) are kept out of the walk itself, not filtered afterwards:
a secret such as ``.env`` is never read, hashed or stored.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

import pygit2
from pygit2.enums import DiffOption, FileMode

from caesar_core.errors import ExitCode
from caesar_core.git.repo import CAESAR_DIR, GitError, normalize_rel, under_any, workdir_of

_GLOB = frozenset("*?[]\\")


def exclusions(exclude: Iterable[str]) -> tuple[str, ...]:
    """Normalized exclusion prefixes, always with ``.caesar`` (caesar's own files)."""
    found = {CAESAR_DIR}
    for raw in exclude:
        path = normalize_rel(raw, "excluded path")
        if path:
            found.add(path)
    return tuple(sorted(found))


def content_tree(repo: pygit2.Repository, excludes: Sequence[str]) -> pygit2.Oid:
    """The tree of the working directory's content, as ``git add -A`` would stage it.

    ``excludes`` must come from :func:`exclusions`. Their entries are left as the index has
    them; callers filter them out of any diff (see ``diff.reconcile``).
    """
    workdir = workdir_of(repo)
    pathspecs, listings = _plan(workdir, excludes)
    index = repo.index  # loaded from disk, changed in memory only, never written back
    if pathspecs:
        try:
            index.add_all(pathspecs)
        except (pygit2.GitError, OSError) as exc:
            raise GitError(
                f"could not read the working tree {workdir}: {exc}",
                "check the files' permissions, then try again",
            ) from exc
    try:
        tree = index.write_tree()
    except pygit2.GitError as exc:
        raise GitError(
            f"the index of {workdir} has unresolved merge conflicts ({exc})",
            "resolve the conflicts (or `git merge --abort`) in that working tree, then retry",
            exit_code=ExitCode.USAGE,
        ) from exc
    return _drop_missing(repo, tree, "", listings, excludes)


def _plan(workdir: Path, excludes: Sequence[str]) -> tuple[list[str], dict[str, frozenset[str]]]:
    """Pathspecs covering the working tree minus the exclusions, and the listings walked.

    Top-level entries become pathspecs, except that a directory holding an exclusion deeper
    down is listed in turn. ``add_all`` only visits what a pathspec names, so an entry that
    vanished from disk is not seen as deleted there; the listings let ``_drop_missing``
    remove those afterwards.
    """
    pathspecs: list[str] = []
    listings: dict[str, frozenset[str]] = {}
    exact = set(excludes)

    def visit(rel: str) -> None:
        names: set[str] = set()
        try:
            entries = list(os.scandir(workdir / rel if rel else workdir))
        except OSError as exc:
            raise GitError(
                f"could not list {workdir / rel}: {exc}",
                "check the directory's permissions, then try again",
            ) from exc
        for entry in entries:
            if entry.name == ".git":
                continue
            names.add(entry.name)
            path = posixpath.join(rel, entry.name) if rel else entry.name
            if path in exact:
                continue
            inner = any(ex.startswith(path + "/") for ex in excludes)
            if inner and entry.is_dir(follow_symlinks=False):
                visit(path)
            else:
                pathspecs.extend(_pathspec(path))
        listings[rel] = frozenset(names)

    visit("")
    return pathspecs, listings


def _pathspec(path: str) -> list[str]:
    """libgit2 pathspecs matching exactly ``path`` and everything below it.

    A plain path already matches as a directory prefix. A name with glob characters (or a
    leading ``!`` or ``#``) must be escaped, and an escaped pattern matches only itself, so
    its contents need a second ``/*`` pattern.
    """
    if not (_GLOB.intersection(path) or path[0] in "!#"):
        return [path]
    escaped = "".join("\\" + char if char in _GLOB else char for char in path)
    if escaped[0] in "!#":
        escaped = "\\" + escaped
    return [escaped, escaped + "/*"]


def _drop_missing(
    repo: pygit2.Repository,
    tree_id: pygit2.Oid,
    rel: str,
    listings: dict[str, frozenset[str]],
    excludes: Sequence[str],
) -> pygit2.Oid:
    """Remove entries of listed directories that are no longer on disk (deleted files)."""
    tree = as_tree(repo, tree_id)
    on_disk = listings[rel]
    builder: pygit2.TreeBuilder | None = None
    for entry in tree:
        name = str(entry.name)
        path = posixpath.join(rel, name) if rel else name
        if under_any(path, excludes):
            continue
        replacement: pygit2.Oid | None = entry.id
        if name not in on_disk:
            replacement = None
        elif path in listings and entry.filemode == FileMode.TREE:
            replacement = _drop_missing(repo, entry.id, path, listings, excludes)
            if len(as_tree(repo, replacement)) == 0:
                replacement = None
        if replacement == entry.id:
            continue
        if builder is None:
            builder = repo.TreeBuilder(tree)
        builder.remove(name)
        if replacement is not None:
            builder.insert(name, replacement, FileMode.TREE)
    return tree_id if builder is None else builder.write()


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
