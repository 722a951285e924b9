"""Every process a task started, found and stopped, however it left its process group.

An agent's helper may call ``setsid``, double-fork or change its process group; a signal to the
agent's group misses it. A task's processes are found by what they cannot shed by accident:

- its cgroup (``runner/cgroup.py``), where the kernel allows one: everything born there;
- the task's marker, ``CAESAR_TASK_ID=<id>`` in ``/proc/<pid>/environ``, which every process
  the agent starts inherits;
- the agent's process group and session (a pgid or sid is never reused while a process has
  it), and every descendant of a process found so far.

A process that leaves its session and clears its environment too is caught only by the cgroup.
Reads of ``/proc`` are bounded and tolerate processes vanishing mid-read. Signals go through a
pidfd opened before the process is checked, so a pid reused in between is never signalled.

When no cgroup can be had, the orchestrating process also becomes a child subreaper
(``PR_SET_CHILD_SUBREAPER``): the orphans of its agents are reparented to it instead of init,
so their pid stays theirs until caesar reaps them. Only zombies that provably belong to a task
are reaped (the agent's session, or a session leader caesar did not start itself), never one a
``subprocess`` call of another thread is waiting for. The sweep works from any process
(``caesar cancel``, the watchdog), which needs no subreaper.

Linux only; elsewhere ``stop`` signals the agent's process group, as before.
Imports nothing but the standard library: the watchdog uses it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

from caesar_core.runner import cgroup as cgroups
from caesar_core.runner import watchstart

KILL_GRACE_S = watchstart.KILL_GRACE_S
"""Between SIGTERM and SIGKILL: long enough to flush a report, short enough to stop a hang
(defined in ``watchstart``, whose first wait is bounded by it)."""
MARKER_VARIABLE = "CAESAR_TASK_ID"
"""``protocol.taskdir.ENV_TASK_ID``, spelled out so this module imports no pydantic."""
KILL_ROUNDS = 50
"""SIGKILL sweeps at most, each catching what forked since the last one."""
ENVIRON_LIMIT = 4 << 20
"""Bytes of one process's environment read at most (the kernel's default limit is 2 MiB)."""
_STAT_LIMIT = 4096
_TICK_S = 0.05
_PR_SET_CHILD_SUBREAPER = 36

spawn_lock = threading.Lock()
"""Held while caesar starts a process in a new session and registers it (``started``), so a
reaping sweep never takes a just-exited child whose ``Popen`` has not been registered yet."""
_started: set[int] = set()


class Proc(NamedTuple):
    pid: int
    ppid: int
    pgid: int
    sid: int
    start: int
    """Start time in clock ticks since boot: with the pid, the identity of a process."""
    zombie: bool


def started(pid: int) -> None:
    """Record a session leader this process started itself (call under ``spawn_lock``)."""
    _started.add(pid)


def forget(pid: int) -> None:
    """The session leader ``pid`` was reaped by its ``Popen``."""
    _started.discard(pid)


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux 3.4); idempotent."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


# -- reading /proc -----------------------------------------------------------------------


def _read(path: str, limit: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, min(1 << 16, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def stat(pid: int) -> Proc | None:
    """What ``/proc/<pid>/stat`` says, or ``None`` when the process is gone."""
    raw = _read(f"/proc/{pid}/stat", _STAT_LIMIT)
    if not raw:
        return None
    # The command name is parenthesized and may hold anything, spaces and ')' included.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        return Proc(
            pid=pid,
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            start=int(fields[19]),
            zombie=fields[0] in (b"Z", b"X"),
        )
    except (IndexError, ValueError):
        return None


def carries_marker(pid: int, task_id: str) -> bool:
    """Whether the process was started with ``CAESAR_TASK_ID=<task_id>`` in its environment."""
    environ = _read(f"/proc/{pid}/environ", ENVIRON_LIMIT)
    return environ is not None and f"\0{MARKER_VARIABLE}={task_id}\0".encode() in b"\0" + environ


def _all() -> dict[int, Proc]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    table = {}
    for name in names:
        if name.isdigit() and (proc := stat(int(name))) is not None:
            table[proc.pid] = proc
    return table


def members(task_id: str, *, leader: int | None = None, cgroup: Path | None = None) -> list[Proc]:
    """The live processes of the task (never this process), parents before children."""
    table = _all()
    mine = os.getpid()
    seeds = set(cgroups.procs(cgroup)) if cgroup is not None else set()
    if leader in table and leader not in seeds and not carries_marker(leader, task_id):
        leader = None  # the number was reused: its group and session are someone else's
    for proc in table.values():
        if proc.zombie or proc.pid in (mine, 1):
            continue
        if leader in (proc.pid, proc.pgid, proc.sid) or carries_marker(proc.pid, task_id):
            seeds.add(proc.pid)
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: list[Proc] = []
    seen: set[int] = set()
    queue = sorted(seeds)
    while queue:
        pid = queue.pop(0)
        entry = table.get(pid)
        if pid in seen or entry is None or entry.zombie or pid in (mine, 1):
            continue
        seen.add(pid)
        found.append(entry)
        queue.extend(children.get(pid, ()))
    return found


# -- signalling --------------------------------------------------------------------------


def _signal(proc: Proc, sig: int) -> None:
    """Signal ``proc`` if it is still that very process (same pid and start time)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        again = stat(proc.pid)
        if again is not None and again.start == proc.start:
            with contextlib.suppress(OSError):
                os.kill(proc.pid, sig)
        return
    try:
        fd = pidfd_open(proc.pid)
    except OSError:
        return  # gone
    try:
        again = stat(proc.pid)  # read after the pidfd pinned the pid: no reuse can slip in
        if again is not None and again.start == proc.start:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, sig)
    finally:
        os.close(fd)


def _gone(procs: list[Proc]) -> bool:
    for proc in procs:
        now = stat(proc.pid)
        if now is not None and now.start == proc.start and not now.zombie:
            return False
    return True


class Stopped(NamedTuple):
    """What :func:`stop_tree` did: the processes it signalled, and those still alive after."""

    signalled: list[int]
    alive: list[int]


def stop(
    task_id: str,
    *,
    leader: int | None = None,
    cgroup: Path | None = None,
    grace_s: float = KILL_GRACE_S,
) -> int:
    """SIGTERM every process of the task, SIGKILL whatever is left after ``grace_s`` (and what
    forked since), sweep after sweep until none is left; returns how many were left at the end
    (0 unless something forks faster than it can be killed for ``KILL_ROUNDS`` sweeps)."""
    return len(stop_tree(task_id, leader=leader, cgroup=cgroup, grace_s=grace_s).alive)


def stop_tree(
    task_id: str,
    *,
    leader: int | None = None,
    cgroup: Path | None = None,
    grace_s: float = KILL_GRACE_S,
) -> Stopped:
    """:func:`stop`, saying which processes it signalled and which are still alive.

    ``leader`` need not lead a process group: the reference implementation records its agent's
    pid, which shares its runner's group. Its group is then not the task's (the runner is in
    it): the pid itself and its descendants are, with whatever carries the task's marker.
    """
    if not sys.platform.startswith("linux"):
        return _stop_group(leader, grace_s)
    signalled: dict[int, None] = {}
    found = members(task_id, leader=leader, cgroup=cgroup)
    if not found:
        # Nothing of the task is alive (the usual end), so nothing can have forked since:
        # no second sweep of every process on the machine.
        reap(leader)
        return Stopped([], [])
    for proc in found:
        _signal(proc, signal.SIGTERM)
        signalled[proc.pid] = None
    deadline = time.monotonic() + grace_s
    while found and time.monotonic() < deadline and not _gone(found):
        time.sleep(_TICK_S)
    for _ in range(KILL_ROUNDS):
        if cgroup is not None:
            cgroups.kill(cgroup)
        found = members(task_id, leader=leader, cgroup=cgroup)
        if not found:
            break
        for proc in found:
            _signal(proc, signal.SIGKILL)
            signalled[proc.pid] = None
        for _ in range(10):
            if _gone(found):
                break
            time.sleep(_TICK_S / 5)
    reap(leader)
    # A sweep that found none left has the answer; after the last round, it is asked again.
    alive = [proc.pid for proc in members(task_id, leader=leader, cgroup=cgroup)] if found else []
    return Stopped(list(signalled), alive)


def _stop_group(leader: int | None, grace_s: float) -> Stopped:
    """Without ``/proc``: the agent's process group, SIGTERM then SIGKILL; the agent's pid
    alone when it leads no group (its descendants cannot be found without ``/proc``)."""
    if leader is None:
        return Stopped([], [])
    try:
        leads = os.getpgid(leader) == leader
    except OSError:
        return Stopped([], [])
    send = os.killpg if leads else os.kill
    with contextlib.suppress(OSError):
        send(leader, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            send(leader, 0)
        except OSError:
            return Stopped([leader], [])
        time.sleep(_TICK_S)
    with contextlib.suppress(OSError):
        send(leader, signal.SIGKILL)
    time.sleep(_TICK_S)
    try:
        send(leader, 0)
    except OSError:
        return Stopped([leader], [])
    return Stopped([leader], [leader])


def reap(leader: int | None) -> None:
    """Collect the zombies among this process's children that are the task's orphans: in the
    agent's session, or leaders of a session this process never started."""
    if not sys.platform.startswith("linux"):
        return
    mine = os.getpid()
    with spawn_lock:
        for proc in _children_zombies(mine):
            if proc.pid == leader or proc.pid in _started:
                continue
            if proc.sid in (leader, proc.pid):
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(proc.pid, os.WNOHANG)


def _children_zombies(parent: int) -> list[Proc]:
    return [p for p in _all().values() if p.ppid == parent and p.zombie]
