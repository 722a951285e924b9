"""Where the repository is and what HEAD is, asked of the ``git`` program; pygit2 when git
cannot answer.

``caesar run`` asks both before anything else; answering them with ``git rev-parse`` spares
the command loading libgit2 (its import parses the system's CA bundle, a third of the
command's own work). git runs in ``git.program``'s pinned environment (no ``GIT_*`` variable
of the user's, so no ``GIT_DIR`` or ceiling steers the discovery). Only the plain answers are
taken from git: a working tree's root, "not a repository", a commit. Everything else (a bare
repository, a path inside a ``.git`` directory, an unborn HEAD, a repository git refuses as
not safe, a missing or old git) is left to the pygit2 versions in ``git.repo``, which have
always answered them.
"""

from __future__ import annotations

import os
from pathlib import Path

from caesar_core.git.program import GitFailed, find

_NOT_A_REPOSITORY = "not a git repository (or any"
"""git's words (``LC_ALL=C``) when no repository contains the directory at all."""


def find_repository(path: Path) -> Path | None:
    """The working tree root of the repository containing ``path``; None outside git.

    A bare repository has no working tree, so it answers None too: there is nothing a task
    could change there.
    """
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.is_dir():
        try:
            top = find().run(["rev-parse", "--show-toplevel"], str(probe))
        except GitFailed as failed:
            if _NOT_A_REPOSITORY in str(failed):
                return None
        else:
            found = os.fsdecode(top).removesuffix("\n")
            if found and "\n" not in found:
                return Path(found)
    from caesar_core.git.repo import find_repository_by_pygit2  # pygit2: git cannot tell

    return find_repository_by_pygit2(path)


def head_commit(repo_root: Path) -> str | None:
    """HEAD's commit SHA, or None while HEAD is unborn (a repository without a commit)."""
    try:
        listed = find().run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], str(repo_root))
    except (GitFailed, OSError):
        pass
    else:
        commit = os.fsdecode(listed).strip()
        if commit:
            return commit
    from caesar_core.git.repo import head_commit_by_pygit2  # pygit2: git cannot tell

    return head_commit_by_pygit2(repo_root)
