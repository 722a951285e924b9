"""Per-task configuration files an agent CLI reads, laid down for one run only.

Some CLIs take their MCP servers or policies only from a file (gemini's workspace
``.gemini/settings.json``, claude's ``mcp.json`` in the task directory). The file may be the
user's own: whatever entry was there (a file, a link) is renamed aside and renamed back after
the run, exactly as it was, or caesar's file is removed when there was none, so the task's diff
never shows caesar's plumbing and the user's configuration is never lost.

Those directories are the agent's to write during the run. Each file's directory is opened
once, before the agent starts, through :mod:`caesar_core.safefs` (no link followed), and held:
putting things back goes through that descriptor, so an agent that replaced the directory by a
link to somewhere else, or moved it, cannot make caesar write or remove anything there. What
the agent left at caesar's name (a directory, say) is moved aside, never deleted. Putting back
never raises: the task is concluded whatever the agent did.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from caesar_core import reclaim, safefs


@dataclass
class _Laid:
    dfd: int
    name: str
    kept: str | None
    """The name the user's own entry was renamed to, or None when there was none."""


@contextlib.contextmanager
def injected(files: Mapping[Path, str], roots: Sequence[Path]) -> Iterator[None]:
    """Lay ``files`` (each below one of ``roots``) down for the ``with`` block, then put back
    what was there."""
    laid: list[_Laid] = []
    try:
        for path, text in files.items():
            laid.append(_lay(path, text.encode(), roots))
        yield
    finally:
        for item in reversed(laid):
            with contextlib.suppress(OSError):
                _put_back(item)
            os.close(item.dfd)


def _lay(path: Path, data: bytes, roots: Sequence[Path]) -> _Laid:
    root = next((r for r in roots if path.is_relative_to(r)), path.parent)
    rel = safefs.relative_to_root(root, path)
    dfd = safefs.open_dir(root, rel.parent, create=True)
    try:
        name = rel.name
        kept = None
        if _exists(dfd, name):
            kept = f".{name[:64]}.caesar-kept-{secrets.token_hex(4)}"
            os.rename(name, kept, src_dir_fd=dfd, dst_dir_fd=dfd)
        laid = _Laid(dfd, name, kept)
        safefs.write_in(dfd, name, data, shown=path)
    except BaseException:
        os.close(dfd)
        raise
    return laid


def _put_back(item: _Laid) -> None:
    dfd, name = item.dfd, item.name
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        reclaim.move_aside_in(dfd, name)  # the agent's directory, kept for a person to look at
    elif st is not None and item.kept is None:
        os.unlink(name, dir_fd=dfd)
    if item.kept is not None:
        os.replace(item.kept, name, src_dir_fd=dfd, dst_dir_fd=dfd)


def _exists(dfd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True
