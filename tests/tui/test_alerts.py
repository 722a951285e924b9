"""Desktop notifications: the escape sequences, their way through tmux, and when the app
sends one (news of a task not on screen, never what was there at start-up)."""

from __future__ import annotations

from pathlib import Path

from caesar_core.store import ask
from caesar_tui.notify import notification, safe
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import OTHER, SIZE, TASK, Clock, Project, text, toasts, until
from tests.watch.test_monitor_approvals import hold

QUESTION = "\x1b]9;caesar: Question: bbbbbbbb asks: Proceed?\x07"


def test_osc9_by_default_and_osc777_for_vte_foot_and_urxvt() -> None:
    assert notification("caesar: Question", "go?", {}) == "\x1b]9;caesar: Question: go?\x07"
    osc777 = "\x1b]777;notify;caesar: Question;go?\x07"
    assert notification("caesar: Question", "go?", {"VTE_VERSION": "7600"}) == osc777
    assert notification("caesar: Question", "go?", {"TERM": "foot"}) == osc777
    assert notification("caesar: Question", "go?", {"TERM": "rxvt-unicode-256color"}) == osc777
    # OSC 777 separates title and body with ";": a title's own becomes a comma.
    assert notification("a;b", "c;d", {"VTE_VERSION": "1"}) == "\x1b]777;notify;a,b;c;d\x07"


def test_inside_tmux_the_sequence_is_passed_through() -> None:
    wrapped = notification("caesar", "go?", {"TMUX": "/tmp/tmux-0/default,1,0"})
    assert wrapped == "\x1bPtmux;\x1b\x1b]9;caesar: go?\x07\x1b\\"


def test_what_an_agent_wrote_cannot_drive_the_terminal() -> None:
    hostile = "done\x1b]52;c;ZXZpbA==\x07\n\x1b[2J\x9b31m" + "x" * 500
    sequence = notification("caesar: Task ended", hostile, {})
    body = sequence[len("\x1b]9;") : -1]
    assert "\x1b" not in body and "\x07" not in body and "\x9b" not in body
    assert "\n" not in body
    assert len(body) < 260
    assert safe("a\tb\r\nc") == "a b c"


async def test_news_of_a_task_not_on_screen_is_sent_to_the_desktop(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.task(OTHER, created_at=Clock().at(1))
    writes: list[str] = []
    app = project.app(Clock(Clock().at(10)), terminal=writes.append, environ={})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the first task on screen")
        ask(project.store.paths(OTHER), "Proceed?", ["yes", "no"], question_id="q1")
        await until(pilot, lambda: writes, "the desktop notification")
        assert writes == [QUESTION]
        assert any("bbbbbbbb asks: Proceed?" in toast for toast in toasts(app))
        # The task on screen: a toast, no desktop notification.
        ask(project.store.paths(TASK), "And this one?", [], question_id="q2")
        await until(pilot, lambda: any("aaaaaaaa asks" in t for t in toasts(app)), "the toast")
        hold(project.store.paths(OTHER).root)
        await until(pilot, lambda: len(writes) == 2, "the approval's notification")
        assert writes[1].startswith("\x1b]9;caesar: Approval (a, then y/n): bbbbbbbb approve Bash")


async def test_what_was_there_at_start_up_is_not_news(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.task(OTHER, created_at=Clock().at(1))
    ask(project.store.paths(OTHER), "Proceed?", [], question_id="q0")
    hold(project.store.paths(OTHER).root)
    writes: list[str] = []
    app = project.app(Clock(Clock().at(10)), terminal=writes.append, environ={})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "? bbbbbbbb" in text(tree), "the task waiting")
        ask(project.store.paths(OTHER), "And now?", [], question_id="q1")
        await until(pilot, lambda: writes, "the new question's notification")
        assert writes == ["\x1b]9;caesar: Question: bbbbbbbb asks: And now?\x07"]


async def test_no_notify_keeps_the_desktop_quiet(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.task(OTHER, created_at=Clock().at(1))
    writes: list[str] = []
    app = project.app(Clock(Clock().at(10)), terminal=writes.append, environ={}, notify=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: tree.selected_id == TASK, "the first task on screen")
        ask(project.store.paths(OTHER), "Proceed?", [], question_id="q1")
        await until(pilot, lambda: any("bbbbbbbb asks" in t for t in toasts(app)), "the toast")
    assert writes == []
