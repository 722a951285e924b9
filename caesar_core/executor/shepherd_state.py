"""Where a remote task's shepherd keeps its files, and its lock: ``.caesar/state/remote/<id>``.

Shared by the shepherd itself (``executor.shepherd``) and by every command that finds or starts
one (``executor.attach``), so neither imports the other.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
