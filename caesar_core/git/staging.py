"""A working directory's content added by the ``git`` program into a private copy of its index:
the first steps of :mod:`caesar_core.git.viagit`'s reconciliation and of
:mod:`caesar_core.git.snapshot_by_git`'s snapshot.

``rev-parse`` (the root, the git directory, the revision's id) and, at the same time,
``config --list`` (the pins, :func:`caesar_core.git.program.pins`); a copy of the index with
its times (git's racy-entry check still sees what it would), then ``add -A`` into it, the
excluded paths left out by
pathspec. :class:`Staging` starts that ``add`` and returns: its caller may do other work
while git's stat of the tree runs (``caesar diff --json`` imports what builds its answer),
then enters it to wait. Light on purpose (no ``dataclasses``, nothing of the diff's model):
the sooner git starts, the more of the rest it hides.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from caesar_core.git.paths import exclusions
from caesar_core.git.program import (
    Git,
    GitFailed,
    Running,
    added,
    find,
    pinned,
    start_add_all,
)
from caesar_core.layout import CAESAR_DIR


class Staged:
    """A working directory's content added into a private index: the pinned program, the
    repository's root, the index file and the id of the revision it is compared with."""

    __slots__ = ("git", "index", "rev", "top")

    def __init__(self, git: Git, top: str, index: str, rev: str) -> None:
        self.git = git
        self.top = top
        self.index = index
        self.rev = rev


class Staging:
    """``add -A`` of ``workdir`` (``excludes`` left out) into a copy of its index, started when
    made (:class:`GitFailed` when git cannot start it). Entering waits for it: the
    :class:`Staged` index, or None for a directory under a root's ``.caesar/`` (a task
    worktree that lost its ``.git``: pygit2's refusal names it); leaving removes the private
    directory."""

    def __init__(self, workdir: Path, rev: str, excludes: Sequence[str]) -> None:
        self.key = (str(workdir), rev, tuple(excludes))
        self._private: tempfile.TemporaryDirectory[str] | None = None
        self._adding: Running | None = None
        self._work: Staged | None = None
        git = find()
        listing = git.start(["config", "-z", "--list"], str(workdir))  # the same repository's
        try:
            top, gitdir, rev_id = _locate(git, workdir, rev)
            listed = listing.result()
        finally:
            listing.reap()
        if top is None:
            return
        git = pinned(git, listed)
        self._private = tempfile.TemporaryDirectory(prefix="caesar-index-")
        try:
            index = os.path.join(self._private.name, "index")
            _copy_index(os.path.join(gitdir, "index"), index)
            self._adding = start_add_all(git, top, index, excludes)
        except BaseException:
            self.close()
            raise
        self._work = Staged(git, top, index, rev_id)

    def __enter__(self) -> Staged | None:
        if self._adding is not None:
            adding, self._adding = self._adding, None
            try:
                added(adding, self.key[2])
            except BaseException:
                self.close()
                raise
        return self._work

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Wait for a run not waited for, and remove the private index (again: nothing)."""
        if self._adding is not None:
            adding, self._adding = self._adding, None
            adding.reap()
        if self._private is not None:
            private, self._private = self._private, None
            private.cleanup()


def staged(workdir: Path, rev: str, excludes: Sequence[str]) -> Staging:
    """``workdir``'s content added (``add -A``, ``excludes`` left out) into a copy of its
    index, in a temporary directory that lasts the ``with`` block (see :class:`Staging`)."""
    return Staging(workdir, rev, excludes)


def begin(workdir: Path, base_ref: str, *, peel: str, exclude: Sequence[str]) -> Staging | None:
    """The staging :func:`caesar_core.git.viagit.changes` asks for these arguments, started now
    (pass it there as ``started``); None where that asks for none or git cannot start it
    (``changes`` then tries, and answers, as it would have)."""
    if base_ref.startswith("-"):
        return None
    try:
        return Staging(workdir, revision(base_ref, peel), exclusions(exclude))
    except GitFailed:
        return None


def revision(base_ref: str, peel: str) -> str:
    """The revision a reconciliation compares with: ``base_ref`` peeled to ``peel``."""
    return f"{base_ref}^{{{peel}}}"


def _locate(git: Git, workdir: Path, rev: str) -> tuple[str | None, str, str]:
    """The root and git directory of ``workdir``'s repository and ``rev``'s id; the root is
    None for a directory under a root's ``.caesar/``."""
    out = git.run(["rev-parse", "--show-toplevel", "--absolute-git-dir", rev], str(workdir))
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 3:
        raise GitFailed("rev-parse answered otherwise")
    top, gitdir, base = lines
    try:
        inner = workdir.resolve().relative_to(Path(top).resolve()).parts
    except ValueError:
        inner = ()
    return (None if inner[:1] == (CAESAR_DIR,) else top), gitdir, base


def _copy_index(source: str, dest: str) -> None:
    """A copy of the worktree's index with its times: git trusts an entry's stat data only
    when the file is older than the index, and a copy made now would hide a racy write."""
    try:
        with open(source, "rb") as src:
            data = src.read()
            info = os.fstat(src.fileno())
    except FileNotFoundError:
        return  # no index yet: everything is untracked, as pygit2 sees it
    except OSError as exc:
        raise GitFailed(str(exc)) from exc
    with open(dest, "wb") as out:
        out.write(data)
    os.utime(dest, ns=(info.st_atime_ns, info.st_mtime_ns))
