"""A remote task's shepherd, found or started: what every command that shows, cancels or
answers a remote task needs, and nothing more (no ``distributed``, no runner).

The shepherd (``caesar remote shepherd ID``, ``executor.shepherd``) holds the task's lock in
``.caesar/state/remote/<id>.lock`` while it follows the task; a lock nobody holds means nobody
follows it, and one is started: it reattaches through the scheduler, or concludes the task.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.executor.shepherd_state import log_path, shepherd_alive

if TYPE_CHECKING:
    from collections.abc import Callable

    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore

TASK_VARIABLES = "CAESAR_TASK"
"""The prefix of a task's variables, which its shepherd does not inherit."""


def ensure_shepherd(
    store: TaskStore, record: TaskRecord, *, fork: Callable[[Path, str, Path], bool] | None = None
) -> bool:
    """Start the task's shepherd unless one runs or nothing more can come back; whether one
    was started.

    ``fork`` (:func:`caesar_core.executor.fork.fork_shepherd`): the caller is a command that
    has already imported most of what a shepherd needs (``caesar run --on``), so the shepherd
    may be a fork of it rather than a new ``caesar`` (a new interpreter importing caesar again
    costs ~300 ms before the task is even sent); where it says forking is not safe, the
    shepherd is started as any other."""
    if record.executor is None or record.executor.settled or shepherd_alive(store, record.id):
        return False
    log = log_path(store, record.id)
    log.parent.mkdir(parents=True, exist_ok=True)
    if fork is not None and fork(store.root, record.id, log):
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
