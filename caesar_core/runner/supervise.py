"""One agent process under a deadline: spawned alone in its process group, its output
captured, its stdout translated into events, and the whole group stopped when time is up.

Signals go to the group, never to the pid alone, so a shell wrapper's children and an agent's
own helpers die with it: a task that ends leaves no process behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from caesar_core.agents.base import Launch, Translator
from caesar_core.events.writer import EventWriter

KILL_GRACE_S = 5.0
"""Between SIGTERM and SIGKILL: long enough to flush a report, short enough to stop a hang."""
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


class _Log:
    """raw.log shared by the stdout and stderr readers: whole lines, never interleaved."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("ab", buffering=0)
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self._file.write(data)

    def close(self) -> None:
        self._file.close()


def stop_group(
    pgid: int, grace_s: float = KILL_GRACE_S, alive: Callable[[], bool] | None = None
) -> None:
    """SIGTERM the process group, then SIGKILL it if anything is left after ``grace_s``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not _group_exists(pgid) or (alive is not None and not alive()):
            break
        time.sleep(_TICK_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_agent(
    launch: Launch,
    *,
    env: Mapping[str, str],
    raw_log: Path,
    translator: Translator,
    events: EventWriter,
    timeout_s: float,
    cancel_requested: Callable[[], bool],
    on_spawn: Callable[[int], None],
) -> Exit:
    """Run the agent to its end, its deadline or its cancellation."""
    log = _Log(raw_log)
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            launch.argv,
            cwd=launch.cwd,
            env={**env, "PWD": str(launch.cwd), **launch.env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        log.write(f"caesar: could not start {launch.argv[0]}: {error}\n".encode())
        log.close()
        return Exit(None, spawn_error=f"could not start {launch.argv[0]}: {error.strerror}")
    on_spawn(process.pid)
    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(
            target=_pump_stdout, args=(process.stdout, log, translator, events), daemon=True
        ),
        threading.Thread(target=_pump_stderr, args=(process.stderr, log), daemon=True),
    ]
    for reader in readers:
        reader.start()

    deadline = started + timeout_s
    timed_out = cancelled = False
    next_check = 0.0
    while process.poll() is None:
        now = time.monotonic()
        if now >= deadline:
            timed_out = True
            stop_group(process.pid, alive=lambda: process.poll() is None)
            break
        if now >= next_check:
            next_check = now + 0.5
            if cancel_requested():
                cancelled = True
                stop_group(process.pid, alive=lambda: process.poll() is None)
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=min(_TICK_S * 2, max(0.0, deadline - now)))
    exit_code = process.wait()
    # Whatever the agent left running in its group (a server, a watcher) ends with it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for reader in readers:
        reader.join(_READER_JOIN_S)
    log.close()
    cancelled = cancelled or (not timed_out and cancel_requested())
    return Exit(
        exit_code,
        timed_out=timed_out,
        cancelled=cancelled,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def _pump_stdout(stream: IO[bytes], log: _Log, translator: Translator, events: EventWriter) -> None:
    """Each stdout line goes to raw.log, then through the translator into the event log.

    One thread feeds the translator, so events keep the order of the lines that caused them.
    A translator that raises on a line it did not expect loses that line's events, never the
    rest of the stream.
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
