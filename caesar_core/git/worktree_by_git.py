"""Creating a task's linked worktree with the ``git`` program, pygit2 when git cannot.

``git worktree add`` lays out what ``git.worktree`` writes by hand (the admin directory, the
``.git`` file, the index, the branch) and checks the files out as fast; running it spares a
``caesar run`` loading libgit2 at all (its import parses the system's CA bundle, a third of
the command's own work). It runs in ``git.program``'s pinned environment: no hook (no
``post-checkout``), every filter driver the config names neutralised (files are written as
their bytes, as libgit2's checkout writes them; CRLF and ``ident`` are applied by both), no
transport, no submodule recursion, absolute paths in the admin files as libgit2 reads them.

Whenever the git program is missing, too old, or anything is not plainly fine (the name git
would give the admin directory, an occupied destination, an unborn HEAD, an existing branch,
a failure midway), pygit2's :func:`~caesar_core.git.worktree.create_worktree_by_pygit2`
does the work instead, so every refusal is the one it has always been.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from caesar_core.git.branches import write_lock
from caesar_core.git.program import Git, GitFailed, find, pins

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
"""An admin directory name git keeps as it is (it rewrites others, e.g. a leading ``.``)."""

_ADD_PINS = (
    ("submodule.recurse", "false"),
    ("worktree.useRelativePaths", "false"),
)


def create_worktree(
    repo_root: Path,
    dest: Path,
    branch: str | None,
    *,
    at: str | None = None,
    lock: str | None = None,
) -> str:
    """A linked worktree at ``dest`` on the new ``branch`` at HEAD (or ``at``); its commit.

    Everything :func:`~caesar_core.git.worktree.create_worktree_by_pygit2` says holds: the
    main working tree and index are untouched, nothing is left behind when it fails, and
    ``lock`` locks it with that reason as ``git worktree lock --reason`` does.
    """
    made = _added_by_git(repo_root, dest, branch, at=at, lock=lock)
    if made is not None:
        return made
    from caesar_core.git.worktree import create_worktree_by_pygit2  # pygit2: git cannot

    return create_worktree_by_pygit2(repo_root, dest, branch, at=at, lock=lock)


def _added_by_git(
    repo_root: Path, dest: Path, branch: str | None, *, at: str | None, lock: str | None
) -> str | None:
    """The commit of the worktree ``git worktree add`` made; None when it was not made."""
    start = at if at is not None else "HEAD"
    dest = Path(os.path.abspath(dest))
    if start.startswith("-") or (branch is not None and branch.startswith("-")):
        return None
    if not _PLAIN_NAME.fullmatch(dest.name) or _occupied(dest):
        return None
    try:
        git = find()
        top, common, commit = _locate(git, repo_root, start)
        admin = common / "worktrees" / dest.name
        if top != Path(repo_root).resolve() or os.path.lexists(admin):
            return None
        git = pins(git, str(top))
    except GitFailed:
        return None
    args = ["worktree", "add", "--quiet"]
    args += ["--lock"] if lock is not None else []
    args += ["-b", branch] if branch is not None else ["--detach"]
    git = Git(git.path, git.pins + _ADD_PINS)
    try:
        git.run([*args, "--", str(dest), commit], str(top))
    except GitFailed as failed:
        # git creates the branch before it checks the destination out: a failure after that
        # leaves the branch, which is removed (only at this commit, only if git made it).
        if branch is not None and "a branch named" not in str(failed):
            with contextlib.suppress(GitFailed):
                git.run(["update-ref", "-d", f"refs/heads/{branch}", commit], str(top))
        return None
    if lock is not None:
        write_lock(admin, lock)
    return commit


def _occupied(dest: Path) -> bool:
    """Whether ``dest`` exists as anything but an empty directory (pygit2 refuses that)."""
    if not os.path.lexists(dest):
        return False
    return dest.is_symlink() or not dest.is_dir() or any(dest.iterdir())


def _locate(git: Git, repo_root: Path, start: str) -> tuple[Path, Path, str]:
    """The working tree root, the common git directory, and the commit ``start`` names."""
    cwd = str(repo_root)
    listed = git.run(
        [
            "rev-parse",
            "--show-toplevel",
            "--git-common-dir",
            "--verify",
            "-q",
            f"{start}^{{commit}}",
        ],
        cwd,
    )
    lines = os.fsdecode(listed).split("\n")
    if len(lines) < 3 or not lines[2]:
        raise GitFailed("rev-parse answered less than asked")
    return Path(lines[0]), (Path(cwd) / lines[1]).resolve(), lines[2]
