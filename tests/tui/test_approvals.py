"""Approvals in ``caesar watch``: held tool calls shown beside the questions, answered with
``y``/``n`` on their card, and gone as soon as anyone (or the timeout) answers.

Real task directories, real files: the approval is written the way the bridge writes it,
and the app's watcher sees every change on disk. The clock is a fake the test moves.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import Static

from caesar_core.protocol import Isolation, Mode
from caesar_core.store import ReportSource, TaskRecord, TaskStatus, TaskStore, VerifiedBy, ask
from caesar_core.store.approvals import answer_approval, answer_file
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.frame import text_frame
from caesar_tui.widgets.approvals import ApprovalCard
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.status_bar import StatusBar
from caesar_tui.widgets.task_tree import TaskTree
from tests.runner.conftest import caesar
from tests.tui.screen import text, until
from tests.tui.test_app import SIZE
from tests.watch.test_monitor_approvals import hold, time_out

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TASK = "t_" + "a" * 32
OTHER = "t_" + "b" * 32
AP = "ap_0123456789ab"


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def make_task(root: Path, task_id: str = TASK, minutes: int = 0) -> Path:
    store = TaskStore(root)
    return store.create(
        TaskRecord(
            id=task_id,
            status=TaskStatus.RUNNING,
            created_at=T0 + timedelta(minutes=minutes),
            agent="claude",
            objective="tidy the parser",
            workspace=str(root),
            isolation=Isolation.WORKTREE,
            mode=Mode.WRITE,
            report_source=ReportSource.CHANNEL,
            changes_verified_by=VerifiedBy.GIT,
        )
    ).root


def answer_of(task_dir: Path, approval_id: str = AP) -> dict[str, object]:
    data: dict[str, object] = json.loads((answer_file(task_dir, approval_id)).read_text())
    return data


def cards(app: CaesarApp) -> dict[str, ApprovalCard]:
    return {card.approval.id: card for card in app.query(ApprovalCard)}


def decided_text(app: CaesarApp) -> str:
    return str(app.query_one(".decided", Static).render())


async def test_y_on_the_card_allows_the_held_call(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    hold(task_dir)
    app = make_app(tmp_path, clock=Clock(T0 + timedelta(seconds=30)))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: cards(app), "the approval card")
        app.query_one(TaskTree).select_task(TASK)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.focused, ApprovalCard), "the card's focus")
        await pilot.press("y")
        decided = answer_file(task_dir, AP)
        await until(pilot, decided.exists, "the answer file")
        assert answer_of(task_dir)["decision"] == "allow"
        assert answer_of(task_dir)["answered_by"] == "watch"
        await until(pilot, lambda: not cards(app), "the card to leave")
        await until(pilot, lambda: "allowed" in decided_text(app), "the decided line")
        assert "by watch" in decided_text(app)
        assert app.focused is app.query_one(TaskTree)  # nothing left to answer
        assert "? 0 needs input" in str(app.query_one(StatusBar).render())


async def test_n_denies_on_a_card_and_is_next_waiting_everywhere_else(tmp_path: Path) -> None:
    held_dir = make_task(tmp_path, TASK)
    asking_dir = make_task(tmp_path, OTHER, minutes=1)
    hold(held_dir)
    ask(TaskStore(tmp_path).paths(OTHER), "Proceed?", ["yes", "no"], now=T0, question_id="q_go")
    app = make_app(tmp_path, clock=Clock(T0))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: len(tree.ids_in_order()) == 2, "both tasks")
        tree.select_task(TASK)
        await pilot.pause()
        await pilot.press("n")  # the tree has the focus: next task waiting (a question)
        await until(pilot, lambda: tree.selected_id == OTHER, "the task with the question")
        await pilot.press("n")  # and round again, to the one with the approval
        await until(pilot, lambda: tree.selected_id == TASK, "the task with the approval")
        assert not (answer_file(held_dir, AP)).exists()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.focused, ApprovalCard), "the card's focus")
        await pilot.press("n")  # on the card: deny
        await until(pilot, (answer_file(held_dir, AP)).exists, "the answer file")
        assert answer_of(held_dir)["decision"] == "deny"
        assert answer_of(held_dir)["answered_by"] == "watch"
        await until(pilot, lambda: "denied" in decided_text(app), "the decided line")
    assert not (asking_dir / "answers").exists() or not any((asking_dir / "answers").iterdir())


async def test_answered_elsewhere_or_timed_out_the_card_leaves(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    hold(task_dir, "ap_000000000001")
    hold(task_dir, "ap_000000000002", asked_at=T0 + timedelta(seconds=5))
    app = make_app(tmp_path, clock=Clock(T0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(cards(app)) == 2, "two cards")
        await pilot.press("a")
        await until(
            pilot,
            lambda: app.focused is cards(app).get("ap_000000000001"),
            "the first card's focus",
        )
        answer_approval(task_dir, "ap_000000000001", "allow", by="cli")  # `caesar approve`
        await until(pilot, lambda: list(cards(app)) == ["ap_000000000002"], "the first to leave")
        # The focus moves on to what is still waiting.
        await until(
            pilot, lambda: app.focused is cards(app).get("ap_000000000002"), "the next card"
        )
        time_out(task_dir, "ap_000000000002")  # the bridge gave up waiting
        await until(pilot, lambda: not cards(app), "the second to leave")
        await until(pilot, lambda: app.focused is app.query_one(TaskTree), "the tree's focus")
        text = decided_text(app)
        assert "allowed" in text and "by cli" in text
        assert "denied" in text and "by timeout" in text
        assert not (answer_file(task_dir, "ap_000000000002")).read_text().count("watch")


async def test_a_call_held_while_watching_appears_marked_and_counts_down(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    clock = Clock(T0 + timedelta(seconds=30))
    app = make_app(tmp_path, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.query_one(TaskTree).selected_id == TASK, "the task")
        await pilot.press("2")
        hold(task_dir)
        await until(pilot, lambda: cards(app), "the card")
        card = cards(app)[AP]
        body = " ".join(str(s.render()) for s in card.query(Static))
        for part in ("approve Bash?", AP, "git push origin main", "pushing needs a person"):
            assert part in body, part
        clock_line = card.query_one(".clock", Static)
        assert str(clock_line.render()) == "times out in 1m 30s"
        clock.moment = T0 + timedelta(seconds=115)
        app.main.tick()
        assert str(clock_line.render()) == "times out in 5s"
        assert clock_line.has_class("-late")
        clock.moment = T0 + timedelta(seconds=121)
        app.main.tick()
        assert str(clock_line.render()).startswith("timed out")
        # The tree and the header mark it like a waiting question.
        await pilot.pause()
        row = text(app.query_one(TaskTree)).splitlines()[0]
        assert row.startswith("? aaaaaaaa")
        assert "approve Bash: git push origin" in row
        assert "? 1 needs input" in str(app.query_one(StatusBar).render())


async def test_the_questions_pane_shows_approvals_before_questions(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    ask(TaskStore(tmp_path).paths(TASK), "Proceed?", ["yes", "no"], now=T0, question_id="q_go")
    hold(task_dir)
    app = make_app(tmp_path, clock=Clock(T0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: cards(app) and app.query("QuestionForm"), "card and form")
        pane = app.query_one(QuestionsPane)
        children = list(pane.children)
        assert children.index(pane.approvals) < children.index(pane.query_one("#pending"))
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.focused, ApprovalCard), "the card first")
        await pilot.press("y")
        # The approval answered, the focus goes on to the question's answer box.
        await until(pilot, lambda: not cards(app), "the card to leave")
        await until(
            pilot,
            lambda: app.focused is not None and app.focused.id != "tasks",
            "the question's focus",
        )
        await pilot.press("1")
        answers = TaskStore(tmp_path).paths(TASK).answers
        await until(pilot, (answers / "q_go.json").exists, "the question's answer")


def test_watch_once_lists_pending_approvals(tmp_path: Path) -> None:
    make_task(tmp_path)
    hold(make_task(tmp_path, OTHER, minutes=1))
    frame = text_frame(tmp_path, T0 + timedelta(seconds=30)).splitlines()
    assert frame[0].endswith("1 need input")
    assert any(line.startswith(f"? {OTHER}") and "approve Bash: git push" in line for line in frame)
    assert (
        f"approval {OTHER} {AP}: Bash git push origin main (pushing needs a person), "
        "times out in 1m 30s"
    ) in frame


def test_ps_counts_approvals(repo: Path) -> None:
    make_task(repo)
    hold(make_task(repo, OTHER, minutes=1))
    listed = caesar(repo, "ps", "--json")
    assert listed.returncode == 0, listed.stderr
    by_id = {row["id"]: row for row in json.loads(listed.stdout)}
    assert [a["id"] for a in by_id[OTHER]["pending_approvals"]] == [AP]
    assert by_id[OTHER]["pending_approvals"][0]["tool"] == "Bash"
    assert by_id[TASK]["pending_approvals"] == []
    table = caesar(repo, "ps").stdout.splitlines()
    assert any(OTHER in line and "running ?" in line for line in table)
    assert any(TASK in line and "running ?" not in line for line in table)
