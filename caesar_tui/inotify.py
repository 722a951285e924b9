"""Changed paths under a few directories, straight from Linux's inotify, on the asyncio loop.

``watchfiles`` wakes every ``step`` milliseconds to look for changes (a hundred times a second
for a 10 ms step, idle or not) and hands a change over one or two steps after it happened.
The kernel's inotify descriptor is instead read when it is readable: an append reaches the
app at once, and an idle app does not wake at all.

Every directory watched is one an agent may write, so the watch is bounded: each root says
how deep to go and which subdirectories are worth a watch (``Root.wanted``), links are never
followed (``IN_DONT_FOLLOW``, ``IN_ONLYDIR``), and a directory listed when it appears is
listed once, one level. Linux only; :func:`available` says whether it can be used here.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000

MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
    | IN_EXCL_UNLINK
)
_APPEARED = IN_CREATE | IN_MOVED_TO
_HEADER = struct.Struct("iIII")
_READ_SIZE = 1 << 16

OVERFLOW = "<overflow>"
"""In a batch: the kernel's queue overflowed and changes were lost; read everything again."""


class WatchError(OSError):
    """A directory could not be watched (the kernel's watch limit, most often)."""


@dataclass(frozen=True)
class Root:
    """A directory to watch, how deep, and which subdirectories on the way."""

    path: Path
    depth: int = 0
    """Levels of subdirectories watched below ``path`` (0: the directory alone)."""
    wanted: Callable[[tuple[str, ...]], bool] = field(default=lambda parts: True)
    """Whether the subdirectory at these parts (relative to ``path``) is watched."""


@cache
def _load() -> ctypes.CDLL | None:
    """The C library's inotify calls; None where there are none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc


def available() -> bool:
    return _load() is not None


@dataclass
class _Watch:
    root: Root
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        return self.root.path.joinpath(*self.parts)


class Inotify:
    """Watches some roots; :meth:`batches` yields the paths that changed, as strings."""

    def __init__(self, roots: list[Root]) -> None:
        libc = _load()
        if libc is None:
            raise WatchError(errno.ENOSYS, "inotify is not available here")
        self._libc = libc
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            number = ctypes.get_errno()
            raise WatchError(number, f"inotify_init1: {os.strerror(number)}")
        self._fd = fd
        self._watches: dict[int, _Watch] = {}
        self._pending: set[str] = set()
        self._ready = asyncio.Event()
        self._failure: WatchError | None = None
        self._reading = False
        try:
            for root in roots:
                self._watch(_Watch(root, ()), None)  # what is there already is not news
        except BaseException:
            self.close()
            raise

    def _watch(self, watch: _Watch, listed: set[str] | None) -> None:
        """Watch a directory and its wanted subdirectories. A directory that just appeared
        adds what it already holds to ``listed``: what appeared in it before its watch
        existed would otherwise never be told (``None``: the first watch, nothing is news)."""
        path = watch.path
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), MASK)
        if wd < 0:
            number = ctypes.get_errno()
            if number in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP):
                return  # gone already, or a link or a file in its place: nothing to watch
            raise WatchError(number, f"cannot watch {path}: {os.strerror(number)}")
        self._watches[wd] = watch
        deeper = len(watch.parts) < watch.root.depth
        if listed is None and not deeper:
            return
        try:
            entries = list(os.scandir(path))
        except OSError:
            return
        for entry in entries:
            if listed is not None:
                listed.add(entry.path)
            if deeper and entry.is_dir(follow_symlinks=False):
                self._maybe_watch(watch, entry.name, listed)

    def _maybe_watch(self, parent: _Watch, name: str, listed: set[str] | None) -> None:
        parts = (*parent.parts, name)
        root = parent.root
        if len(parts) <= root.depth and root.wanted(parts):
            self._watch(_Watch(root, parts), listed)

    def _on_readable(self) -> None:
        try:
            while True:
                try:
                    data = os.read(self._fd, _READ_SIZE)
                except BlockingIOError:
                    break
                if not data:
                    break
                self._parse(data)
        except WatchError as error:
            self._failure = error
        except OSError as error:
            self._failure = WatchError(error.errno or errno.EIO, str(error))
        if self._pending or self._failure is not None:
            self._ready.set()

    def _parse(self, data: bytes) -> None:
        offset = 0
        while offset + _HEADER.size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
            start = offset + _HEADER.size
            name = os.fsdecode(data[start : start + length].rstrip(b"\0"))
            offset = start + length
            if mask & IN_Q_OVERFLOW:
                self._pending.add(OVERFLOW)
                continue
            watch = self._watches.get(wd)
            if watch is None:
                continue
            if mask & IN_IGNORED:
                del self._watches[wd]
                continue
            path = watch.path
            if not name:  # the watched directory itself (deleted, moved)
                self._pending.add(str(path))
                continue
            self._pending.add(str(path / name))
            if mask & IN_ISDIR and mask & _APPEARED:
                self._maybe_watch(watch, name, self._pending)

    async def batches(self) -> AsyncGenerator[set[str]]:
        """The paths that changed since the last batch, as soon as there are any."""
        loop = asyncio.get_running_loop()
        loop.add_reader(self._fd, self._on_readable)
        self._reading = True
        try:
            while True:
                await self._ready.wait()
                self._ready.clear()
                if self._failure is not None:
                    raise self._failure
                batch, self._pending = self._pending, set()
                if batch:
                    yield batch
        finally:
            loop.remove_reader(self._fd)
            self._reading = False

    @property
    def watched(self) -> int:
        """Directories under watch."""
        return len(self._watches)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
