"""The example report: the one every brief shows, and the one the extractor refuses to take
for an agent's own.

A module of its own so that writing a brief (before the agent starts) does not load the
extractor's patterns, which only the task's conclusion needs.
"""

from __future__ import annotations

from caesar_core.protocol.report import (
    Change,
    ChangeAction,
    CommandRun,
    Finding,
    Question,
    Report,
    ReportStatus,
    Severity,
)
from caesar_core.protocol.versions import REPORT_V1

EXAMPLE_REPORT = Report(
    protocol=REPORT_V1,
    status=ReportStatus.SUCCESS,
    summary="One or two sentences: what was done, and how it was checked.",
    details="What a reviewer needs beyond the summary: decisions, trade-offs, caveats.",
    changes=[Change(path="path/to/file.py", action=ChangeAction.MODIFIED, summary="what changed")],
    commands_run=[CommandRun(command="the test command", exit_code=0)],
    findings=[
        Finding(
            severity=Severity.MEDIUM,
            title="Something the orchestrator should know",
            file="path/to/file.py",
            line=42,
            detail="why it matters",
        )
    ],
    questions=[Question(id="q1", question="A decision outside the task", options=["yes", "no"])],
    next_steps=["What remains, when the status is partial"],
)
"""The example report every brief shows (:mod:`caesar_core.agents.brief`).

The extractor knows it too (:mod:`caesar_core.report.extract`): an agent whose output echoes
its prompt would otherwise hand back the example as its own report.
"""
