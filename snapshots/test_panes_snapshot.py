"""SVG snapshots of the questions pane, the report view and the confirm modal (the help,
generated from the app's bindings, is a screen of test_app_snapshot.py).

Everything on screen is fixed: the data (a real task directory with fixed ids and times),
the terminal size, the theme, and the cursor (no blink, so a screenshot cannot catch it
half-way). Update with ``--snapshot-update`` only after looking at the report.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Input

from caesar_core.protocol import Isolation, Mode
from caesar_core.protocol.report import (
    Change,
    ChangeAction,
    CommandRun,
    Finding,
    Report,
    ReportStatus,
    Severity,
    Usage,
)
from caesar_core.store import (
    ReportSource,
    TaskRecord,
    TaskStatus,
    TaskStore,
    VerifiedBy,
    answer,
    ask,
)
from caesar_core.watch import ProjectMonitor, TaskView
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.report_view import ReportView

SnapCompare = Callable[..., bool]
SIZE = (100, 30)
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TASK = "t_" + "c" * 32


def task_view(root: Path) -> TaskView:
    """A running task with one pending question (options) and one answered."""
    store = TaskStore(root)
    store.create(
        TaskRecord(
            id=TASK,
            status=TaskStatus.SUCCEEDED,
            created_at=T0,
            agent="codex",
            objective="tidy the parser",
            workspace=str(root),
            isolation=Isolation.WORKTREE,
            mode=Mode.WRITE,
            report_source=ReportSource.CHANNEL,
            changes_verified_by=VerifiedBy.GIT,
        )
    )
    paths = store.paths(TASK)
    ask(paths, "Which name for the entry point?", [], now=T0, question_id="q_name")
    answer(paths, "q_name", "parse_all", by="cli", now=T0 + timedelta(minutes=1))
    ask(
        paths,
        "Should the old behavior be kept?",
        ["yes", "no", "only behind a flag"],
        now=T0 + timedelta(minutes=2),
        question_id="q_keep",
    )
    monitor = ProjectMonitor(root)
    try:
        monitor.scan()
        return monitor.view(TASK, now=T0 + timedelta(minutes=3))
    finally:
        monitor.close()


def running(view: TaskView) -> TaskView:
    """The same view while the task still runs (an ended task's questions get no form)."""
    record = view.record.model_copy(update={"status": TaskStatus.RUNNING})
    return TaskView(record, view.activity, view.pending, view.answered, view.bad_lines)


async def no_blink(pilot: Pilot[None]) -> None:
    """A blinking cursor is on or off depending on when the screenshot lands."""
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


class QuestionsApp(App[None]):
    def __init__(self, view: TaskView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield QuestionsPane()

    def on_mount(self) -> None:
        pane = self.query_one(QuestionsPane)
        pane.show(self.view)
        pane.focus_first_question()


class ReportApp(App[None]):
    def __init__(self, view: TaskView, report: Report) -> None:
        super().__init__()
        self.view = view
        self.report = report

    def compose(self) -> ComposeResult:
        yield ReportView()

    def on_mount(self) -> None:
        self.query_one(ReportView).show(self.view, self.report)


class ModalApp(App[None]):
    def __init__(self, modal: ModalScreen[bool] | ModalScreen[None]) -> None:
        super().__init__()
        self.modal = modal

    def on_mount(self) -> None:
        self.push_screen(self.modal)


@pytest.fixture
def view(tmp_path: Path) -> TaskView:
    return task_view(tmp_path)


def test_questions_pending_and_answered(snap_compare: SnapCompare, view: TaskView) -> None:
    app = QuestionsApp(running(view))
    assert snap_compare(app, terminal_size=SIZE, run_before=no_blink)


def test_report_with_findings(snap_compare: SnapCompare, view: TaskView) -> None:
    report = Report(
        protocol="caesar.report/v1",
        status=ReportStatus.PARTIAL,
        summary="Parser split in two; nested quotes still fail",
        details="parse() became lex() + parse_all(); the old entry point remains as a shim.",
        changes=[
            Change(path="src/parse.py", action=ChangeAction.MODIFIED, summary="split in two"),
            Change(path="src/lex.py", action=ChangeAction.CREATED),
            Change(path="src/old_parse.py", action=ChangeAction.DELETED),
        ],
        commands_run=[CommandRun(command="pytest -q", exit_code=1)],
        findings=[
            Finding(severity=Severity.INFO, title="docstrings are out of date"),
            Finding(
                severity=Severity.CRITICAL,
                title="eval() on user input",
                file="src/parse.py",
                line=42,
                detail="Replace with ast.literal_eval.",
            ),
            Finding(severity=Severity.HIGH, title="tests fail on nested quotes"),
            Finding(severity=Severity.MEDIUM, title="quadratic token loop", file="src/lex.py"),
            Finding(severity=Severity.LOW, title="unused import", file="src/lex.py", line=3),
        ],
        next_steps=["handle nested quotes", "remove the shim after one release"],
        usage=Usage(input_tokens=48210, output_tokens=3120, cost_usd=0.21, duration_ms=754000),
    )
    assert snap_compare(ReportApp(view, report), terminal_size=SIZE)


def test_confirm_modal(snap_compare: SnapCompare) -> None:
    modal = ConfirmModal(
        "Apply cccccccc to your working tree?",
        ["src/parse.py", "src/lex.py", "src/old_parse.py"],
        conflicts=["src/parse.py: you changed it too"],
        confirm_label="apply",
        cancel_label="cancel",
    )
    assert snap_compare(ModalApp(modal), terminal_size=SIZE)
