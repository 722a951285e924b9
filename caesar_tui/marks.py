"""How ``caesar watch`` marks things: one glyph and one style for each task status, change
action, report status, finding severity and kind of activity row, in one place.

Styles are Textual theme variables (``$text-success``...), so every pane agrees and follows
the theme; glyphs are plain text, shared with the text frame (``caesar watch --once``). No
Textual import here: the frame must not load it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from caesar_core.protocol.report import ChangeAction, ReportStatus, Severity
from caesar_core.store.record import ChecksMark, TaskStatus

MUTED: Final = "dim"
"""What is there for reference (times, ages, ids). Not ``$text-muted``: the tree and the
Activity table draw through Rich, where that colour (``auto 60%``, computed against the
background) cannot be resolved and comes out black."""


@dataclass(frozen=True)
class Mark:
    """A glyph and the theme style it is drawn in."""

    glyph: str
    style: str


STATUS: Final[dict[TaskStatus, Mark]] = {
    TaskStatus.PENDING: Mark("·", MUTED),
    TaskStatus.RUNNING: Mark("▶", "bold $text-primary"),
    TaskStatus.SUCCEEDED: Mark("✓", "$text-success"),
    TaskStatus.FAILED: Mark("✗", "$text-error"),
    TaskStatus.CANCELLED: Mark("⊘", "$text-warning"),
    TaskStatus.TIMED_OUT: Mark("⏱", "$text-error"),
}
"""A task's status, in the tree, the header, the report and the text frame."""

CHECKS: Final[dict[ChecksMark, Mark]] = {
    ChecksMark.PASSED: Mark("☑", "$text-success"),
    ChecksMark.FAILED: Mark("☒", "bold $text-error"),
    ChecksMark.RUNNING: Mark("◔", "$text-primary"),
    ChecksMark.NOT_RUN: Mark("☐", MUTED),
}
"""What caesar's own checks (``[review] checks``) of a task say: the tree and the report."""

NEEDS_INPUT: Final = Mark("?", "bold $text-warning")
"""A task waiting for a person: a pending question or a held tool call."""

STALLED: Final = Mark("…", "bold $text-error")
"""A running task silent for longer than the fold's stall threshold."""

CHANGE: Final[dict[ChangeAction, Mark]] = {
    ChangeAction.CREATED: Mark("A", "$text-success"),
    ChangeAction.MODIFIED: Mark("M", "$text-warning"),
    ChangeAction.DELETED: Mark("D", "$text-error"),
    ChangeAction.RENAMED: Mark("R", "$text-primary"),
}
"""A changed file, with the letter ``git status --short`` uses: the Diff tab and the report."""

REPORT_STYLE: Final[dict[ReportStatus, str]] = {
    ReportStatus.SUCCESS: "$text-success",
    ReportStatus.PARTIAL: "$text-warning",
    ReportStatus.FAILED: "$text-error",
    ReportStatus.BLOCKED: "$text-warning",
}

SEVERITY_STYLE: Final[dict[Severity, str]] = {
    Severity.CRITICAL: "bold reverse $text-error",
    Severity.HIGH: "bold $text-error",
    Severity.MEDIUM: "$text-warning",
    Severity.LOW: "$text-primary",
    Severity.INFO: "$text-muted",
}

CALL: Final[dict[str, Mark]] = {
    "started": Mark("⠋", "$text-primary"),
    "succeeded": Mark("✓", "$text-success"),
    "failed": Mark("✗", "$text-error"),
}
"""A tool call's row by its status; a running call's glyph is replaced by the spinner."""

SPINNER: Final = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

ROW_STYLE: Final[dict[str, str]] = {
    "message": "",
    "thinking": f"italic {MUTED}",
    "progress": "$text-primary",
    "file": "$text-success",
    "question": "bold $text-warning",
    "answer": "$text-warning",
    "error": "$text-error",
    "started": MUTED,
    "finished": "bold",
}
"""The Activity tab's other rows, by kind (see ``caesar_tui.activity_rows.Row.kind``)."""

BOX: Final[dict[str, Mark]] = {
    "all": Mark("[x]", "bold"),
    "some": Mark("[~]", "bold $text-warning"),
    "none": Mark("[ ]", MUTED),
    "applied": Mark("[✓]", "$text-success"),
}
"""A file's or a hunk's checkbox in the Diff tab, by how much of it is selected (see
``caesar_tui.review.Box``); ``applied``: nothing of it is left to apply."""

LINE: Final[dict[str, Mark]] = {
    "selected": Mark("●", "$text-accent"),
    "unselected": Mark("○", MUTED),
    "applied": Mark("✓", "$text-success"),
}
"""The gutter of a changed line in the Diff tab: whether applying takes it."""

CURSOR: Final = Mark("▌", "$text-accent")
"""The gutter of the rows of the hunk under the cursor."""

LINE_CURSOR: Final = Mark("▶", "bold $text-accent")
"""The changed line under the cursor while lines are being selected (``v``)."""

APPLIED: Final = Mark("✓", "$text-success")
"""Hunks already applied to the user's tree (counted in the file list)."""

REJECTED: Final = Mark("✗", "$text-error")
"""Hunks rejected: reverted in the task's worktree, gone from its diff."""

WARNING: Final = Mark("⚠", "$text-warning")
"""What a confirmation asks the person to weigh first (caesar's checks failed, or did not run)."""
