"""Opening repositories and the small questions the runner asks about them.

The git layer talks to git through pygit2 (libgit2), and runs the ``git`` program when there
is one for what a ``caesar run`` needs (``git.repo_by_git``, ``git.worktree_by_git``, the
reconciliation in ``git.viagit``; see ``git.program``), in a pinned environment
where no hook, filter, fsmonitor, pager or transport runs, and falls back to pygit2 whenever
git is missing or refuses: a task never depends on which git, if any, is on the ``PATH``.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
from pygit2.enums import RepositoryOpenFlag

from caesar_core.errors import ExitCode
from caesar_core.git.errors import (
    DamagedWorktreeError,
    GitError,
    LocalChangesError,
    OutsideLinksError,
)
from caesar_core.git.paths import is_under, normalize_rel, under_any

__all__ = [
    "DamagedWorktreeError",
    "GitError",
    "LocalChangesError",
    "OutsideLinksError",
    "is_under",
    "normalize_rel",
    "under_any",
]


def open_repository(path: Path) -> pygit2.Repository:
    """The repository whose working tree contains ``path``, or a ``GitError`` saying so.

    Discovery walks up from ``path`` like ``git`` does, so a linked worktree opens as itself
    (its own HEAD and index), not as the main repository.
    """
    try:
        return pygit2.Repository(str(path))
    except (pygit2.GitError, KeyError, OSError) as exc:
        raise GitError(
            f"{path} is not inside a git repository ({exc})",
            "run caesar inside a git repository, or create one with `git init`",
            exit_code=ExitCode.USAGE,
        ) from exc


def open_root(root: Path) -> pygit2.Repository:
    """Open the repository whose working tree is exactly ``root`` (no upward search).

    Used where a wrong guess would be harmful (creating or deleting worktrees): a typo in a
    root must fail, not silently act on a parent repository.
    """
    try:
        repo = pygit2.Repository(str(root), RepositoryOpenFlag.NO_SEARCH)
    except (pygit2.GitError, KeyError, OSError) as exc:
        raise GitError(
            f"{root} is not the root of a git repository ({exc})",
            "pass the directory that holds the repository's .git",
            exit_code=ExitCode.USAGE,
        ) from exc
    if repo.workdir is None:
        raise GitError(
            f"{root} is a bare repository: there is no working tree to work in",
            "run caesar in a clone with a working tree",
            exit_code=ExitCode.USAGE,
        )
    return repo


def workdir_of(repo: pygit2.Repository) -> Path:
    """The repository's working tree root (pygit2 reports it with a trailing slash)."""
    if repo.workdir is None:
        raise GitError(
            f"{repo.path} is a bare repository: there is no working tree",
            "run caesar in a clone with a working tree",
            exit_code=ExitCode.USAGE,
        )
    return Path(repo.workdir)


def common_dir(repo: pygit2.Repository) -> Path:
    """The directory shared by all worktrees (objects, refs, ``worktrees/``).

    ``repo.path`` is a linked worktree's private admin directory when the repository was
    opened from one; its ``commondir`` file points back at the shared one.
    """
    git_dir = Path(str(repo.path))
    pointer = git_dir / "commondir"
    if pointer.is_file():
        target = Path(pointer.read_text(encoding="utf-8").strip())
        return (git_dir / target).resolve() if not target.is_absolute() else target
    return git_dir


def find_repository_by_pygit2(path: Path) -> Path | None:
    """:func:`~caesar_core.git.repo_by_git.find_repository` told by libgit2 alone (what answers
    when the ``git`` program cannot): the working tree root containing ``path``; None outside git.

    A bare repository has no working tree, so it answers None too: there is nothing a task
    could change there.
    """
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        found = pygit2.discover_repository(str(probe))
    except pygit2.GitError:
        return None
    if found is None:
        return None
    try:
        repo = pygit2.Repository(found)
    except (pygit2.GitError, KeyError, OSError):
        return None
    return None if repo.workdir is None else Path(repo.workdir)


def head_commit_by_pygit2(repo_root: Path) -> str | None:
    """HEAD's commit SHA, or None while HEAD is unborn (a repository without a commit), told
    by libgit2 alone (:func:`~caesar_core.git.repo_by_git.head_commit` asks git first)."""
    repo = open_repository(repo_root)
    if repo.head_is_unborn:
        return None
    return str(repo.head.peel(pygit2.Commit).id)


def is_ignored(repo_root: Path, rel_path: str) -> bool:
    """Whether git's ignore rules (``.gitignore``, ``info/exclude``, global) cover the path."""
    return bool(open_repository(repo_root).path_is_ignored(rel_path))


def resolve_commit(repo: pygit2.Repository, ref: str) -> pygit2.Commit:
    """The commit ``ref`` names, or a ``GitError`` that says which ref was missing."""
    try:
        return repo.revparse_single(ref).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
        raise GitError(
            f"{ref!r} does not name a commit in {workdir_of(repo)}",
            "the task's base commit is gone (history rewritten or objects pruned); "
            "discard the task and run it again",
        ) from exc
