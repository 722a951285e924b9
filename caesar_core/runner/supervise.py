"""One agent process under a deadline: spawned in a session of its own, its output captured,
its stdout translated into events, and every process it started stopped when time is up.

The agent's processes are tracked as a tree (``proctree``: its cgroup where one can be had, its
marker variable, its group and session, their descendants), so a helper that calls ``setsid``
or double-forks dies with it: a task that ends leaves no process behind.

A full disk (or any failed write) never stops the reading of the agent's output: ``raw.log``
stops growing, the pipe is still drained and translated, and the loss is reported
(``Exit.output_lost``) instead of the agent blocking on a full pipe until its deadline.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from caesar_core.agents.base import Launch, Translator
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.event import EventPayload
from caesar_core.runner import cgroup as cgroups
from caesar_core.runner import proctree
from caesar_core.runner.proctree import KILL_GRACE_S

__all__ = ["KILL_GRACE_S", "Exit", "end_session", "run_agent", "spawn_session"]

_TICK_S = 0.1
_READER_JOIN_S = 2.0


@dataclass(frozen=True)
class Exit:
    """How the process ended."""

    exit_code: int | None
    """None when it never started or could not be reaped."""
    timed_out: bool = False
    cancelled: bool = False
    spawn_error: str | None = None
    duration_ms: int = 0
    output_lost: str | None = None
    """Why part of the agent's output could not be kept (a full disk), in words."""


class _Log:
    """raw.log shared by the stdout and stderr readers: whole lines, never interleaved.

    The first failed write (a full disk, a file size limit) ends the log: later lines are
    counted, not written, so a reader thread never dies and the pipe keeps draining.
    """

    def __init__(self, path: Path) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        self._fd = os.open(path, flags, 0o644)
        self._lock = threading.Lock()
        self.error: OSError | None = None
        self.lost_bytes = 0

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.error is None:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self._fd, view) :]
                    return
                except OSError as error:
                    self.error = error
                    self.lost_bytes += len(view)
                    return
            self.lost_bytes += len(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


class _Events:
    """The translator's events into the log; a write that fails drops that batch, counted:
    whatever goes wrong with the log, the pump goes on draining the agent's stdout."""

    def __init__(self, writer: EventWriter) -> None:
        self._writer = writer
        self.error: Exception | None = None
        self.lost = 0

    def append_many(self, payloads: Sequence[EventPayload]) -> None:
        try:
            self._writer.append_many(payloads)
        except Exception as error:
            self.error = self.error or error
            self.lost += len(payloads)


def run_agent(
    launch: Launch,
    *,
    task_id: str,
    env: Mapping[str, str],
    raw_log: Path,
    translator: Translator,
    events: EventWriter,
    timeout_s: float,
    cancel_requested: Callable[[], bool],
    on_spawn: Callable[[int, Path | None], None],
) -> Exit:
    """Run the agent to its end, its deadline or its cancellation; ``on_spawn`` gets its pid and
    its cgroup (``None`` without one) as soon as it runs."""
    log = _Log(raw_log)
    started = time.monotonic()
    try:
        process, group = _spawn(launch, env, task_id)
    except OSError as error:
        log.write(f"caesar: could not start {launch.argv[0]}: {error}\n".encode())
        log.close()
        return Exit(None, spawn_error=f"could not start {launch.argv[0]}: {error.strerror}")
    on_spawn(process.pid, group)
    assert process.stdout is not None and process.stderr is not None
    sink = _Events(events)
    readers = [
        threading.Thread(
            target=_pump_stdout, args=(process.stdout, log, translator, sink), daemon=True
        ),
        threading.Thread(target=_pump_stderr, args=(process.stderr, log), daemon=True),
    ]
    for reader in readers:
        reader.start()

    def stop(grace_s: float = KILL_GRACE_S) -> None:
        proctree.stop(task_id, leader=process.pid, cgroup=group, grace_s=grace_s)

    deadline = started + timeout_s
    timed_out = cancelled = False
    next_check = 0.0
    with _ExitSignal(process) as exited:
        while process.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                stop()
                break
            if now >= next_check:
                next_check = now + 0.5
                if cancel_requested():
                    cancelled = True
                    stop()
                    break
            exited.wait(min(_TICK_S * 2, max(0.0, deadline - now)))
    exit_code = process.wait()
    # Whatever the agent left running (a server, a watcher, a daemon) ends with it.
    stop(grace_s=0)
    proctree.forget(process.pid)
    for reader in readers:
        reader.join(_READER_JOIN_S)
    log.close()
    if group is not None:
        cgroups.remove(group)
    cancelled = cancelled or (not timed_out and cancel_requested())
    # Killed past its deadline by someone else (the watchdog, while this process was stopped).
    timed_out = timed_out or (not cancelled and exit_code < 0 and time.monotonic() >= deadline)
    return Exit(
        exit_code,
        timed_out=timed_out,
        cancelled=cancelled,
        duration_ms=int((time.monotonic() - started) * 1000),
        output_lost=_lost(log, sink),
    )


class _ExitSignal:
    """Waits for a child to exit, woken the moment it does: its pidfd (Linux 5.3) becomes
    readable then. ``Popen.wait(timeout)`` polls instead, sleeping up to 50 ms past the exit.
    Without a pidfd, that poll it is."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._fd: int | None = None
        self._poll = select.poll()

    def __enter__(self) -> _ExitSignal:
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            with contextlib.suppress(OSError):  # not Linux 5.3, or a seccomp filter refuses it
                fd = pidfd_open(self._process.pid)
                self._poll.register(fd, select.POLLIN)
                self._fd = fd
        return self

    def wait(self, timeout: float) -> None:
        """Until the child has exited (it is then a zombie for ``poll`` to reap), or
        ``timeout`` seconds."""
        if self._fd is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=timeout)
            return
        self._poll.poll(timeout * 1000)

    def __exit__(self, *_: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _spawn(
    launch: Launch, env: Mapping[str, str], task_id: str
) -> tuple[subprocess.Popen[bytes], Path | None]:
    """The agent, in a session of its own and, where one can be had, a cgroup of its own."""
    return spawn_session(
        launch.argv,
        cwd=launch.cwd,
        env={**env, "PWD": str(launch.cwd), **launch.env},
        marker=task_id,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def spawn_session(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    marker: str,
    stdout: int,
    stderr: int,
) -> tuple[subprocess.Popen[bytes], Path | None]:
    """``argv`` in a session of its own and, where one can be had, a cgroup of its own
    (``caesar.<marker>``), found again by ``proctree`` with ``marker``: an agent, or one of
    caesar's checks (``CAESAR_TASK_ID=<marker>`` is set in its environment). Its cgroup
    (``None`` without one) goes back with the process; :func:`end_session` stops what it
    left."""
    group = cgroups.create(marker)
    try:
        with proctree.spawn_lock:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env={**env, proctree.MARKER_VARIABLE: marker},
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
            proctree.started(process.pid)
    except OSError:
        if group is not None:
            cgroups.remove(group)
        raise
    # What it forks before this line carries its marker; what it forks after, the cgroup.
    if group is not None and not cgroups.adopt(group, process.pid):
        cgroups.remove(group)
        group = None
    if group is None:
        proctree.become_subreaper()
    return process, group


def end_session(process: subprocess.Popen[bytes], marker: str, group: Path | None) -> None:
    """After ``process`` was reaped: whatever it left running (a server, a watcher, a daemon)
    stopped at once, and its cgroup removed."""
    proctree.stop(marker, leader=process.pid, cgroup=group, grace_s=0)
    proctree.forget(process.pid)
    if group is not None:
        cgroups.remove(group)


def _lost(log: _Log, sink: _Events) -> str | None:
    """What could not be kept of the agent's output, and why, in words."""
    parts = []
    if log.error is not None:
        parts.append(
            f"raw.log stopped at the first failed write ({_why(log.error)}); "
            f"{log.lost_bytes} byte(s) of output after it were read and dropped"
        )
    if sink.error is not None:
        parts.append(
            f"{sink.lost} event(s) could not be written to events.jsonl ({_why(sink.error)})"
        )
    return "; ".join(parts) or None


def _why(error: Exception) -> str:
    if not isinstance(error, OSError):
        return str(error)
    text = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full: {text}"
    return text


def _pump_stdout(stream: IO[bytes], log: _Log, translator: Translator, events: _Events) -> None:
    """Each stdout line goes to raw.log, then through the translator into the event log.

    One thread feeds the translator, so events keep the order of the lines that caused them.
    A translator that raises on a line it did not expect loses that line's events, never the
    rest of the stream; a write that fails loses what it wrote, never the rest either.
    """
    for raw in iter(stream.readline, b""):
        log.write(raw)
        line = raw.decode("utf-8", errors="replace")
        try:
            payloads = translator.feed(line)
        except Exception as error:  # an adapter bug must not blind the whole task
            log.write(f"caesar: translator error on the line above: {error!r}\n".encode())
            continue
        if payloads:
            events.append_many(payloads)
    stream.close()
    try:
        closing = translator.close()
    except Exception as error:
        log.write(f"caesar: translator error at the end of output: {error!r}\n".encode())
        return
    if closing:
        events.append_many(closing)


def _pump_stderr(stream: IO[bytes], log: _Log) -> None:
    for raw in iter(stream.readline, b""):
        log.write(raw)
    stream.close()
