"""Whether a task's caesar process is gone, and whether the sweep (``runner.sweep``) has
anything to do for a task: on anything that says who runs the task (a ``TaskRecord``, or a
listing's ``ListedTask``).

Stdlib only until a pid must be asked about: ``caesar ps`` tells the few tasks the sweep must
see from the others without loading it.
"""

from __future__ import annotations

from typing import Protocol

from caesar_core.store.status import TaskStatus


class Shepherded(Protocol):
    """A task that runs on a cluster, as its record says (``record.ExecutorInfo``)."""

    @property
    def settled(self) -> bool: ...


class Run(Protocol):
    """Who runs a task, as its record says."""

    @property
    def remote(self) -> bool: ...

    @property
    def executor(self) -> Shepherded | None: ...

    @property
    def status(self) -> TaskStatus: ...

    @property
    def orchestrator_pid(self) -> int | None: ...

    @property
    def orchestrator_host(self) -> str | None: ...


def abandoned(record: Run, host: str | None = None) -> bool:
    """Whether the task still runs for its record while the caesar process running it is gone
    from this host (``host``: this host's name, when the caller has it)."""
    if record.remote:
        return False  # its shepherd is replaced, not the task concluded: see `sweep.reattach`
    if record.status.terminal or record.orchestrator_pid is None:
        return False
    if host is None:
        import socket

        host = socket.gethostname()
    if record.orchestrator_host != host:
        return False  # another machine's process: its liveness cannot be judged from here
    from caesar_core.runner.slots import pid_alive

    return not pid_alive(record.orchestrator_pid)


def needs_sweep(record: Run) -> bool:
    """Whether the sweep has anything to do for the task: conclude it (abandoned), or see to
    the shepherd of a task on a cluster whose result has not come back."""
    if record.executor is not None and not record.executor.settled:
        return True
    return abandoned(record)
