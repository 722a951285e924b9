"""A worker's unexpected error is said on screen, never swallowed (``Worker.StateChanged``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.protocol import Event
from caesar_core.runner import worktrees
from caesar_core.store.record import TaskRecord
from caesar_tui.app import make_app
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import SIZE, TASK, Clock, Project, text, toasts, until


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


async def test_a_history_unreadable_for_the_first_frame_is_read_again_and_notified(
    tmp_path: Path,
) -> None:
    """The first task shown has its activity read before the app runs, for the first frame:
    a read that fails there is left to the worker, which fails the same way and says so; the
    tree is shown all the same."""

    def broken(task_id: str) -> list[Event]:
        raise OSError(f"the log of {task_id} is unreadable")

    project = Project(tmp_path)
    project.task()
    app = project.app(Clock())
    app.main.files.history = broken  # type: ignore[method-assign]
    app.read_first(SIZE[1])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert TASK[2:10] in text(app.query_one(TaskTree))
        await until(pilot, lambda: any("is unreadable" in t for t in toasts(app)), "the toast")
        assert any(f"OSError: the log of {TASK} is unreadable" in t for t in toasts(app))
