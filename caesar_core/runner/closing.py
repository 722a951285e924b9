"""A task concluded by a process other than its runner (``cancel``, the sweep of abandoned
tasks): its report and caesar's last events, written the safe way.

Both read the agent's ``report.json`` through :mod:`caesar_core.safefs` (a link, a FIFO, a deep
document is no report) and write caesar's own through it (a directory in its place is moved
aside). Only the process that concluded the task (``TaskStore.conclude`` returned ``True``)
writes its ending, so each task gets one ``finished`` from caesar, named in its record.
"""

from __future__ import annotations

from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.documents import read_report, write_concluded_report
from caesar_core.protocol.event import Error, Finished
from caesar_core.protocol.report import Finding, Report, ReportStatus
from caesar_core.protocol.versions import REPORT_V1
from caesar_core.store.record import ReportSource, TaskRecord
from caesar_core.store.store import TaskStore


def close_without_orchestrator(
    store: TaskStore,
    record: TaskRecord,
    *,
    summary: str,
    why: str = "",
    findings: list[Finding] | None = None,
) -> tuple[Report, ReportSource]:
    """The report of a task nobody else will conclude: the agent's own when it wrote a valid
    one, else one caesar writes saying ``summary``."""
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
    write_concluded_report(paths.report, report)
    return report, ReportSource.SYNTHESIZED


def write_ending(store: TaskStore, task_id: str, why: str, finished: Finished) -> None:
    """caesar's last events for a task it concluded itself (``error``, then ``finished``),
    and the ``finished`` one's ``seq`` in the record: the only ending readers show."""
    with EventWriter(store.paths(task_id).events, task_id) as events:
        events.append(Error(message=why, fatal=True))
        written = events.append(finished)
    if written is not None:
        store.set(task_id, finished_seq=written.seq)
