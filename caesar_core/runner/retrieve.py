"""Which report the task ends with: the best tier the agent honored, most reliable first.

1. ``report.json`` (written by ``submit_report`` on the channel, or by the agent itself);
2. the agent's final-message file (native structured output, codex ``-o``);
3. a report the agent *said*: in its last message, then anywhere in its raw output;
4. a report synthesized from how the process ended, its output and the diff.

A document in a version this build does not read is refused with a finding that names it,
and the next tier is tried: a newer agent never makes caesar guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from caesar_core.agents.base import ReportTier
from caesar_core.errors import CaesarError
from caesar_core.humanize import one_line
from caesar_core.protocol.documents import read_report
from caesar_core.protocol.report import Finding, Report, Severity
from caesar_core.protocol.task import Task
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.report import extract_from_files, extract_report, synthesize_report
from caesar_core.runner.supervise import Exit
from caesar_core.store.record import ReportSource

LOG_TAIL_BYTES = 64 * 1024


@dataclass(frozen=True)
class Retrieved:
    report: Report
    source: ReportSource
    findings: list[Finding]


def retrieve(
    task: Task,
    paths: TaskPaths,
    tier: ReportTier,
    ended: Exit,
    *,
    final_text: str | None,
    changed_paths: Sequence[str],
) -> Retrieved:
    findings: list[Finding] = []
    if paths.report.exists():
        try:
            report = read_report(paths.report)
            source = ReportSource.CHANNEL if tier == "channel" else ReportSource.FILE
            return Retrieved(_owned(report, task), source, findings)
        except (CaesarError, ValueError, OSError) as error:
            findings.append(
                Finding(
                    severity=Severity.MEDIUM,
                    title="Report file rejected",
                    file="report.json",
                    detail=f"{paths.report} could not be used: {_short(error)}",
                )
            )
    said = ReportSource.SCHEMA if tier == "schema" else ReportSource.EXTRACTED
    if paths.final_message.exists():
        found = extract_from_files([paths.final_message])
        findings.extend(_refusals(found.refused))
        if found.report is not None:
            return Retrieved(_owned(found.report, task), said, findings)
    if final_text:
        found = extract_report(final_text)
        findings.extend(_refusals(found.refused))
        if found.report is not None:
            return Retrieved(_owned(found.report, task), said, findings)
    found = extract_from_files([paths.raw_log])
    findings.extend(_refusals(found.refused))
    if found.report is not None:
        return Retrieved(_owned(found.report, task), ReportSource.EXTRACTED, findings)
    report = synthesize_report(
        task_id=task.id,
        exit_code=ended.exit_code,
        timed_out=ended.timed_out,
        cancelled=ended.cancelled,
        changed_paths=list(changed_paths),
        log_tail=_log_tail(paths),
        final_text=final_text,
    )
    return Retrieved(report, ReportSource.SYNTHESIZED, findings)


def _owned(report: Report, task: Task) -> Report:
    """The report names its task, whatever the agent wrote there."""
    return report if report.task_id == task.id else report.model_copy(update={"task_id": task.id})


def _refusals(refused: Sequence[str]) -> list[Finding]:
    return [
        Finding(severity=Severity.MEDIUM, title="Report version refused", detail=text)
        for text in dict.fromkeys(refused)
    ]


def _log_tail(paths: TaskPaths) -> str:
    try:
        with paths.raw_log.open("rb") as log:
            log.seek(0, 2)
            size = log.tell()
            log.seek(max(0, size - LOG_TAIL_BYTES))
            return log.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _short(error: BaseException) -> str:
    return one_line(str(error), 300)
