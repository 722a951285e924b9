"""Which report the task ends with: the best tier the agent honored, most reliable first.

1. ``report.json`` (written by ``submit_report`` on the channel, or by the agent itself);
2. the agent's final-message file (native structured output, codex ``-o``);
3. a report the agent *said*: in its last message, then anywhere in its raw output;
4. a report synthesized from how the process ended, its output and the diff.

Every file is read through :mod:`caesar_core.safefs` (the agent can write its task directory):
a link, a FIFO, a directory or an oversized or too deeply nested document is refused, never
read through. A report caesar refused (that, or an unknown version, invalid UTF-8, a status
the contract does not have) is named in a finding that says what the agent should have
written, the next tier is tried, and the task cannot succeed: ``Retrieved.refused`` says why.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from caesar_core import reclaim, safefs
from caesar_core.agents.base import ReportTier
from caesar_core.errors import CaesarError
from caesar_core.humanize import one_line
from caesar_core.protocol.documents import describe, read_report
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.protocol.task import Task
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.protocol.versions import DocumentKind, supported_versions
from caesar_core.report import extract_from_files, extract_report, synthesize_report
from caesar_core.runner.supervise import Exit
from caesar_core.store.record import ReportSource

LOG_TAIL_BYTES = 64 * 1024

_VERSIONS = " or ".join(f'"{version}"' for version in supported_versions(DocumentKind.REPORT))
WHAT_TO_WRITE = (
    "A report caesar reads is a regular file (no link, no FIFO) holding one JSON object in "
    f"UTF-8, at most {safefs.MAX_JSON_DEPTH} levels deep and "
    f'{safefs.MAX_DOCUMENT_BYTES >> 20} MB, with "protocol": {_VERSIONS}, "status": one of '
    f'{", ".join(status.value for status in ReportStatus)}, and a "summary"; '
    "`caesar protocol schema report` prints the whole schema."
)
"""What every refusal finding tells the agent (and whoever reads the report) to write."""


@dataclass(frozen=True)
class Retrieved:
    report: Report
    source: ReportSource
    findings: list[Finding]
    refused: str | None = field(default=None)
    """Why the agent's report was refused, when it was: such a task never succeeds."""


def retrieve(
    task: Task,
    paths: TaskPaths,
    tier: ReportTier,
    ended: Exit,
    *,
    final_text: str | None,
    changed_paths: Sequence[str],
) -> Retrieved:
    findings = tampering(paths)
    refused: str | None = None
    if _present(paths, paths.report.name):
        try:
            report = read_report(paths.report)
            source = ReportSource.CHANNEL if tier == "channel" else ReportSource.FILE
            return Retrieved(_owned(report, task), source, findings)
        except (CaesarError, ValueError, OSError) as error:
            refused = f"{paths.report.name} {_why(error)}"
            findings.append(refusal(refused))
    said = ReportSource.SCHEMA if tier == "schema" else ReportSource.EXTRACTED
    if (unusable := _unreadable(paths, paths.final_message.name)) is not None:
        findings.append(_skipped(paths.final_message.name, unusable))
    elif _present(paths, paths.final_message.name):
        found = extract_from_files([paths.final_message])
        findings.extend(_refusals(found.refused))
        if found.report is not None:
            return Retrieved(_owned(found.report, task), said, findings, refused)
        refused = refused or _first(found.refused)
    if final_text:
        found = extract_report(final_text)
        findings.extend(_refusals(found.refused))
        if found.report is not None:
            return Retrieved(_owned(found.report, task), said, findings, refused)
        refused = refused or _first(found.refused)
    if (unusable := _unreadable(paths, paths.raw_log.name)) is not None:
        findings.append(_skipped(paths.raw_log.name, unusable))
    else:
        found = extract_from_files([paths.raw_log])
        findings.extend(_refusals(found.refused))
        if found.report is not None:
            return Retrieved(_owned(found.report, task), ReportSource.EXTRACTED, findings, refused)
        refused = refused or _first(found.refused)
    report = synthesize_report(
        task_id=task.id,
        exit_code=ended.exit_code,
        timed_out=ended.timed_out,
        cancelled=ended.cancelled,
        changed_paths=list(changed_paths),
        log_tail=_log_tail(paths),
        final_text=final_text,
        refused=refused,
    )
    return Retrieved(report, ReportSource.SYNTHESIZED, findings, refused)


def refusal(why: str) -> Finding:
    """The finding for a report caesar refused: why, and what the agent should have written."""
    return Finding(
        severity=Severity.HIGH,
        title="Report refused",
        file="report.json",
        detail=f"The agent's report was refused: {_short(why)}. {WHAT_TO_WRITE}",
    )


def tampering(paths: TaskPaths) -> list[Finding]:
    """What the agent put in place of files caesar writes (moved aside by ``reclaim.claim``)."""
    try:
        refused = reclaim.refused_entries(paths.root)
    except OSError:
        return []
    findings = []
    for original, aside in refused:
        try:
            what = reclaim.describe(paths.root, aside)
        except OSError:
            what = "something caesar could not write"
        findings.append(
            Finding(
                severity=Severity.HIGH,
                title="The agent replaced a file caesar writes",
                file=original,
                detail=f"{original} in the task directory was {what} (kept as {aside}). "
                "caesar follows no link and writes only its own regular files there: it "
                f"moved that entry aside, untouched, and wrote a new {original}.",
            )
        )
    return findings


def _present(paths: TaskPaths, name: str) -> bool:
    """Whether anything (a file, a link, a FIFO...) stands at ``name``; nothing is followed."""
    try:
        safefs.lstat(paths.root, name)
    except OSError:
        return False
    return True


def _unreadable(paths: TaskPaths, name: str) -> str | None:
    """Why ``name`` cannot be read, when it is there and is not a plain file; else None."""
    try:
        fd = safefs.open_file(paths.root, name)
    except FileNotFoundError:
        return None
    except OSError as error:
        return _why(error)
    os.close(fd)
    return None


def _owned(report: Report, task: Task) -> Report:
    """The report names its task, whatever the agent wrote there."""
    return report if report.task_id == task.id else report.model_copy(update={"task_id": task.id})


def _refusals(refused: Sequence[str]) -> list[Finding]:
    return [refusal(text) for text in dict.fromkeys(refused)]


def _first(refused: Sequence[str]) -> str | None:
    return refused[0] if refused else None


def _skipped(name: str, why: str) -> Finding:
    return Finding(
        severity=Severity.MEDIUM,
        title=f"{name} not read",
        file=name,
        detail=f"{name} {why}: caesar looked for no report in it.",
    )


def _why(error: BaseException) -> str:
    """A refusal in words: what was wrong with the file or the document."""
    if isinstance(error, safefs.UnsafeFileError):
        return error.problem
    if isinstance(error, safefs.TooDeepError):
        return f"is {error}"
    if isinstance(error, CaesarError):
        return f"was refused: {error.reason}"
    if isinstance(error, ValueError):
        problems = describe(error)
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        return "is not a valid report: " + "; ".join(map(str, problems[:3])) + more
    return f"could not be read: {error}"


def _log_tail(paths: TaskPaths) -> str:
    try:
        data = safefs.read_tail(paths.root, paths.raw_log.name, LOG_TAIL_BYTES)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def _short(text: str) -> str:
    return one_line(text, 300)
