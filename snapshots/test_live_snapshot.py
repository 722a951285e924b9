"""The Activity tab after live updates: the scene on screen, then a call started and ended
(and another started) while the app watches, so the rows are the live path's, not the
history's. Deterministic: fixed event times, the scene's fixed clock.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from caesar_core.events import EventWriter
from caesar_core.protocol import Message, ToolStatus, ToolUse
from caesar_core.store import TaskStore
from caesar_tui.widgets.activity import ActivityView
from snapshots.scene import IMPLEMENTER, NOW, scene_app
from snapshots.test_app_snapshot import SIZE, steps


def test_activity_after_a_call_started_and_ended_while_watched(
    snap_compare: Any, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    app = scene_app(root)

    async def run_before(pilot: Pilot[Any]) -> None:
        await steps("1", select=IMPLEMENTER)(pilot)
        activity = pilot.app.query_one(ActivityView)
        before = activity.row_count
        moments = iter(NOW - timedelta(seconds=ago) for ago in (12, 10.6, 9, 4))
        events = TaskStore(root).paths(IMPLEMENTER).events
        with EventWriter(events, IMPLEMENTER, clock=lambda: next(moments)) as writer:
            writer.append(
                ToolUse(
                    tool="bash",
                    id="live_1",
                    input_summary="pytest -q tests/test_parser.py -k pairs",
                    status=ToolStatus.STARTED,
                )
            )
            writer.append(ToolUse(tool="", id="live_1", status=ToolStatus.SUCCEEDED))
            writer.append(Message(text="The pairs case passes; running the whole suite."))
            writer.append(
                ToolUse(
                    tool="Edit", id="live_2", input_summary="CHANGES.md", status=ToolStatus.STARTED
                )
            )
        for _ in range(400):
            if activity.row_count == before + 3:
                break
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
