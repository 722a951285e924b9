"""Files caesar owns inside a directory an agent can write (``events.jsonl``, its lock,
``report.json``, a check's log): taken back when the agent replaced them.

What the agent left in their place (a link, a hard link, a FIFO, a directory) is renamed aside,
untouched, to ``<name>.refused-<n>`` (a rename moves a link, never what it points to), and
caesar writes its own file; what was moved aside is reported, one sentence each, so a finding can
say what the agent did. Built on :mod:`caesar_core.safefs`.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path, PurePath

from caesar_core.safefs import (
    UnsafeFileError,
    atomic_write,
    directory,
    entries,
    kind,
    open_file,
    split,
)

ASIDE = ".refused-"
"""What ``move_aside`` puts between a hostile entry's name and its number."""
_ASIDE_NAME = re.compile(r"(?P<name>.+)\.refused-(?P<n>[0-9]+)")
_MAX_ASIDE = 1000
_CLAIM_TRIES = 8


def describe(root: Path, rel: str | PurePath) -> str:
    """What stands at ``root/rel``, in words: ``a symbolic link to '/x'``, ``a FIFO``..."""
    parent, name = split(rel)
    with directory(root, parent) as dfd:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            return f"a symbolic link to {os.readlink(name, dir_fd=dfd)[:300]!r}"
    if stat.S_ISREG(st.st_mode):
        return "a hard link to another file" if st.st_nlink > 1 else "a regular file"
    return kind(st.st_mode)


def move_aside(root: Path, rel: str | PurePath) -> str:
    """Rename the entry at ``root/rel`` to ``<name>.refused-<n>`` beside it (the first free
    ``n``) and return the new path, relative to ``root``.

    A rename moves a link, never what it points to, and moves a directory whole, so whatever an
    agent left there is kept for a person to look at and nothing outside is touched.
    ``FileNotFoundError`` when nothing is there (any more).
    """
    parent, name = split(rel)
    with directory(root, parent) as dfd:
        return str(parent / move_aside_in(dfd, name, shown=root / rel))


def move_aside_in(dfd: int, name: str, *, shown: PurePath | str = "") -> str:
    """``move_aside`` of the entry ``name`` of an open directory; the new name."""
    for n in range(1, _MAX_ASIDE):
        aside = f"{name[:200]}{ASIDE}{n}"
        try:
            os.stat(aside, dir_fd=dfd, follow_symlinks=False)
            continue
        except FileNotFoundError:
            pass
        try:
            os.rename(name, aside, src_dir_fd=dfd, dst_dir_fd=dfd)
        except OSError as error:
            if error.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR, errno.ENOTDIR):
                continue  # the name was taken meanwhile
            raise
        return aside
    raise UnsafeFileError(
        shown or name, f"cannot be moved aside: {_MAX_ASIDE} entries already were"
    )


def refused_entries(root: Path) -> list[tuple[str, str]]:
    """``(original name, name moved aside)`` for each entry ``move_aside`` left in ``root``."""
    found: list[tuple[int, str, str]] = []
    for name, _ in entries(root):
        match = _ASIDE_NAME.fullmatch(name)
        if match is not None:
            found.append((int(match["n"]), match["name"], name))
    return [(original, aside) for _, original, aside in sorted(found)]


def claim(
    root: Path, rel: str | PurePath, flags: int = os.O_RDWR, mode: int = 0o644
) -> tuple[int, list[str]]:
    """Open ``root/rel``, a regular file caesar owns, creating it when missing.

    When something else stands there (a link, a directory, a FIFO, a hard link), it is moved
    aside (:func:`move_aside`) and a new file created in its place. Returns the descriptor and
    one sentence per entry moved aside, saying what it was and where it went.
    """
    moved: list[str] = []
    shown = str(root / rel)
    for _ in range(_CLAIM_TRIES):
        try:
            fd = open_file(root, rel, flags | os.O_CREAT, mode, create_dirs=True)
        except UnsafeFileError as refused:
            if refused.path != shown:
                raise  # a directory above it, which is not this file's to fix
            moved.extend(_displace(root, rel, refused))
            continue
        except PermissionError as denied:
            # A file of caesar's made unreadable (chmod 000): moved aside like the rest; when
            # it cannot be moved, the directory itself is the problem, and that is said.
            try:
                moved.extend(_displace(root, rel, UnsafeFileError(shown, "is not readable")))
            except OSError:
                raise denied from None
            continue
        return fd, moved
    raise UnsafeFileError(shown, "keeps being replaced; caesar gave up writing it")


def claim_write(
    root: Path, rel: str | PurePath, data: bytes, *, mode: int = 0o644, durable: bool = True
) -> list[str]:
    """:func:`atomic_write` of a file caesar owns: a directory standing in its way is moved
    aside first (a link or a FIFO is simply replaced). Returns what was moved, as in
    :func:`claim`."""
    moved: list[str] = []
    shown = str(root / rel)
    for _ in range(_CLAIM_TRIES):
        try:
            atomic_write(root, rel, data, mode=mode, durable=durable)
        except UnsafeFileError as refused:
            if refused.path != shown:
                raise
            moved.extend(_displace(root, rel, refused))
            continue
        return moved
    raise UnsafeFileError(shown, "keeps being replaced; caesar gave up writing it")


def _displace(root: Path, rel: str | PurePath, refused: UnsafeFileError) -> list[str]:
    try:
        what = describe(root, rel)
    except OSError:
        what = refused.problem
    try:
        aside = move_aside(root, rel)
    except FileNotFoundError:
        return []  # another writer moved it first
    return [f"{rel} was {what}; caesar moved it aside to {aside} and wrote its own"]
