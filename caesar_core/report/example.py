"""The example report: the one every brief shows, and the one the extractor refuses to take
for an agent's own.

A module of its own so that writing a brief (before the agent starts) does not load the
extractor's patterns, which only the task's conclusion needs. The brief shows
:data:`EXAMPLE_FIELDS`, plain data: building :data:`EXAMPLE_REPORT` would build the report's
validators (``Report``, ``Change``, ``Finding``…) on the way to the agent's start, where
nothing else needs them. The report is made from the same fields, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from caesar_core.protocol.versions import REPORT_V1

if TYPE_CHECKING:
    from caesar_core.protocol.report import Report

    EXAMPLE_REPORT: Report

EXAMPLE_FIELDS: dict[str, Any] = {
    "protocol": REPORT_V1,
    "status": "success",
    "summary": "One or two sentences: what was done, and how it was checked.",
    "details": "What a reviewer needs beyond the summary: decisions, trade-offs, caveats.",
    "changes": [{"path": "path/to/file.py", "action": "modified", "summary": "what changed"}],
    "commands_run": [{"command": "the test command", "exit_code": 0}],
    "findings": [
        {
            "severity": "medium",
            "title": "Something the orchestrator should know",
            "file": "path/to/file.py",
            "line": 42,
            "detail": "why it matters",
        }
    ],
    "questions": [
        {"id": "q1", "question": "A decision outside the task", "options": ["yes", "no"]}
    ],
    "next_steps": ["What remains, when the status is partial"],
}
"""The example report's fields, in JSON form and in the order shown: exactly what
``EXAMPLE_REPORT.model_dump(mode="json", exclude_unset=True)`` gives (a test holds them to it).
Treat as read-only."""


def __getattr__(name: str) -> Any:
    """``EXAMPLE_REPORT``, validated from :data:`EXAMPLE_FIELDS` when first asked for (the
    extractor's)."""
    if name != "EXAMPLE_REPORT":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import copy

    from caesar_core.protocol.report import Report

    report = Report.model_validate(copy.deepcopy(EXAMPLE_FIELDS))
    globals()["EXAMPLE_REPORT"] = report
    return report
