"""A task whose conclusion cannot be written (a full disk, a file size limit): it still ends.

The normal conclusion writes a diff-backed report, events and the record; when one of those
writes fails, the task is concluded ``failed`` with the reason instead of a traceback and a
record left ``running``. The report and the events are tried once (they may not fit); the
record, small, is retried a few times, since space often comes back. When even the record
cannot be written, :class:`RecordNotWritten` says so, and the task's watchdog goes on trying.
"""

from __future__ import annotations

import contextlib
import errno
import time
from collections.abc import Callable
from datetime import datetime

from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.documents import write_concluded_report
from caesar_core.protocol.event import Error, Finished
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.protocol.versions import REPORT_V1
from caesar_core.store.record import ReportSource, TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore

RECORD_RETRIES_S = (0.1, 0.5, 1.0, 2.0)
"""Pauses between attempts at writing the final record."""


class RecordNotWritten(CaesarError):
    """Not even the task's record could be written: the watchdog keeps trying."""

    def __init__(self, task_id: str, why: str) -> None:
        super().__init__(
            f"task {task_id} could not be concluded: {why}",
            "free disk space; the task is then concluded failed by its watchdog or the next "
            "`caesar ps`",
        )


def io_reason(error: OSError) -> str:
    """A failed write in words, a full disk called by its name."""
    where = f" ({error.filename})" if error.filename else ""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full{where}"
    return f"{error.strerror or error}{where}"


def conclude_unwritten(
    store: TaskStore,
    paths: TaskPaths,
    task_id: str,
    error: OSError,
    *,
    findings: list[Finding],
    exit_code: int | None,
    clock: Callable[[], datetime],
) -> tuple[TaskRecord, Report]:
    """Conclude the task ``failed`` because ``error`` stopped its conclusion."""
    reason = f"the task's outcome could not be written: {io_reason(error)}"
    report = Report(
        protocol=REPORT_V1,
        task_id=task_id,
        status=ReportStatus.FAILED,
        summary=f"The task could not be concluded: {io_reason(error)}.",
        findings=[
            *findings,
            Finding(severity=Severity.HIGH, title="Outcome not written", detail=reason),
        ],
    )
    with contextlib.suppress(OSError):
        write_concluded_report(paths.report, report)
    finished = None
    with (
        contextlib.suppress(OSError, CaesarError),
        EventWriter(paths.events, task_id, clock=clock) as closing,
    ):
        closing.append(Error(message=reason, fatal=True))
        finished = closing.append(Finished(status=ReportStatus.FAILED, summary=report.summary))
    last = error
    for attempt, pause in enumerate(RECORD_RETRIES_S):
        if attempt:
            time.sleep(pause)
        try:
            final, _ = store.conclude(
                task_id,
                TaskStatus.FAILED,
                now=clock(),
                exit_code=exit_code,
                report_status=ReportStatus.FAILED,
                report_source=ReportSource.SYNTHESIZED,
                ended_reason=reason,
                finished_seq=finished.seq if finished else None,
            )
            return final, report
        except OSError as again:
            last = again
    raise RecordNotWritten(task_id, io_reason(last))
