"""Tasks whose orchestrator is gone: concluded failed, honestly, without losing the agent's word.

A ``caesar run`` killed with its terminal, or an MCP server that crashed, leaves records that
say ``running`` forever. Every command that shows tasks (``ps``, ``logs``, ``gc``, ``watch``,
the MCP server) first sweeps them: the record names the caesar process that ran it (pid and
host), and when that process is gone from this host the task is concluded ``failed``. A
report the agent wrote is kept (its status becomes the ``report_status``); otherwise a report
says what happened. An agent still running orphaned is stopped with every process it started.

One broken task (a hostile task directory, a record that cannot be written) never stops the
sweep of the others: it is named in ``Swept.problems`` with the reason.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from caesar_core.errors import CaesarError
from caesar_core.executor.attach import ensure_shepherd
from caesar_core.protocol.event import Finished
from caesar_core.protocol.report import Finding, Severity
from caesar_core.runner.abandoned import abandoned
from caesar_core.runner.closing import close_without_orchestrator, write_ending
from caesar_core.runner.control import stop_task
from caesar_core.store.record import TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore


@dataclass(frozen=True)
class Swept:
    concluded: list[str] = field(default_factory=list)
    """The ids of the tasks this sweep concluded."""
    problems: dict[str, str] = field(default_factory=dict)
    """Task id -> why it could not be concluded; the other tasks were swept all the same."""


def sweep(store: TaskStore, *, now: datetime | None = None) -> Swept:
    """Conclude every abandoned task of the store, each on its own."""
    return _sweep(store, store.list().records, now)


def sweep_tasks(store: TaskStore, task_ids: Iterable[str], *, now: datetime | None = None) -> Swept:
    """:func:`sweep` of the named tasks alone, each read again first: those a listing found
    the sweep has something to do for (``abandoned.needs_sweep``). A record that cannot be read
    now is left to the listing, which shows it broken."""
    records = []
    for task_id in task_ids:
        try:
            records.append(store.get(task_id))
        except (CaesarError, OSError):
            continue
    return _sweep(store, records, now)


def _sweep(store: TaskStore, records: Iterable[TaskRecord], now: datetime | None) -> Swept:
    swept = Swept()
    host = socket.gethostname()
    for record in records:
        reattach(store, record)
        if not abandoned(record, host):
            continue
        try:
            conclude_abandoned(store, record, now=now or datetime.now(UTC))
        except Exception as error:  # one task's trouble is that task's, never the listing's
            swept.problems[record.id] = _reason(error)
        else:
            swept.concluded.append(record.id)
    return swept


def sweep_one(store: TaskStore, record: TaskRecord) -> tuple[TaskRecord, str]:
    """``record`` as it stands once swept (concluded when it was abandoned, else unchanged),
    and why it could not be concluded ("" when nothing went wrong): never raises, so a
    reader can still show the task."""
    reattach(store, record)
    if not abandoned(record):
        return record, ""
    try:
        conclude_abandoned(store, record, now=datetime.now(UTC))
        return store.get(record.id), ""
    except Exception as error:  # the task is still shown, with the reason
        return record, f"the abandoned task could not be concluded: {_reason(error)}"


def reattach(store: TaskStore, record: TaskRecord) -> None:
    """A remote task whose shepherd is gone gets a new one, which reattaches to it through
    the scheduler or concludes it (``executor.dask``); never raises."""
    if record.executor is None or record.executor.settled:
        return
    try:
        ensure_shepherd(store, record)
    except Exception:  # a reader never fails for one task; the next reader tries again
        return


def conclude_abandoned(store: TaskStore, record: TaskRecord, *, now: datetime) -> None:
    stop_task(record)
    why = (
        f"the caesar process that ran this task (pid {record.orchestrator_pid}) is gone; "
        "the task was concluded without it"
    )
    report, source = close_without_orchestrator(
        store,
        record,
        summary="The orchestrator vanished before the task ended.",
        why=why,
        findings=[Finding(severity=Severity.HIGH, title="Abandoned task", detail=why)],
    )
    _, ours = store.conclude(
        record.id,
        TaskStatus.FAILED,
        now=now,
        report_status=report.status,
        report_source=source,
        ended_reason=why,
    )
    if ours:
        write_ending(store, record.id, why, Finished(status=report.status, summary=report.summary))


def _reason(error: Exception) -> str:
    """One line naming what is wrong, never pydantic's multi-line report."""
    from pydantic import ValidationError

    from caesar_core.protocol.parse import problem_text

    if isinstance(error, CaesarError | ValidationError):
        return problem_text(error)
    return f"{type(error).__name__}: {error}"


__all__ = [
    "Swept",
    "abandoned",
    "conclude_abandoned",
    "reattach",
    "sweep",
    "sweep_one",
    "sweep_tasks",
]
