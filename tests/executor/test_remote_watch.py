"""``caesar watch`` over a task that runs on a cluster's worker: live, and marked with it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from caesar_tui.app import make_app
from tests.executor.conftest import Cluster, only_task, record_of, start
from tests.runner.conftest import context
from tests.tui.screen import screen_lines


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    for _ in range(1500):  # a remote task takes seconds: up to 60 s
        if condition():
            return
        await pilot.pause(0.04)
    raise AssertionError(f"timed out waiting for {what}")


async def test_watch_shows_a_remote_task_live_with_its_worker(
    cluster: Cluster, project: Path
) -> None:
    run = start(
        cluster, project, "Note it", "--agent", "demo", "--context", context("work", delay=0.5)
    )
    try:
        task = only_task(project)
        app = make_app(project, notify=False)
        async with app.run_test(size=(160, 40)) as pilot:

            def row() -> str:
                worker = record_of(project, task)["executor"].get("worker") or "?"
                where = f"on {worker.split('://')[-1]}"
                shown = [line for line in screen_lines(app) if task[2:10] in line]
                return next((line for line in shown if where in line), "")

            await until(pilot, row, "the task's row marked with its worker")

            def live() -> bool:
                running = record_of(project, task)["status"] == "running"
                return running and any("surveyed the workspace" in s for s in screen_lines(app))

            await until(pilot, live, "the agent's progress on screen while it runs remotely")
            await until(
                pilot,
                lambda: record_of(project, task)["executor"].get("settled"),
                "the result landed",
            )
            await until(pilot, lambda: "✓" in row() or "succeeded" in row(), "the row ended")
    finally:
        run.communicate(timeout=120)
