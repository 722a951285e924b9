"""A remote task's shepherd, found or started: what every command that shows, cancels or
answers a remote task needs, and nothing more (no ``distributed``, no runner).

The shepherd (``caesar remote shepherd ID``, ``executor.shepherd``) holds the task's lock in
``.caesar/state/remote/<id>.lock`` while it follows the task; a lock nobody holds means nobody
follows it, and one is started: it reattaches through the scheduler, or concludes the task.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore

REMOTE_DIR = "remote"
TASK_VARIABLES = "CAESAR_TASK"
"""The prefix of a task's variables, which its shepherd does not inherit."""


def remote_dir(store: TaskStore) -> Path:
    return store.home / "state" / REMOTE_DIR


def job_path(store: TaskStore, task_id: str) -> Path:
    return remote_dir(store) / f"{task_id}.json"


def lock_path(store: TaskStore, task_id: str) -> Path:
    return remote_dir(store) / f"{task_id}.lock"


def log_path(store: TaskStore, task_id: str) -> Path:
    """The shepherd's own output (a traceback, should it have one)."""
    return remote_dir(store) / f"{task_id}.log"


@contextlib.contextmanager
def shepherd_lock(store: TaskStore, task_id: str) -> Iterator[bool]:
    """Whether this process holds the task's shepherd lock (False: another shepherd does)."""
    path = lock_path(store, task_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def shepherd_alive(store: TaskStore, task_id: str) -> bool:
    with shepherd_lock(store, task_id) as free:
        return not free


def ensure_shepherd(store: TaskStore, record: TaskRecord, *, fork: bool = False) -> bool:
    """Start the task's shepherd unless one runs or nothing more can come back; whether one
    was started.

    ``fork``: the caller is a single-threaded command that has already imported most of what
    a shepherd needs (``caesar run --on``): the shepherd is a fork of it, not a new ``caesar``
    (a new interpreter importing caesar again costs ~300 ms before the task is even sent).
    Where forking is not safe (threads, a running event loop, not Linux), it is started as
    any other."""
    if record.executor is None or record.executor.settled or shepherd_alive(store, record.id):
        return False
    log = log_path(store, record.id)
    log.parent.mkdir(parents=True, exist_ok=True)
    if fork and can_fork():
        fork_shepherd(store.root, record.id, log)
        return True
    from caesar_core.executable import caesar_command

    argv = [*caesar_command(), "remote", "shepherd", record.id, "--root", str(store.root)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(TASK_VARIABLES)}
    setsid = shutil.which("setsid")
    with open(log, "ab") as out:
        if setsid is not None:
            # setsid forks and returns at once: the shepherd is nobody's child here (no
            # zombie in a long-lived caller such as `caesar watch`).
            subprocess.run(
                [setsid, "-f", *argv], stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                env=env, check=False, timeout=30,
            )  # fmt: skip
        else:
            child = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
                start_new_session=True, close_fds=True,
            )  # fmt: skip
            threading.Thread(target=child.wait, daemon=True).start()
    return True


def can_fork() -> bool:
    """Whether this process can be forked into a shepherd: Linux, one thread, no event loop
    running (a child would inherit it as its own), and no task's marker in the environment
    it was started with: a fork keeps that in ``/proc/<pid>/environ`` whatever it unsets,
    and a cancel of that task (``runner.proctree``) would end the shepherd with it."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    loop = sys.modules.get("asyncio")
    if loop is not None and loop.events._get_running_loop() is not None:
        return False
    try:
        started_with = Path("/proc/self/environ").read_bytes()
    except OSError:
        return False
    return TASK_VARIABLES.encode() not in started_with


def fork_shepherd(root: Path, task_id: str, log: Path) -> None:
    """The shepherd as a fork of this process, detached as ``setsid -f`` detaches one: a
    session of its own, nobody's child (the first fork ends at once and is waited for)."""
    for stream in (sys.stdout, sys.stderr):  # nothing of ours written twice by the child
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    code = 1
    try:  # the children never return into the caller
        os.setsid()
        code = 0 if os.fork() else _be_shepherd(root, task_id, log)  # the first ends at once
    finally:
        os._exit(code)


def _be_shepherd(root: Path, task_id: str, log: Path) -> int:
    """The forked shepherd's life: its output into its log, the task's shepherd run."""
    import traceback

    try:
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        for fd, source in ((0, null), (1, out), (2, out)):
            os.dup2(source, fd)
        os.close(null)
        os.close(out)
        from caesar_core.executor.shepherd import shepherd

        return shepherd(root, task_id)
    except BaseException:  # said in the log, as a shepherd's traceback is
        with contextlib.suppress(Exception):
            traceback.print_exc()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
