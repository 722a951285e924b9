"""A remote task's shepherd as a fork of the command that sent the task (``caesar run --on``).

Apart from :mod:`caesar_core.executor.attach` (which the runner's control uses and which must
not reach the shepherd, and through it the runner, again): only the client side passes
:func:`fork_shepherd` to ``ensure_shepherd``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

from caesar_core.executor.attach import TASK_VARIABLES


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


def fork_shepherd(root: Path, task_id: str, log: Path) -> bool:
    """The shepherd as a fork of this process, detached as ``setsid -f`` detaches one: a
    session of its own, nobody's child (the first fork ends at once and is waited for).
    False, nothing done, where this process cannot be forked safely (:func:`can_fork`)."""
    if not can_fork():
        return False
    for stream in (sys.stdout, sys.stderr):  # nothing of ours written twice by the child
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return True
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
