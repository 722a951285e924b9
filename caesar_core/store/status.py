"""What a task's record says of its life, as plain values: its status, where its report came
from, its checks' mark. Stdlib only: ``caesar ps`` reads them from a listing without building
the record's model (:mod:`caesar_core.store.listing`); :mod:`caesar_core.store.record` uses them
in its fields."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Protocol


class TaskStatus(StrEnum):
    """How the task's life went, as the orchestrator saw it (not the agent's verdict)."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"

    @property
    def terminal(self) -> bool:
        return self not in (TaskStatus.PENDING, TaskStatus.RUNNING)


class ReportSource(StrEnum):
    """Which retrieval tier produced the report, most reliable first."""

    CHANNEL = "channel"
    SCHEMA = "schema"
    FILE = "file"
    EXTRACTED = "extracted"
    SYNTHESIZED = "synthesized"


class VerifiedBy(StrEnum):
    GIT = "git"
    DECLARATION = "declaration"


class ChecksState(StrEnum):
    """Where a run of the project's checks (``[review] checks``) stands."""

    RUNNING = "running"
    PASSED = "passed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    """Stopped before the end (a cancel, Ctrl-C): what ran is kept, the verdict is not given."""


class ChecksMark(StrEnum):
    """What a task's checks say, as the tree, ``ps`` and the MCP server show it."""

    PASSED = "passed"
    FAILED = "failed"
    RUNNING = "running"
    NOT_RUN = "not run"


class ChecksRun(Protocol):
    """What the mark of a run of checks depends on (``record.Checks`` has it)."""

    @property
    def state(self) -> ChecksState: ...

    @property
    def pid(self) -> int | None: ...


def checks_mark(checks: ChecksRun | None, alive: Callable[[int], bool]) -> ChecksMark:
    """The mark of a run of checks; one left ``running`` by a caesar that is gone (``alive``
    says of its pid) was interrupted: not run."""
    if checks is None:
        return ChecksMark.NOT_RUN
    if checks.state is ChecksState.RUNNING:
        running = checks.pid is not None and alive(checks.pid)
        return ChecksMark.RUNNING if running else ChecksMark.NOT_RUN
    return {
        ChecksState.PASSED: ChecksMark.PASSED,
        ChecksState.FAILED: ChecksMark.FAILED,
    }.get(checks.state, ChecksMark.NOT_RUN)


def runs_on(address: str, worker: str | None) -> str:
    """Where a task that runs on a cluster runs, for a listing: ``on HOST:PORT`` of its worker
    (its scheduler's ``address`` while no worker has it)."""
    return f"on {(worker or address).split('://')[-1]}"
