"""The checks marks of ``caesar watch``, read off the rendered screen: the tree's mark per task
(passed, failed, running, not run) and the Report tab's checks, from caesar's record."""

from __future__ import annotations

import os
from pathlib import Path

from caesar_core.store import TaskStatus
from caesar_core.store.record import CheckResult, Checks, ChecksState
from caesar_tui.widgets.report_view import ReportView
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import OTHER, SIZE, TASK, Clock, Project, text, until

PASSED = "t_" + "c" * 32
FAILED = "t_" + "d" * 32
EVIL = "\x1b[2J\x1b]0;owned\x07"


def run(state: ChecksState, *results: CheckResult, pid: int | None = None) -> Checks:
    return Checks(state=state, started_at=Clock().at(1), results=list(results), pid=pid)


def project_with_checks(root: Path) -> Project:
    project = Project(root)
    project.task(TASK, checks=run(ChecksState.RUNNING, pid=os.getpid()))  # this process: alive
    project.task(OTHER, created_at=Clock().at(1))  # never checked
    project.task(
        PASSED,
        created_at=Clock().at(2),
        status=TaskStatus.SUCCEEDED,
        checks=run(ChecksState.PASSED, CheckResult(command="pytest -q", exit_code=0)),
    )
    project.task(
        FAILED,
        created_at=Clock().at(3),
        status=TaskStatus.FAILED,
        checks=run(
            ChecksState.FAILED,
            CheckResult(command="ruff check .", exit_code=0, duration_ms=800),
            CheckResult(
                command=f"pytest -q {EVIL}",
                exit_code=1,
                duration_ms=2500,
                output_tail=f"collected 3 items\nFAILED test_io.py::test_read {EVIL}\n",
            ),
        ),
    )
    return project


def row(tree_text: str, task_id: str) -> str:
    return next(line for line in tree_text.splitlines() if task_id[2:10] in line)


async def test_the_tree_marks_each_tasks_checks(tmp_path: Path) -> None:
    project = project_with_checks(tmp_path)
    app = project.app(Clock(Clock().at(30)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: FAILED[2:10] in text(tree), "the tasks")
        shown = text(tree)
        assert f"▶ {TASK[2:10]} ◔" in row(shown, TASK)  # running
        assert f"▶ {OTHER[2:10]} ☐" in row(shown, OTHER)  # not run
        assert f"✓ {PASSED[2:10]} ☑" in row(shown, PASSED)
        assert f"✗ {FAILED[2:10]} ☒" in row(shown, FAILED)

        # The run ends: the record changes and the mark follows, with no other event.
        project.store.set(TASK, checks=run(ChecksState.FAILED, CheckResult(command="x")))
        await until(pilot, lambda: f"{TASK[2:10]} ☒" in text(tree), "the new mark")
        # A run left "running" by a caesar that is gone is not running: not run.
        project.store.set(OTHER, checks=run(ChecksState.RUNNING, pid=2**22 + 12345))
        await until(pilot, lambda: f"{OTHER[2:10]} ☐" in text(tree), "the stale run")


async def test_the_report_tab_shows_each_check_escaped(tmp_path: Path) -> None:
    project = project_with_checks(tmp_path)
    app = project.app(Clock(Clock().at(30)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: FAILED[2:10] in text(tree), "the tasks")
        tree.select_task(FAILED)
        await pilot.press("4")
        report = app.query_one(ReportView)
        await until(pilot, lambda: "checks" in text(report), "the checks")
        lines = [line.removeprefix(" ") for line in text(report).splitlines() if line]
        assert lines[:2] == ["task failed", "no report yet"]
        assert lines[2:] == [
            "checks  ☒ failed  run by caesar",
            "  ☑ $ ruff check .  0.8s  exit 0",
            "  ☒ $ pytest -q \\x1b[2J\\x1b]0;owned\\x07  2.5s  exit 1",
            "      collected 3 items",
            "      FAILED test_io.py::test_read \\x1b[2J\\x1b]0;owned\\x07",
        ]
        tree.select_task(OTHER)
        await until(pilot, lambda: "checks" not in text(report), "a task never checked")


async def test_apply_warns_when_checks_failed_or_did_not_run(tmp_path: Path) -> None:
    project = project_with_checks(tmp_path)
    app = project.app(Clock(Clock().at(30)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: FAILED[2:10] in text(tree), "the tasks")
        for task_id, warning in [
            (FAILED, "⚠ caesar's checks failed: check `pytest -q \\x1b[2J"),
            (OTHER, "⚠ caesar's checks have not run on this task"),
            (TASK, "⚠ caesar's checks of this task are still running"),
            (PASSED, None),
        ]:
            tree.select_task(task_id)
            await pilot.press("A")
            await until(pilot, lambda: "to your working tree?" in screen(app), "the confirmation")
            if warning is None:
                assert "⚠" not in screen(app)
            else:
                assert warning in screen(app)
            await pilot.press("n")
            await until(pilot, lambda: "to your working tree?" not in screen(app), "closed")


def screen(app: object) -> str:
    from tests.tui.screen import screen_lines

    return "\n".join(screen_lines(app))  # type: ignore[arg-type]
