"""The whole app over a fixed scene: the tree with nested tasks, each tab, and the help (the
confirm modal has its own snapshot in test_panes_snapshot.py).

Deterministic: fixed ids and times (snapshots/scene.py), a fixed clock, a canned diff, UTC.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from snapshots.scene import HELPER, IMPLEMENTER, REVIEWER, scene_app

SIZE = (150, 36)


def steps(*keys: str, select: str = IMPLEMENTER) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        await app.loaded.wait()  # type: ignore[attr-defined]
        from caesar_tui.widgets.task_tree import TaskTree

        app.query_one(TaskTree).select_task(select)
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        # Settle: every worker but the file watcher (which runs for as long as the app does)
        # done, and the selected task's history on screen. Bounded, never a fixed sleep.
        from caesar_tui.widgets.activity import ActivityView

        for _ in range(200):
            busy = [w for w in app.workers if w.group != "watch" and not w.is_finished]
            if not busy and not app.query_one(ActivityView).loading:
                break
            await pilot.pause(0.02)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize(
    ("name", "keys", "select"),
    [
        ("activity", ("1",), IMPLEMENTER),
        ("questions", ("2",), HELPER),
        ("diff", ("3",), IMPLEMENTER),
        ("report", ("4",), REVIEWER),
        ("help", ("question_mark",), IMPLEMENTER),
    ],
)
def test_app(
    snap_compare: Any, tmp_path: Path, name: str, keys: tuple[str, ...], select: str
) -> None:
    app = scene_app(tmp_path / "project")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*keys, select=select))
