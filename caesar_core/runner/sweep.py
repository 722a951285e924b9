"""Tasks whose orchestrator is gone: concluded failed, honestly, without losing the agent's word.

A ``caesar run`` killed with its terminal, or an MCP server that crashed, leaves records that
say ``running`` forever. Every command that shows tasks (``ps``, ``logs``, ``gc``, ``watch``,
the MCP server) first sweeps them: the record names the caesar process that ran it (pid and
host), and when that process is gone from this host the task is concluded ``failed``. A
report the agent wrote is kept (its status becomes the ``report_status``); otherwise a report
says what happened. An agent still running orphaned is stopped with its group.

One broken task (a hostile task directory, a record that cannot be written) never stops the
sweep of the others: it is named in ``Swept.problems`` with the reason.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime

from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.documents import read_report, write_report
from caesar_core.protocol.event import Error, Finished
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.protocol.versions import REPORT_V1
from caesar_core.runner.slots import pid_alive
from caesar_core.runner.supervise import stop_group
from caesar_core.store.record import ReportSource, TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore


@dataclass(frozen=True)
class Swept:
    concluded: list[str] = field(default_factory=list)
    """The ids of the tasks this sweep concluded."""
    problems: dict[str, str] = field(default_factory=dict)
    """Task id -> why it could not be concluded; the other tasks were swept all the same."""


def abandoned(record: TaskRecord, host: str | None = None) -> bool:
    if record.status.terminal or record.orchestrator_pid is None:
        return False
    if record.orchestrator_host != (host or socket.gethostname()):
        return False  # another machine's process: its liveness cannot be judged from here
    return not pid_alive(record.orchestrator_pid)


def sweep(store: TaskStore, *, now: datetime | None = None) -> Swept:
    """Conclude every abandoned task of the store, each on its own."""
    swept = Swept()
    host = socket.gethostname()
    for record in store.list().records:
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
    if not abandoned(record):
        return record, ""
    try:
        conclude_abandoned(store, record, now=datetime.now(UTC))
        return store.get(record.id), ""
    except Exception as error:  # the task is still shown, with the reason
        return record, f"the abandoned task could not be concluded: {_reason(error)}"


def conclude_abandoned(store: TaskStore, record: TaskRecord, *, now: datetime) -> None:
    if record.pid is not None and pid_alive(record.pid):
        stop_group(record.pid)
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


def close_without_orchestrator(
    store: TaskStore,
    record: TaskRecord,
    *,
    summary: str,
    why: str = "",
    findings: list[Finding] | None = None,
) -> tuple[Report, ReportSource]:
    """The report of a task nobody else will conclude: the agent's own when it wrote a valid
    one (read through safefs: a link, a FIFO, a deep document is no report), else one caesar
    writes saying ``summary``."""
    paths = store.paths(record.id)
    try:
        return read_report(paths.report), ReportSource.FILE
    except (CaesarError, ValueError, OSError):
        pass
    report = Report(
        protocol=REPORT_V1,
        task_id=record.id,
        status=ReportStatus.FAILED,
        summary=summary,
        details=why,
        findings=findings or [],
    )
    write_report(paths.report, report)
    return report, ReportSource.SYNTHESIZED


def write_ending(store: TaskStore, task_id: str, why: str, finished: Finished) -> None:
    """caesar's last events for a task it concluded itself (``error``, then ``finished``),
    and the ``finished`` one's ``seq`` in the record: the only ending readers show."""
    with EventWriter(store.paths(task_id).events, task_id) as events:
        events.append(Error(message=why, fatal=True))
        written = events.append(finished)
    if written is not None:
        store.set(task_id, finished_seq=written.seq)


def _reason(error: Exception) -> str:
    return error.reason if isinstance(error, CaesarError) else f"{type(error).__name__}: {error}"
