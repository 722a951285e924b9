"""The only producer of ``seq``: appends whole event lines to ``events.jsonl``.

Several processes append to one task's log at once (the runner, the MCP channel server,
``caesar answer``, a hook bridge), and agents may append lines of their own. Every line must
stay whole and every ``seq`` unique, so allocation happens under an exclusive ``flock`` on a
sidecar lock file, and each line goes out in a single ``O_APPEND`` write.

The lock file doubles as a cache of what the log holds (its size, inode and the next ``seq``),
so an append costs a few syscalls plus a scan of the bytes appended by someone else since the
last append: never a read of the whole log, except when the cache cannot be trusted (missing,
corrupt, or the log was truncated or replaced).

Both files live in the task directory, which the agent can write: they are opened through
:mod:`caesar_core.safefs` (no link followed, regular files with one link only). When the agent
put something else in their place (a link to a file outside, a directory, a FIFO, a hard link),
it is moved aside, a new file is created, and the next append says so in an ``error`` event.
Nothing in the log decides whether caesar may write ``finished``: agents can append any line,
including one that looks like caesar's own ending. One writer writes at most one ``finished``;
that each task gets one is the business of whoever concludes it (see ``runner``).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from caesar_core import reclaim, safefs
from caesar_core.protocol.event import WIRE_EVENTS, Error, Event, EventPayload
from caesar_core.protocol.versions import CURRENT, DocumentKind

_SCAN_CHUNK = 1 << 20
_FINGERPRINT = 32
"""Bytes before the cached size that must be unchanged for the cache to be trusted."""
_ENVELOPE_KEYS = ("protocol", "seq", "at", "task_id")
_EVENT_PROTOCOL = CURRENT[DocumentKind.EVENT]


def utc_now() -> datetime:
    return datetime.now(UTC)


def format_at(moment: datetime) -> str:
    """``at`` as written: UTC, milliseconds, ``Z``, so lines sort and diff as plain text."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"event clock returned a naive datetime: {moment!r}")
    utc = moment.astimezone(UTC)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"


def encode_line(payload: EventPayload, *, seq: int, at: datetime, task_id: str) -> bytes:
    """One wire line (with its ``\\n``) exactly as :class:`EventWriter` writes it.

    Public so that fixtures and benchmarks produce byte-identical logs without a lock. The
    envelope wins over payload extras of the same name: a producer cannot forge a ``seq``.
    """
    return _encode(_wire_dict(payload, seq, format_at(at), task_id))


def lock_path_for(log: Path) -> Path:
    """The sidecar lock of a log: ``events.jsonl`` -> ``.events.lock`` in the same directory.

    Derived from the log's name so that two logs in one directory never share a cache.
    """
    return log.with_name(f".{log.stem}.lock")


def _wire_dict(payload: EventPayload, seq: int, at: str, task_id: str) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "protocol": _EVENT_PROTOCOL,
        "seq": seq,
        "at": at,
        "task_id": task_id,
    }
    for key, value in payload.model_dump(mode="json", exclude_none=True).items():
        if key not in wire:
            wire[key] = value
    return wire


def _encode(wire: dict[str, Any]) -> bytes:
    text = json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode() + b"\n"


@dataclass
class _State:
    """What the lock file caches about the log; meaningful only while the lock is held."""

    size: int = 0
    inode: int = 0
    next_seq: int = 0
    tail: bytes = b""
    """The last bytes before ``size``: a rewrite in place changes them."""

    def dump(self) -> bytes:
        return json.dumps(
            {
                "size": self.size,
                "inode": self.inode,
                "next_seq": self.next_seq,
                "tail": self.tail.hex(),
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def load(cls, raw: bytes) -> _State | None:
        try:
            data = safefs.loads(raw)  # the agent can write the lock file: bad content is no cache
            state = cls(
                size=data["size"],
                inode=data["inode"],
                next_seq=data["next_seq"],
                tail=bytes.fromhex(data["tail"]),
            )
        except (ValueError, TypeError, KeyError, RecursionError):
            return None
        ints = (state.size, state.inode, state.next_seq)
        if not all(type(v) is int and v >= 0 for v in ints):
            return None
        return state


class EventWriter:
    """Appends events to one task's log; safe across processes, not across threads.

    One instance may be used by one thread at a time: ``flock`` is held per open file, so two
    threads sharing an instance would share the lock. Use one writer per thread or guard it.
    After a ``fork`` the child reopens its files on first use for the same reason.
    """

    def __init__(
        self, path: Path, task_id: str, *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.path = path
        self.task_id = task_id
        self._clock = clock
        self._dir = path.parent
        """The task directory: trusted as a path, nothing below it is."""
        self._lock_path = lock_path_for(path)
        self._log_name = path.name
        self._lock_name = self._lock_path.name
        self._dir_fd = -1
        self._log_fd = -1
        self._lock_fd = -1
        self._pid = -1
        self._closed = False
        self._finished_at: tuple[int, int] | None = None
        """Inode and end offset of the ``finished`` this writer wrote, while the log holds it."""
        self._unsaid: list[str] = []
        """What was moved aside to make room for the log or the lock, not yet told in it."""
        self._open()

    # -- public -------------------------------------------------------------------------

    def append(self, payload: EventPayload) -> Event | None:
        """Write one event; ``None`` when it is this writer's second ``finished``, refused."""
        written = self.append_many((payload,))
        return written[0] if written else None

    def append_many(self, payloads: Iterable[EventPayload]) -> list[Event]:
        """Write a batch under one lock and in one ``write``; refused ``finished`` are dropped.

        Returns the events written, in order. Consecutive ``seq`` values, since no other
        writer can interleave with the batch (an ``error`` event saying what was moved aside
        to make room for the log may come first; it is not returned).
        """
        batch = list(payloads)
        if not batch:
            return []
        self._ensure_open()
        self._lock()
        try:
            return self._append_locked(batch)
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_fds()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- files and lock -----------------------------------------------------------------

    def _open(self) -> None:
        try:
            self._dir_fd = safefs.open_root(self._dir)
            # Read access too: scans and the fingerprint check must see the very inode we
            # append to.
            self._log_fd = self._claim(self._log_name, os.O_RDWR | os.O_APPEND)
            self._lock_fd = self._claim(self._lock_name, os.O_RDWR)
        except BaseException:
            self._close_fds()
            raise
        self._pid = os.getpid()

    def _claim(self, name: str, flags: int) -> int:
        fd, moved = reclaim.claim(self._dir, name, flags)
        self._unsaid.extend(moved)
        return fd

    def _current(self, name: str) -> os.stat_result | None:
        """What is at ``name`` now, the entry itself (a link is not followed)."""
        try:
            return os.stat(name, dir_fd=self._dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def _close_fds(self) -> None:
        for fd in (self._log_fd, self._lock_fd, self._dir_fd):
            if fd >= 0:
                os.close(fd)
        self._log_fd = self._lock_fd = self._dir_fd = -1

    def _ensure_open(self) -> None:
        if self._closed:
            raise ValueError(f"event writer for {self.path} is closed")
        if self._pid != os.getpid():
            # The parent's descriptors share its flock; this process needs its own.
            self._close_fds()
            self._open()

    def _lock(self) -> None:
        """Take the lock on the lock file that is at its path now, not a deleted one."""
        while True:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            held = os.fstat(self._lock_fd)
            current = self._current(self._lock_name)
            if current is not None and _same_file(held, current):
                return
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1
            self._lock_fd = self._claim(self._lock_name, os.O_RDWR)

    def _follow_log(self) -> os.stat_result:
        """Reopen the log if it was replaced or removed since we opened it; return its stat."""
        held = os.fstat(self._log_fd)
        current = self._current(self._log_name)
        if current is not None and _same_file(held, current):
            return held
        os.close(self._log_fd)
        self._log_fd = -1
        self._log_fd = self._claim(self._log_name, os.O_RDWR | os.O_APPEND)
        return os.fstat(self._log_fd)

    # -- allocation ---------------------------------------------------------------------

    def _append_locked(self, batch: list[EventPayload]) -> list[Event]:
        st = self._follow_log()
        state = self._current_state(st)
        data = bytearray()
        boundary = st.st_size
        if state.size < st.st_size:
            scan = _scan(self._log_fd, state.size, st.st_size)
            state.next_seq = max(state.next_seq, scan.max_seq + 1)
            boundary = scan.boundary
            if scan.fragment:
                data += b"\n"  # Close a foreign partial line so that ours stays whole.
        at = format_at(self._clock())
        events: list[Event] = []
        for notice in self._unsaid:
            # What the agent did to the log or its lock, in the log itself, before anything.
            wire = _wire_dict(Error(message=notice), state.next_seq, at, self.task_id)
            data += _encode(wire)
            state.next_seq += 1
        told = len(self._unsaid)
        if self._finished_at is not None:
            inode, end = self._finished_at
            if st.st_ino != inode or st.st_size < end:
                self._finished_at = None  # the log was replaced or truncated: it is gone
        finished = False
        for payload in batch:
            if payload.type == "finished":
                if self._finished_at is not None or finished:
                    continue
                finished = True
            wire = _wire_dict(payload, state.next_seq, at, self.task_id)
            # The model the union's discriminator would pick (``type``), validated alone: a
            # writer of two kinds of event does not build the validators of all ten.
            events.append(WIRE_EVENTS[payload.type].model_validate(wire))  # type: ignore[arg-type]
            data += _encode(wire)
            state.next_seq += 1
        if not events and not told:
            # Nothing written: remember the scan only up to a line boundary, because a
            # foreign partial line may still be completed by its writer.
            self._save(state, st, boundary)
            return events
        _write_all(self._log_fd, data)
        del self._unsaid[:told]
        end = os.lseek(self._log_fd, 0, os.SEEK_CUR)
        if finished:
            self._finished_at = (st.st_ino, end)
        start = end - len(data)
        if start > st.st_size:
            # A foreign writer slipped in between our fstat and our write: account for it.
            scan = _scan(self._log_fd, st.st_size, start)
            state.next_seq = max(state.next_seq, scan.max_seq + 1)
        self._save(state, st, end)
        return events

    def _current_state(self, st: os.stat_result) -> _State:
        state = _State.load(os.pread(self._lock_fd, 4096, 0))
        if state is None or state.inode != st.st_ino or state.size > st.st_size:
            return _State(inode=st.st_ino)
        if state.tail:
            start = state.size - len(state.tail)
            if start < 0 or os.pread(self._log_fd, len(state.tail), start) != state.tail:
                return _State(inode=st.st_ino)
        elif state.size:
            return _State(inode=st.st_ino)
        return state

    def _save(self, state: _State, st: os.stat_result, size: int) -> None:
        state.size = size
        state.inode = st.st_ino
        start = max(0, size - _FINGERPRINT)
        state.tail = os.pread(self._log_fd, size - start, start) if size else b""
        raw = state.dump()
        os.pwrite(self._lock_fd, raw, 0)
        os.ftruncate(self._lock_fd, len(raw))


def _write_all(fd: int, data: bytearray) -> None:
    """One ``write`` in practice; the loop only covers the short write of a nearly full disk,
    where finishing the line beats leaving half of it (we hold the lock, so no writer of ours
    can slip in between)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return a.st_ino == b.st_ino and a.st_dev == b.st_dev


@dataclass
class _Scan:
    max_seq: int = -1
    boundary: int = 0
    """Offset just past the last complete line scanned."""
    fragment: bytes = b""
    """Bytes after the last newline: a line someone has not finished writing."""


def _scan(fd: int, start: int, end: int) -> _Scan:
    """What lines in ``[start, end)`` of the log mean for allocation; bad lines are ignored.

    The unterminated tail counts as a line too: the caller is about to terminate it with its
    own write, and if it does not, a ``seq`` reserved too early is harmless.
    """
    result = _Scan(boundary=start)
    carry = b""
    offset = start
    while offset < end:
        chunk = os.pread(fd, min(_SCAN_CHUNK, end - offset), offset)
        if not chunk:
            break
        offset += len(chunk)
        cut = chunk.rfind(b"\n")
        if cut < 0:
            carry += chunk
            continue
        for line in (carry + chunk[:cut]).split(b"\n"):
            _inspect(line, result)
        carry = chunk[cut + 1 :]
        result.boundary = offset - len(carry)
    result.fragment = carry
    if carry:
        _inspect(carry, result)
    return result


def _inspect(line: bytes, result: _Scan) -> None:
    """Only ``seq`` matters here: whatever type a foreign line claims, it changes nothing else."""
    if not line or line.isspace():
        return
    try:
        data = safefs.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    seq = data.get("seq")
    if type(seq) is int and seq > result.max_seq:
        result.max_seq = seq
