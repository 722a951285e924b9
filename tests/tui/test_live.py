"""Every live path of ``caesar watch``, read off the screen: a project written in process
while the app watches it, and assertions on what is drawn (cells, lines), never on state.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from caesar_core.git import TreeDiff
from caesar_core.protocol import Finished, Message, ReportStatus, ToolStatus, ToolUse
from caesar_core.store import TaskStatus, ask
from caesar_tui.marks import SPINNER
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.diff_files import DiffFileList
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.status_bar import StatusBar
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import (
    OTHER,
    SIZE,
    TASK,
    Clock,
    Project,
    cells,
    lines,
    one_file_diff,
    static_text,
    text,
    until,
)
from tests.watch.test_monitor_approvals import hold


def started(call: str, command: str, tool: str = "bash") -> ToolUse:
    return ToolUse(tool=tool, id=call, input_summary=command, status=ToolStatus.STARTED)


def ended(call: str, status: ToolStatus = ToolStatus.SUCCEEDED) -> ToolUse:
    # As Claude reports an end: by id alone, the name and input only on the start.
    return ToolUse(tool="", id=call, status=status)


def tool_rows(activity: ActivityView) -> list[tuple[str, ...]]:
    return [row for row in cells(activity) if row[2] not in ("said", "started", "thinking")]


async def test_a_call_ending_shows_its_duration_in_took_and_its_input_in_detail(
    tmp_path: Path,
) -> None:
    """The issue's bug: live rows had the command under ``took`` and the duration under
    ``detail``; rows read from history were right, so only a live test sees it."""
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(30))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        project.emit(TASK, clock.at(0), started("c1", "ls -la"))
        await until(pilot, lambda: tool_rows(activity), "the call's row")
        project.emit(TASK, clock.at(1), ended("c1"))
        await until(pilot, lambda: tool_rows(activity)[0][1] == "✓", "the call's end")
        assert tool_rows(activity) == [("12:00:00", "✓", "bash", "1.0s", "ls -la")]
        # And drawn in that order on the line itself.
        drawn = next(line for line in lines(activity) if "bash" in line)
        assert drawn.index("bash") < drawn.index("1.0s") < drawn.index("ls -la")


async def test_a_call_starting_runs_its_clock_and_a_failing_one_is_marked(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(3))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        project.emit(TASK, clock.at(0), started("c1", "pytest -q"))
        await until(pilot, lambda: tool_rows(activity), "the running call")
        [(when, mark, what, took, detail)] = tool_rows(activity)
        assert (when, what, took, detail) == ("12:00:00", "bash", "3.0s", "pytest -q")
        assert mark in SPINNER
        clock.moment = clock.at(65)
        app.main.tick()
        assert tool_rows(activity)[0][3] == "1m 05s"
        project.emit(TASK, clock.at(70.5), ended("c1", ToolStatus.FAILED))
        await until(pilot, lambda: tool_rows(activity)[0][1] == "✗", "the failure")
        assert tool_rows(activity) == [("12:00:00", "✗", "bash", "1m 10s", "pytest -q")]


async def test_a_message_arriving_is_one_row_glued_from_its_fragments(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(5))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        with project.events(TASK, clock.at(1), clock.at(2)) as writer:
            writer.append(Message(text="All tests pass; "))
            writer.append(Message(text="writing the report."))
        await until(pilot, lambda: "report." in text(activity), "the message")
        assert cells(activity)[-1] == (
            "12:00:01",
            "·",
            "said",
            "",
            "All tests pass; writing the report.",
        )


async def test_a_question_appearing_and_answered_by_key(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(5))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        ask(project.store.paths(TASK), "Keep the old behavior?", ["yes", "no"], question_id="q1")
        await until(pilot, lambda: "? 1 needs input" in static_text(app.query_one(StatusBar)), "?")
        assert "? aaaaaaaa" in text(tree) and "Keep the old behavior?" in text(tree)
        await pilot.press("a")  # the Questions tab, the first question's answer box
        pane = app.query_one(QuestionsPane)
        await until(pilot, lambda: "1 yes" in text(pane), "the form")
        assert "Keep the old behavior?" in text(pane)
        await pilot.press("2")
        await until(pilot, lambda: "→ no" in text(pane), "the answer on screen")
        assert "✓ Keep the old behavior?" in text(pane)
        assert "by watch" in text(pane)
        assert "1 yes" not in text(pane)  # the form is gone
        await until(pilot, lambda: "0 needs input" in static_text(app.query_one(StatusBar)), "no ?")


async def test_an_approval_held_then_allowed(tmp_path: Path) -> None:
    project = Project(tmp_path)
    task_dir = project.task()
    clock = Clock(Clock().at(30))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        await pilot.press("2")
        hold(task_dir)
        pane = app.query_one(QuestionsPane)
        await until(pilot, lambda: "approve Bash?" in text(pane), "the card")
        shown = text(pane)
        for part in ("git push origin main", "pushing needs a person", "times out in 1m 30s"):
            assert part in shown, part
        assert "approve Bash: git push origin main" in text(tree)
        await pilot.press("a", "y")
        await until(pilot, lambda: "✓ allowed Bash git push origin main" in text(pane), "✓")
        assert "by watch" in text(pane)
        assert "approve Bash?" not in text(pane)


async def test_a_task_ending_is_marked_counted_and_announced(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.task(OTHER, created_at=Clock().at(1))
    clock = Clock(Clock().at(10))
    writes: list[str] = []
    app = project.app(clock, terminal=writes.append, environ={})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the first task")
        ending = project.emit(
            OTHER, clock.at(8), Finished(status=ReportStatus.SUCCESS, summary="done")
        )
        assert ending is not None  # caesar's own ending, named in its record as the runner does
        project.store.conclude(
            OTHER, TaskStatus.SUCCEEDED, now=clock.at(8), finished_seq=ending.seq
        )
        await until(pilot, lambda: "✓ 1 finished" in static_text(app.query_one(StatusBar)), "✓")
        assert any(line.lstrip().startswith("✓ bbbbbbbb") for line in lines(tree))
        await until(pilot, lambda: writes, "the desktop notification")
        assert writes == ["\x1b]9;caesar: Task ended: bbbbbbbb succeeded: success: done\x07"]
        tree.select_task(OTHER)
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: any("done" in row for row in cells(activity)), "the end")
        assert cells(activity)[-1][2:] == ("success", "", "done")


async def test_a_diff_arriving_fills_the_diff_tab(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.diffs[TASK] = TreeDiff(base="a" * 40, tree="a" * 40)
    clock = Clock(Clock().at(10))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the task")
        await pilot.press("3")
        files = app.query_one(DiffFileList)
        await until(pilot, lambda: "no changes" in text(app.main.query_one("#diff-message")), "∅")
        project.diffs[TASK] = one_file_diff("src/parser.py", added=3)
        project.emit(TASK, clock.at(9), started("c1", "edit src/parser.py", tool="Edit"))
        await until(pilot, lambda: "src/parser.py" in text(files), "the file")
        assert "[x] M +3 -0  1/1  src/parser.py" in text(files)
        assert "+line 2" in text(app.main.query_one("#diff-text"))


async def test_a_filter_applied_keeps_the_matching_tasks(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.task(OTHER, agent="codex", created_at=Clock().at(1))
    clock = Clock(Clock().at(10))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "bbbbbbbb" in text(tree), "both tasks")
        assert "aaaaaaaa" in text(tree)
        await pilot.press("slash", *"agent:codex", "enter")
        await until(pilot, lambda: "aaaaaaaa" not in text(tree), "the filter")
        assert "bbbbbbbb ☐ codex" in text(tree)
        assert "filter: agent:codex" in static_text(app.query_one(StatusBar))
        await pilot.press("slash", *["backspace"] * 11, "enter")
        await until(pilot, lambda: "aaaaaaaa" in text(tree), "the filter cleared")


def test_the_static_helper_reads_what_is_drawn() -> None:
    assert static_text(Static("plain")) == "plain"


async def test_quitting_while_events_stream_in_ends_cleanly(tmp_path: Path) -> None:
    """Updates and ticks still in flight when the screen goes away are dropped, not fatal."""
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(5))
    app = project.app(clock)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        with project.events(TASK) as writer:
            for n in range(200):
                writer.append(started(f"c{n}", f"step {n}"))
        await pilot.press("q")
    assert app.return_code == 0


async def test_tasks_below_the_first_screen_show_what_their_logs_say(tmp_path: Path) -> None:
    """The first screen reads the logs of the tasks it shows first; the others follow, and
    scrolling down finds each with its own headline."""
    project = Project(tmp_path)
    ids = [f"t_{n:032x}" for n in range(12)]
    for n, task_id in enumerate(ids):
        project.task(task_id, created_at=Clock().at(n))
        project.emit(task_id, Clock().at(n), Message(text=f"said by task {n}"))
    app = project.app(Clock(Clock().at(30)))
    async with app.run_test(size=(150, 10)) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "said by task 0" in text(tree), "the first task")
        await pilot.press(*["down"] * 11)
        await until(pilot, lambda: "said by task 11" in text(tree), "the last task")
        assert "reading its log" not in text(tree)


async def test_a_task_scrolled_back_into_view_shows_its_age_now(tmp_path: Path) -> None:
    """The clock redraws the lines on screen; one that was drawn, scrolled away and comes
    back after the clock moved reads the age of now, not of when it was drawn."""
    project = Project(tmp_path)
    ids = [f"t_{n:08x}" + "0" * 24 for n in range(20)]
    for n, task_id in enumerate(ids):
        project.task(task_id, created_at=Clock().at(n))
    clock = Clock(Clock().at(30))
    app = project.app(clock)
    async with app.run_test(size=(150, 10)) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "00000000" in text(tree), "the first task")
        tree.scroll_end(animate=False)  # as the mouse wheel does: the cursor stays
        await until(pilot, lambda: " 11s " in last_row(tree, "00000013"), "the last task")
        tree.scroll_home(animate=False)
        await until(pilot, lambda: "00000013" not in text(tree), "the top again")
        clock.moment = Clock().at(5 * 60)
        app.main.tick()
        tree.scroll_end(animate=False)
        await until(pilot, lambda: "00000013" in text(tree), "the last task again")
        assert "  4m " in last_row(tree, "00000013")


def last_row(tree: TaskTree, short_id: str) -> str:
    return next((row for row in text(tree).splitlines() if short_id in row), "")


async def test_polling_follows_the_log_too(tmp_path: Path) -> None:
    """``--poll`` (network file systems) goes through watchfiles' polling, not inotify."""
    project = Project(tmp_path)
    project.task()
    clock = Clock(Clock().at(30))
    app = project.app(clock, poll=True)
    async with app.run_test(size=SIZE) as pilot:
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: activity.task_id == TASK and not activity.loading, "the task")
        project.emit(TASK, clock.at(0), started("c1", "ls -la"))
        await until(pilot, lambda: tool_rows(activity), "the call's row")
