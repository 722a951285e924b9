"""The approval cards of the questions pane on their own: what each key and button posts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from caesar_core.store import TaskStatus, TaskStore, ask
from caesar_core.store.approvals import answer_approval
from caesar_core.watch import ProjectMonitor, TaskView
from caesar_tui.clock import countdown, fixed_clock
from caesar_tui.widgets.approvals import DECIDED_SHOWN, ApprovalCard
from caesar_tui.widgets.questions import QuestionsPane
from tests.tui.test_approvals import AP, T0, TASK, make_task
from tests.watch.test_monitor_approvals import hold


def view_of(root: Path) -> TaskView:
    monitor = ProjectMonitor(root)
    try:
        monitor.scan()
        return monitor.view(TASK, T0)
    finally:
        monitor.close()


class CardsApp(App[None]):
    """One questions pane, recording the decisions it posts."""

    def __init__(self, view: TaskView) -> None:
        super().__init__()
        self.first_view = view
        self.decisions: list[tuple[str, str, str]] = []

    def compose(self) -> ComposeResult:
        yield QuestionsPane(clock=fixed_clock(T0 + timedelta(seconds=30)))

    def on_mount(self) -> None:
        self.query_one(QuestionsPane).show(self.first_view)

    def on_approval_card_decided(self, message: ApprovalCard.Decided) -> None:
        assert message.control is message.card
        self.decisions.append((message.task_id, message.approval_id, message.decision))


async def test_a_card_decides_once_until_reopened(tmp_path: Path) -> None:
    hold(make_task(tmp_path))
    app = CardsApp(view_of(tmp_path))
    async with app.run_test() as pilot:
        pane = app.query_one(QuestionsPane)
        assert pane.focus_first_question()
        await pilot.pause()
        assert isinstance(app.focused, ApprovalCard)
        await pilot.press("y", "n")
        await pilot.pause()
        assert app.decisions == [(TASK, AP, "allow")]
        assert app.query_one(ApprovalCard).has_class("-sent")
        pane.reopen_approval(AP)  # writing failed: the app hands the card back
        await pilot.press("n")
        await pilot.pause()
    assert [decision for _, _, decision in app.decisions] == ["allow", "deny"]


async def test_the_buttons_decide_with_the_mouse(tmp_path: Path) -> None:
    hold(make_task(tmp_path))
    app = CardsApp(view_of(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        deny = next(b for b in app.query_one(ApprovalCard).query(Button) if b.name == "deny")
        await pilot.click(deny)
        await pilot.pause()
    assert app.decisions == [(TASK, AP, "deny")]


async def test_only_approvals_and_an_ended_task_shows_no_card(tmp_path: Path) -> None:
    hold(make_task(tmp_path))
    app = CardsApp(view_of(tmp_path))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert not app.query_one(".empty", Static).display
        TaskStore(tmp_path).set(TASK, status=TaskStatus.FAILED)
        app.query_one(QuestionsPane).show(view_of(tmp_path))
        await pilot.pause()
        assert not app.query(ApprovalCard)
        assert not app.query_one(QuestionsPane).focus_first_question()


async def test_switching_tasks_drops_the_cards(tmp_path: Path) -> None:
    hold(make_task(tmp_path))
    other = "t_" + "e" * 32
    make_task(tmp_path, other)
    ask(TaskStore(tmp_path).paths(other), "Proceed?", [], now=T0, question_id="q_go")
    app = CardsApp(view_of(tmp_path))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.query(ApprovalCard)
        monitor = ProjectMonitor(tmp_path)
        monitor.scan()
        app.query_one(QuestionsPane).show(monitor.view(other, T0))
        monitor.close()
        await pilot.pause()
        assert not app.query(ApprovalCard)
        assert app.query("QuestionForm")


def test_countdown_texts(tmp_path: Path) -> None:
    hold(make_task(tmp_path), timeout_s=None)
    [endless] = view_of(tmp_path).approvals
    assert countdown(endless, T0 + timedelta(hours=3)).startswith("no timeout")
    timed = endless.model_copy(update={"timeout_s": 120.0})
    assert countdown(timed, T0) == "times out in 2m 00s"
    slow = endless.model_copy(update={"timeout_s": 7500.0})
    assert countdown(slow, T0) == "times out in 2h 05m"
    assert countdown(timed, T0 + timedelta(seconds=119.6)) == "times out in 1s"
    assert countdown(timed, T0 + timedelta(seconds=120)).startswith("timed out")


async def test_escape_leaves_the_card_and_the_history_is_capped(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    for n in range(25):
        hold(task_dir, f"ap_{n:012d}", asked_at=T0 + timedelta(seconds=n))
        answer_approval(task_dir, f"ap_{n:012d}", "deny", by="cli")
    hold(task_dir, asked_at=T0 + timedelta(minutes=1))
    app = CardsApp(view_of(tmp_path))
    async with app.run_test() as pilot:
        app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        assert isinstance(app.focused, ApprovalCard)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is None
        await pilot.press("y")
        await pilot.pause()
        decided = str(app.query_one(".decided", Static).render())
    assert app.decisions == []
    assert "tool calls (and 5 earlier)" in decided
    assert decided.count("denied") == DECIDED_SHOWN
