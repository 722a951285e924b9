"""What an agent wrote never reaches the terminal as control characters: every pane, the
notifications and the text frame show them escaped (``caesar_core.terminal``)."""

from __future__ import annotations

from pathlib import Path

from caesar_core.fs import atomic_write, dump_json
from caesar_core.git import FileChange, assemble
from caesar_core.protocol import REPORT_V1, ChangeAction, Message, ReportStatus, ToolStatus, ToolUse
from caesar_core.protocol.report import Change, Finding, Report, Severity
from caesar_core.store import ask
from caesar_tui.frame import text_frame
from caesar_tui.widgets.task_tree import TaskTree
from tests.hostile.screen import unsafe
from tests.tui.screen import OTHER, SIZE, TASK, Clock, Project, screen_lines, toasts, until
from tests.watch.test_monitor_approvals import hold

EVIL = "x\x1b]0;owned\x07\x1b[2J\r\u202eevil"


def hostile_project(root: Path) -> Project:
    project = Project(root)
    task_dir = project.task()
    project.task(OTHER, created_at=Clock().at(1))
    with project.events(TASK, Clock().at(1), Clock().at(2)) as writer:
        writer.append(Message(text=f"said {EVIL}"))
        writer.append(
            ToolUse(tool=f"bash{EVIL}", id="c1", input_summary=EVIL, status=ToolStatus.STARTED)
        )
    ask(project.store.paths(TASK), f"Proceed {EVIL}?", [f"yes {EVIL}", "no"], question_id="q1")
    hold(task_dir, summary=f"rm {EVIL}", reason=EVIL)
    report = Report(
        protocol=REPORT_V1,
        task_id=TASK,
        status=ReportStatus.PARTIAL,
        summary=f"summary {EVIL}",
        details=f"details {EVIL}\nsecond line",
        changes=[Change(path=f"src/{EVIL}.py", action=ChangeAction.MODIFIED, summary=EVIL)],
        findings=[Finding(severity=Severity.HIGH, title=EVIL, file=f"a{EVIL}", detail=EVIL)],
        next_steps=[EVIL],
    )
    atomic_write(project.store.paths(TASK).report, dump_json(report.to_json_dict()))
    evil_path = f"src/{EVIL}.py"
    patch = (
        f"diff --git a/{evil_path} b/{evil_path}\n--- a/{evil_path}\n+++ b/{evil_path}\n"
        f"@@ -1 +1 @@\n+{EVIL}\n"
    )
    change = FileChange(evil_path, ChangeAction.MODIFIED, None, 1, 0)
    project.diffs[TASK] = assemble("a" * 40, "b" * 40, [(change, patch)])
    return project


async def test_no_pane_sends_an_agents_controls_to_the_terminal(tmp_path: Path) -> None:
    project = hostile_project(tmp_path)
    writes: list[str] = []
    app = project.app(Clock(Clock().at(30)), terminal=writes.append, environ={})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        for tab in ("1", "2", "3", "4"):
            await pilot.press(tab)
            await pilot.pause(0.2)
            shown = "\n".join(screen_lines(app))
            assert "\\x1b" in shown, tab  # the escapes are there, shown
            assert unsafe(shown) == [], (tab, shown)
        tree.select_task(OTHER)
        ask(project.store.paths(TASK), f"Again {EVIL}?", [], question_id="q2")
        await until(pilot, lambda: writes, "the desktop notification")
        assert unsafe(writes[0][len("\x1b]9;") : -1]) == []
        assert all(unsafe(toast) == [] for toast in toasts(app))


def test_the_text_frame_shows_them_escaped(tmp_path: Path) -> None:
    hostile_project(tmp_path)
    frame = text_frame(tmp_path, Clock().at(30))
    assert "\\x1b]0;owned" in frame
    assert unsafe(frame) == [], frame
