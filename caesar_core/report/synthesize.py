"""The last resort of the degraded tier: the report caesar writes when the agent left none.

Every task ends with a report, so the orchestrator never has to special-case "nothing came
back". This one is built from facts only (how the process ended, what changed, what it
printed last) and says plainly that it was synthesized.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from caesar_core.protocol.report import (
    Change,
    ChangeAction,
    Finding,
    Report,
    ReportStatus,
    Severity,
)
from caesar_core.protocol.versions import CURRENT, DocumentKind

SUMMARY_CHARS = 500
"""At most this much of the agent's last words becomes the summary."""
SUMMARY_LINES = 5

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def synthesize_report(
    *,
    task_id: str,
    exit_code: int | None,
    timed_out: bool,
    cancelled: bool,
    changed_paths: Sequence[str | tuple[str, ChangeAction]],
    log_tail: str,
    final_text: str | None,
    refused: str | None = None,
) -> Report:
    """The report caesar writes when the agent left none: every task ends with one.

    The status is decided from facts, never guessed optimistically: ``failed`` when the
    process timed out, was cancelled, never ran (``exit_code`` None) or exited non-zero, or
    when the agent's report was ``refused`` (why, in words); otherwise ``partial`` when files
    changed (nobody checked them against the acceptance criteria), else ``success``.
    ``changed_paths`` are plain paths (``modified``) or ``(path, action)`` pairs.
    """
    changes = [change for item in changed_paths if (change := _change(item)) is not None]
    status, reason = _status(exit_code, timed_out, cancelled, len(changes))
    if refused is not None and status is not ReportStatus.FAILED:
        status, reason = ReportStatus.FAILED, f"its report was refused: {refused}"
    wrote = "the agent's report was refused" if refused else "the agent wrote no report"
    return Report(
        protocol=CURRENT[DocumentKind.REPORT],
        task_id=task_id,
        status=status,
        summary=(
            f"The agent's report was refused: {refused}"[:SUMMARY_CHARS]
            if refused
            else _summary(final_text, log_tail, reason)
        ),
        details=(
            f"Synthesized by caesar: {wrote}, and none was found in its "
            f"output. The status is {status.value} because {reason}."
        ),
        changes=changes,
        findings=[
            Finding(
                severity=Severity.LOW,
                title="No usable report from the agent" if refused else "No report from the agent",
                detail=(
                    "The agent's report was refused and no other was found"
                    if refused
                    else "Neither report.json, nor the return channel, nor a report in the "
                    "agent's output"
                )
                + ": this report was built from the exit status, the changed files and the "
                "end of the log.",
            )
        ],
    )


def _status(
    exit_code: int | None, timed_out: bool, cancelled: bool, changed: int
) -> tuple[ReportStatus, str]:
    if timed_out:
        return ReportStatus.FAILED, "the task ran out of time"
    if cancelled:
        return ReportStatus.FAILED, "the task was cancelled"
    if exit_code is None:
        return ReportStatus.FAILED, "the agent never ran to an exit code"
    if exit_code != 0:
        return ReportStatus.FAILED, f"the agent exited with code {exit_code}"
    if changed:
        files = "file" if changed == 1 else "files"
        return ReportStatus.PARTIAL, (
            f"the agent exited with code 0 and changed {changed} {files}, which nobody has "
            "checked against the acceptance criteria"
        )
    return ReportStatus.SUCCESS, "the agent exited with code 0 and changed nothing"


def _summary(final_text: str | None, log_tail: str, reason: str) -> str:
    if final_text is not None and final_text.strip():
        return final_text.strip()[:SUMMARY_CHARS]
    lines = [line.strip() for line in _ANSI.sub("", log_tail).splitlines() if line.strip()]
    if lines:
        return "\n".join(lines[-SUMMARY_LINES:])[-SUMMARY_CHARS:].strip()
    return f"No report and no output: {reason}."


def _change(item: str | tuple[str, ChangeAction]) -> Change | None:
    path, action = (item, ChangeAction.MODIFIED) if isinstance(item, str) else item
    return Change(path=path, action=ChangeAction(action)) if path else None
