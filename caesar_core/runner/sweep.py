"""Tasks whose orchestrator is gone: concluded failed, honestly, without losing the agent's word.

A ``caesar run`` killed with its terminal, or an MCP server that crashed, leaves records that
say ``running`` forever. Any command that lists tasks first sweeps them: the record names the
caesar process that ran it (pid and host), and when that process is gone from this host the
task is concluded ``failed``. A report the agent wrote is kept (its status becomes the
``report_status``); otherwise a report says what happened. An agent still running orphaned is
stopped with every process it started.
"""

from __future__ import annotations

import socket
from datetime import UTC, datetime

from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.fs import atomic_write, dump_json
from caesar_core.protocol.documents import read_report
from caesar_core.protocol.event import Error, Finished
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.protocol.versions import REPORT_V1
from caesar_core.runner.control import stop_task
from caesar_core.runner.slots import pid_alive
from caesar_core.store.record import ReportSource, TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore


def abandoned(record: TaskRecord, host: str | None = None) -> bool:
    if record.status.terminal or record.orchestrator_pid is None:
        return False
    if record.orchestrator_host != (host or socket.gethostname()):
        return False  # another machine's process: its liveness cannot be judged from here
    return not pid_alive(record.orchestrator_pid)


def sweep(store: TaskStore, *, now: datetime | None = None) -> list[str]:
    """Conclude every abandoned task of the store; returns their ids."""
    concluded: list[str] = []
    host = socket.gethostname()
    for record in store.list().records:
        if abandoned(record, host):
            conclude_abandoned(store, record, now=now or datetime.now(UTC))
            concluded.append(record.id)
    return concluded


def conclude_abandoned(store: TaskStore, record: TaskRecord, *, now: datetime) -> None:
    stop_task(record)
    paths = store.paths(record.id)
    why = (
        f"the caesar process that ran this task (pid {record.orchestrator_pid}) is gone; "
        "the task was concluded without it"
    )
    existing: Report | None = None
    if paths.report.exists():
        try:
            existing = read_report(paths.report)
        except (CaesarError, ValueError, OSError):
            existing = None
    if existing is None:
        report = Report(
            protocol=REPORT_V1,
            task_id=record.id,
            status=ReportStatus.FAILED,
            summary="The orchestrator vanished before the task ended.",
            details=why,
            findings=[Finding(severity=Severity.HIGH, title="Abandoned task", detail=why)],
        )
        atomic_write(paths.report, dump_json(report.to_json_dict()))
        source = ReportSource.SYNTHESIZED
    else:
        report, source = existing, ReportSource.FILE
    with EventWriter(paths.events, record.id) as events:
        events.append(Error(message=why, fatal=True))
        events.append(Finished(status=report.status, summary=report.summary))
    store.conclude(
        record.id,
        TaskStatus.FAILED,
        now=now,
        report_status=report.status,
        report_source=source,
        ended_reason=why,
    )
