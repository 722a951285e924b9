"""File writes another process may read at any moment: whole or not at all.

Readers of the task directory (``caesar watch``, the MCP servers, the agents themselves) never
take a lock, so every writer here makes the new content appear in one atomic step.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write(path: Path, data: bytes, *, mode: int = 0o644, durable: bool = True) -> None:
    """Replace ``path`` with ``data``: a reader sees the old file or the new one, never a mix.

    The temporary file lives in the same directory so ``os.replace`` stays a rename on one
    filesystem; it is fsynced first (unless not ``durable``: files of a working tree, which git
    does not fsync either) so a crash cannot leave an empty file behind the new name.
    """
    tmp = _durable_temp(path, data, mode, fsync=durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def create_exclusive(path: Path, data: bytes, *, mode: int = 0o644, durable: bool = True) -> None:
    """Create ``path`` with ``data`` only if it does not exist yet.

    Raises ``FileExistsError`` when it does. The content is written to a temporary file and
    then hard-linked into place, so a reader never sees the new name with partial content,
    and two racing creators cannot both succeed (``link`` is ``O_EXCL`` for names). Not
    ``durable``: not fsynced, for a file a crash makes moot (a slot whose holder died with it).
    """
    tmp = _durable_temp(path, data, mode, fsync=durable)
    try:
        os.link(tmp, path)
    finally:
        _unlink_quietly(tmp)


def dump_json(value: Any) -> bytes:
    """Pretty, stable JSON for documents people open in an editor."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def _durable_temp(path: Path, data: bytes, mode: int, *, fsync: bool = True) -> str:
    """A fully written, fsynced temporary file beside ``path``, ready to be renamed or linked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        _write_all(fd, data)
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(tmp)
        raise
    os.close(fd)
    return tmp


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
