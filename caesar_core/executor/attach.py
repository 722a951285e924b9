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
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore

REMOTE_DIR = "remote"


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


def ensure_shepherd(store: TaskStore, record: TaskRecord) -> bool:
    """Start the task's shepherd unless one runs or nothing more can come back; whether one
    was started."""
    if record.executor is None or record.executor.settled or shepherd_alive(store, record.id):
        return False
    from caesar_core.executable import caesar_command

    log = log_path(store, record.id)
    log.parent.mkdir(parents=True, exist_ok=True)
    argv = [*caesar_command(), "remote", "shepherd", record.id, "--root", str(store.root)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_TASK")}
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
