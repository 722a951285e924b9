"""A worker's unexpected error is said on screen, never swallowed (``Worker.StateChanged``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.runner import worktrees
from caesar_core.store.record import TaskRecord
from caesar_tui.app import make_app
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import SIZE, TASK, Clock, Project, toasts, until


async def test_an_os_error_while_applying_is_notified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(worktrees, "apply", full)
    project = Project(tmp_path)
    project.task()
    app = project.app(Clock())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        await pilot.press("A", "y")
        await until(pilot, lambda: any("apply failed" in toast for toast in toasts(app)), "!")
        [toast] = [toast for toast in toasts(app) if "apply failed" in toast]
        assert "OSError: [Errno 28] No space left on device" in toast


async def test_a_diff_that_cannot_be_computed_is_notified(tmp_path: Path) -> None:
    def broken(record: TaskRecord) -> None:
        raise RuntimeError("the index is corrupt")

    project = Project(tmp_path)
    project.task()
    app = make_app(project.root, clock=Clock(), diff_provider=broken)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        await pilot.press("3")
        await until(pilot, lambda: any("compute failed" in t for t in toasts(app)), "the toast")
        assert any("RuntimeError: the index is corrupt" in t for t in toasts(app))
