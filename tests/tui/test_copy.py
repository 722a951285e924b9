"""Text in the detail panes is selected with the mouse and copied (ctrl+c, OSC 52), as it
reads on screen; an Activity row is copied whole with ``c``."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

from caesar_core.protocol import ToolStatus, ToolUse
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.diff_text import GUTTER, DiffText
from caesar_tui.widgets.log_view import LogView
from caesar_tui.widgets.report_view import ReportView
from tests.tui.screen import SIZE, TASK, Clock, Project, cells, until

PATCH = (
    "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n keep\n-old = 1\n+new = 2\n"
)


class One(App[None]):
    def __init__(self, widget: ReportView | DiffText | LogView) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def test_report_text_is_selected_and_copied() -> None:
    view = ReportView()
    app = One(view)
    async with app.run_test(size=(80, 20)) as pilot:
        body = view.query_one(Static)
        body.update(Content("Parser tidied; one case left\nsecond line"))
        await pilot.pause()
        await pilot.mouse_down(body, offset=(1, 0))
        await pilot.hover(body, offset=(6, 0))
        await pilot.mouse_up(body, offset=(6, 0))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.clipboard == "Parser"


async def test_diff_text_is_selected_as_shown_and_copied() -> None:
    text = DiffText()
    app = One(text)
    async with app.run_test(size=(80, 20)) as pilot:
        text.show_patch("a.py", PATCH)
        await pilot.pause()
        # Row 1 of the content is "--- a/a.py" (the border takes row 0 of the widget); the
        # code starts after the border's column and the gutter, which is not copied.
        left = 1 + GUTTER
        await pilot.mouse_down(text, offset=(left, 6))
        await pilot.hover(text, offset=(left + 3, 7))
        await pilot.mouse_up(text, offset=(left + 3, 7))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.clipboard == "-old = 1\n+new"


async def test_log_text_is_selected_and_copied() -> None:
    log = LogView()
    app = One(log)
    async with app.run_test(size=(80, 20)) as pilot:
        log.show(TASK, ["first line", "second line"], reset=True)
        await pilot.pause()
        await pilot.mouse_down(log, offset=(0, 1))
        await pilot.hover(log, offset=(5, 1))
        await pilot.mouse_up(log, offset=(5, 1))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.clipboard == "second"


async def test_c_copies_the_highlighted_activity_row(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(5))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        with project.events(TASK, clock.at(0), clock.at(1)) as writer:
            writer.append(
                ToolUse(tool="bash", id="c1", input_summary="ls", status=ToolStatus.STARTED)
            )
            writer.append(ToolUse(tool="", id="c1", status=ToolStatus.SUCCEEDED))
        await until(pilot, lambda: cells(activity) and cells(activity)[-1][1] == "✓", "the row")
        await pilot.press("enter", "c")  # the detail pane (Activity), then copy
        await pilot.pause()
    assert app.clipboard == "12:00:00  ✓  bash  1.0s  ls"
