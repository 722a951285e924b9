"""The watchdog: a small process beside each agent that stops it at its deadline even when the
caesar process running the task is gone (killed with ``kill -9``, its machine's OOM killer).

The runner starts it (``python -S``, through :mod:`caesar_core.runner.watchstart`, which waits
with the standard library alone until there is something to do; ``python -m
caesar_core.runner.watchdog`` runs it too) in a session of its own right before the agent, and
stops it when the task has concluded; it learns the agent's pid and cgroup from the task's
record. Until then it waits, at no cost, for the orchestrator to exit.
Then, if the task is still not concluded:

- it lets the agent go on until its deadline (or until every process of the task has ended),
- stops the task's whole tree (``proctree.stop``), and
- concludes the task as abandoned through ``sweep.conclude_abandoned`` (failed, the agent's
  report kept), retrying for a while when the disk is full.

An orchestrator that is alive but does not act (stopped with Ctrl-Z) cannot stretch the
deadline either: past the deadline and the grace period, the watchdog stops the tree itself and
leaves the conclusion to the orchestrator. It imports only the standard library and the two
process modules until it must conclude: caesar starts many times a minute.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from caesar_core.runner import cgroup as cgroups
from caesar_core.runner import proctree
from caesar_core.runner.watchstart import CHECK_S, LATE_S, boot_argv

__all__ = ["CHECK_S", "LATE_S", "Watchdog", "main", "watch"]

if TYPE_CHECKING:
    import subprocess

CONCLUDE_FOR_S = 600.0
"""How long the watchdog keeps trying to conclude a task whose record cannot be written."""
_TERMINAL = frozenset({"succeeded", "failed", "cancelled", "timed_out"})
_RECORD_LIMIT = 1 << 20


class Watchdog:
    """The runner's handle on one task's watchdog process."""

    def __init__(self, root: Path, task_id: str, record: Path, timeout_s: float) -> None:
        self.root, self.task_id, self.record = root, task_id, record
        self.timeout_s = timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    def arm(self) -> None:
        """Start the watchdog, just before the agent: no moment of the agent's life goes
        unwatched. It learns the agent's pid and cgroup from the record. A failure to start it
        costs the task nothing but this protection."""
        import subprocess

        argv = [
            *boot_argv(),
            "--root",
            str(self.root),
            "--task",
            self.task_id,
            "--record",
            str(self.record),
            "--deadline",
            repr(time.monotonic() + self.timeout_s),
            "--orchestrator",
            str(os.getpid()),
        ]
        with proctree.spawn_lock:
            try:
                self._process = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            except OSError:
                return
            proctree.started(self._process.pid)

    def disarm(self) -> None:
        """Stop the watchdog: the task has concluded."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.terminate()
        with contextlib.suppress(Exception):
            process.wait(timeout=5)
        proctree.forget(process.pid)


# -- the watchdog process ------------------------------------------------------------------


class Args(NamedTuple):
    root: str
    task: str
    record: str
    deadline: float
    """A ``time.monotonic()`` value: the clock is the machine's, shared by its processes."""
    orchestrator: int


class Target(NamedTuple):
    """What the record says of the task: concluded yet, its agent's pid, its cgroup."""

    concluded: bool
    leader: int | None
    cgroup: Path | None


def _target(args: Args) -> Target:
    """The record read again (an unreadable one: not concluded, nothing known but the marker)."""
    try:
        with open(args.record, "rb") as handle:
            data = json.loads(handle.read(_RECORD_LIMIT))
        pid, group = data.get("pid"), data.get("cgroup")
        return Target(
            data.get("status") in _TERMINAL,
            pid if type(pid) is int and pid > 1 else None,
            cgroups.checked(group if isinstance(group, str) else None, args.task),
        )
    except (OSError, ValueError, AttributeError):
        return Target(False, None, None)


def _wait_exit(pid: int, timeout_s: float) -> bool:
    """Wait until ``pid`` exits or ``timeout_s`` passes; whether it exited."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return not _alive(pid)
    except AttributeError:
        deadline = time.monotonic() + timeout_s
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        return not _alive(pid)
    try:
        readable, _, _ = select.select([fd], [], [], max(0.0, timeout_s))
        return bool(readable)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    proc = proctree.stat(pid)
    return proc is not None and not proc.zombie


def _conclude(root: Path, task_id: str) -> bool:
    """Conclude the task as abandoned; whether it is concluded now (by us or anyone)."""
    from datetime import UTC, datetime

    from caesar_core.runner.sweep import abandoned, conclude_abandoned
    from caesar_core.store.store import TaskStore

    store = TaskStore(root)
    try:
        record = store.get(task_id)
        if abandoned(record):
            conclude_abandoned(store, record, now=datetime.now(UTC))
        return store.get(task_id).status.terminal
    except OSError:
        return False  # a full disk: try again later
    except Exception:
        return True  # a record that cannot be read: retrying would not help; ps says why


def watch(args: Args, *, orchestrator_exited: bool | None = None) -> None:
    """Watch the task until it concludes or is concluded here. ``orchestrator_exited``: how
    the first wait for the orchestrator ended when ``watchstart`` did it (None: not done)."""
    task_id = args.task
    known = Target(False, None, None)

    def look() -> Target:
        nonlocal known
        seen = _target(args)
        known = Target(seen.concluded, seen.leader or known.leader, seen.cgroup or known.cgroup)
        return known

    def stop_tree() -> None:
        proctree.stop(task_id, leader=known.leader, cgroup=known.cgroup)

    late = args.deadline + proctree.KILL_GRACE_S + LATE_S
    stopped = False

    def orchestrator_gone() -> bool:
        return _wait_exit(args.orchestrator, CHECK_S if stopped else min(CHECK_S, late - now()))

    gone = orchestrator_gone() if orchestrator_exited is None else orchestrator_exited
    while not gone:
        if look().concluded:
            return
        if not stopped and now() >= late:
            stop_tree()  # the orchestrator lives but does not act: the deadline still holds
            stopped = True
        gone = orchestrator_gone()
    try:
        if look().concluded:
            return
        # The orchestrator is gone: the agent may finish on its own until its deadline.
        while now() < args.deadline and proctree.members(
            task_id, leader=known.leader, cgroup=known.cgroup
        ):
            left = args.deadline - now()
            if known.leader is not None and _alive(known.leader):
                _wait_exit(known.leader, min(CHECK_S, left))
            else:
                time.sleep(max(0.0, min(1.0, left)))
            if look().concluded:
                return
        stop_tree()
        give_up = now() + CONCLUDE_FOR_S
        while not _conclude(Path(args.root), task_id) and now() < give_up:
            time.sleep(CHECK_S)
    finally:
        if known.cgroup is not None:
            cgroups.remove(known.cgroup)


def now() -> float:
    return time.monotonic()


def parse(argv: list[str]) -> Args:
    """``--name value`` pairs, as ``Watchdog.arm`` writes them (argparse costs 5 ms here)."""
    given = dict(zip(argv[::2], argv[1::2], strict=False))
    try:
        return Args(
            root=given["--root"],
            task=given["--task"],
            record=given["--record"],
            deadline=float(given["--deadline"]),
            orchestrator=int(given["--orchestrator"]),
        )
    except (KeyError, ValueError) as error:
        raise SystemExit(f"caesar watchdog: bad arguments ({error}): {argv}") from None


def main(argv: list[str] | None = None, *, orchestrator_exited: bool | None = None) -> int:
    watch(parse(sys.argv[1:] if argv is None else argv), orchestrator_exited=orchestrator_exited)
    return 0


if __name__ == "__main__":
    sys.exit(main())
