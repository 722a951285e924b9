"""The detail panes and modals of ``caesar watch``, driven through Textual's pilot.

Task views come from real task directories (a store, a mailbox, the monitor), so the panes
see exactly what the app hands them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from caesar_core.protocol import Isolation, Mode
from caesar_core.protocol.report import (
    Change,
    ChangeAction,
    Finding,
    Report,
    ReportStatus,
    Severity,
    Usage,
)
from caesar_core.store import (
    ReportSource,
    TaskRecord,
    TaskStatus,
    TaskStore,
    VerifiedBy,
    answer,
    ask,
)
from caesar_core.watch import ProjectMonitor, TaskView
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.modals.filter import FilterModal
from caesar_tui.modals.help import HelpModal
from caesar_tui.widgets.log_view import LogView, clean
from caesar_tui.widgets.questions import AnswerInput, QuestionForm, QuestionsPane
from caesar_tui.widgets.report_view import ReportView, render_report

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TASK = "t_" + "a" * 32
OTHER = "t_" + "b" * 32


class Project:
    """A real project directory with tasks and mailboxes, read back through the monitor."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = TaskStore(root)

    def task(self, task_id: str = TASK, status: TaskStatus = TaskStatus.RUNNING) -> None:
        self.store.create(
            TaskRecord(
                id=task_id,
                status=status,
                created_at=T0,
                agent="demo",
                objective="tidy the parser",
                workspace=str(self.root),
                isolation=Isolation.WORKTREE,
                mode=Mode.WRITE,
                report_source=ReportSource.CHANNEL,
                changes_verified_by=VerifiedBy.GIT,
            )
        )

    def ask(self, qid: str, text: str, options: list[str], minutes: int = 0) -> None:
        paths = self.store.paths(TASK)
        ask(paths, text, options, now=T0 + timedelta(minutes=minutes), question_id=qid)

    def answer(self, qid: str, text: str) -> None:
        answer(self.store.paths(TASK), qid, text, by="cli", now=T0 + timedelta(hours=1))

    def view(self, task_id: str = TASK) -> TaskView:
        monitor = ProjectMonitor(self.root)
        try:
            monitor.scan()
            return monitor.view(task_id, now=T0)
        finally:
            monitor.close()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.task()
    return project


class PaneApp(App[None]):
    """One questions pane, recording every message it posts."""

    def __init__(self, view: TaskView) -> None:
        super().__init__()
        self.first_view = view
        self.answers: list[tuple[str, str, str]] = []
        self.dismissed = 0

    def compose(self) -> ComposeResult:
        yield QuestionsPane()

    def on_mount(self) -> None:
        self.query_one(QuestionsPane).show(self.first_view)

    def on_question_form_answered(self, message: QuestionForm.Answered) -> None:
        assert message.control is message.form
        self.answers.append((message.task_id, message.question_id, message.answer))

    def on_questions_pane_dismissed(self, message: QuestionsPane.Dismissed) -> None:
        self.dismissed += 1


def forms(app: App[None]) -> dict[str, QuestionForm]:
    return {form.question.id: form for form in app.query(QuestionForm)}


def answer_box(app: App[None], qid: str) -> AnswerInput:
    return forms(app)[qid].answer_input


# -- questions ---------------------------------------------------------------------------


async def test_a_digit_picks_that_option_and_answers_at_once(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        assert app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        assert app.focused is answer_box(app, "q1")
        await pilot.press("2")
        await pilot.pause()
    assert app.answers == [(TASK, "q1", "no")]


async def test_typed_text_and_enter_send_the_text_digits_included(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        # Once text is typed, digits are text: "1" must not pick option 1 here.
        await pilot.press(*"wait 1 day", "enter")
        await pilot.pause()
    assert app.answers == [(TASK, "q1", "wait 1 day")]


async def test_a_digit_beyond_the_options_is_typed(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        assert answer_box(app, "q1").value == "3"
    assert app.answers == []


async def test_a_question_without_options_takes_digits_as_text(project: Project) -> None:
    project.ask("q1", "How many retries?", [])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
    assert app.answers == [(TASK, "q1", "1")]


async def test_option_buttons_and_send_answer_with_the_mouse(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    project.ask("q2", "Which name?", [], minutes=1)
    app = PaneApp(project.view())
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        option = next(b for b in forms(app)["q1"].query(Button) if b.name == "1")
        await pilot.click(option)
        answer_box(app, "q2").value = "parse_all"
        await pilot.click(forms(app)["q2"].query_one(".send", Button))
        await pilot.pause()
    assert app.answers == [
        (TASK, "q1", "yes"),
        (TASK, "q2", "parse_all"),
    ]


async def test_a_form_answers_once_and_never_empty(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        pane = app.query_one(QuestionsPane)
        pane.focus_first_question()
        await pilot.pause()
        await pilot.press("enter", "1", "2")
        await pilot.pause()
        assert app.answers == [(TASK, "q1", "yes")]
        assert forms(app)["q1"].has_class("-sent")
        # Writing failed: the app hands the form back.
        pane.reopen("q1")
        await pilot.press("2")
        await pilot.pause()
    assert [answer for _, _, answer in app.answers] == ["yes", "no"]


async def test_a_question_answered_elsewhere_loses_its_form_others_keep_their_text(
    project: Project,
) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    project.ask("q2", "Which name?", [], minutes=1)
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        await pilot.pause()
        kept = forms(app)["q2"]
        kept.answer_input.focus()
        await pilot.press(*"parse_")
        await pilot.pause()
        project.answer("q1", "yes")  # the CLI answers q1
        app.query_one(QuestionsPane).show(project.view())
        await pilot.pause()
        assert list(forms(app)) == ["q2"]
        assert forms(app)["q2"] is kept
        assert kept.answer_input.value == "parse_"
        assert app.focused is kept.answer_input
        answered = app.query_one(".answered", Static)
        assert answered.display
        assert "Keep the old behavior?" in str(answered.render())
        assert "yes" in str(answered.render())


async def test_new_questions_join_in_asked_order(project: Project) -> None:
    project.ask("q1", "First?", [])
    project.ask("q3", "Third?", [], minutes=3)
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        await pilot.pause()
        project.ask("q2", "Second?", [], minutes=2)
        app.query_one(QuestionsPane).show(project.view())
        await pilot.pause()
        order = [form.question.id for form in app.query(QuestionForm)]
    assert order == ["q1", "q2", "q3"]


async def test_answering_the_focused_question_moves_to_the_next(project: Project) -> None:
    project.ask("q1", "First?", ["yes", "no"])
    project.ask("q2", "Second?", ["yes", "no"], minutes=1)
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        pane = app.query_one(QuestionsPane)
        pane.focus_first_question()
        await pilot.pause()
        await pilot.press("1")
        project.answer("q1", "yes")
        pane.show(project.view())
        await pilot.pause()
        assert app.focused is answer_box(app, "q2")
        await pilot.press("2")
        project.answer("q2", "no")
        pane.show(project.view())
        await pilot.pause()
        # Nothing left to answer: the app is told, and takes the focus back.
        assert app.focused is None
        assert app.dismissed == 1
    assert [(qid, answer) for _, qid, answer in app.answers] == [("q1", "yes"), ("q2", "no")]


async def test_escape_leaves_the_form(project: Project) -> None:
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        app.query_one(QuestionsPane).focus_first_question()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is None
        assert app.dismissed == 1
        await pilot.press("1")
        await pilot.pause()
    assert app.answers == []


async def test_empty_state_and_another_task(project: Project) -> None:
    project.task(OTHER)
    app = PaneApp(project.view(OTHER))
    async with app.run_test() as pilot:
        await pilot.pause()
        empty = app.query_one(".empty", Static)
        assert empty.display
        assert str(empty.render()) == "no questions"
        assert app.query_one(QuestionsPane).focus_first_question() is False
        project.ask("q1", "Keep the old behavior?", ["yes", "no"])
        app.query_one(QuestionsPane).show(project.view())
        await pilot.pause()
        assert not empty.display
        assert list(forms(app)) == ["q1"]
        assert forms(app)["q1"].task_id == TASK


async def test_an_ended_task_gets_no_form(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task(status=TaskStatus.FAILED)
    project.ask("q1", "Keep the old behavior?", ["yes", "no"])
    app = PaneApp(project.view())
    async with app.run_test() as pilot:
        await pilot.pause()
        assert forms(app) == {}
        ended = app.query_one(".ended", Static)
        assert ended.display
        assert "Keep the old behavior?" in str(ended.render())


# -- report ------------------------------------------------------------------------------


def full_report() -> Report:
    return Report(
        protocol="caesar.report/v1",
        status=ReportStatus.PARTIAL,
        summary="Parser tidied; one case left",
        details="Split parse() in two.",
        changes=[
            Change(path="src/parse.py", action=ChangeAction.MODIFIED, summary="split"),
            Change(path="src/lex.py", action=ChangeAction.CREATED),
        ],
        findings=[
            Finding(severity=Severity.INFO, title="style nit"),
            Finding(severity=Severity.CRITICAL, title="eval on input", file="src/a.py", line=3),
            Finding(severity=Severity.MEDIUM, title="slow loop", detail="O(n^2) on tokens"),
        ],
        next_steps=["handle nested quotes"],
        usage=Usage(input_tokens=12345, output_tokens=678, cost_usd=0.0123, duration_ms=65000),
    )


def test_report_lays_out_every_part(project: Project) -> None:
    text = render_report(project.view(), full_report()).plain
    for part in (
        "task running",
        "report partial",
        "Parser tidied; one case left",
        "Split parse() in two.",
        "changes (2)  verified by git",
        "M src/parse.py  split",
        "A src/lex.py",
        "next steps",
        "• handle nested quotes",
        "12,345 in / 678 out tokens",
        "$0.01",
        "1m 05s",
        "source  channel",
    ):
        assert part in text, part
    order = [text.index(title) for title in ("eval on input", "slow loop", "style nit")]
    assert order == sorted(order), "findings go most severe first"
    assert "src/a.py:3" in text
    assert "O(n^2) on tokens" in text


def test_report_says_when_changes_are_only_declared(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    project.store.set(TASK, changes_verified_by=VerifiedBy.DECLARATION)
    assert "as declared" in render_report(project.view(), full_report()).plain


def test_no_report_yet(project: Project) -> None:
    text = render_report(project.view(), None).plain
    assert text == "task running\nno report yet"


async def test_report_view_shows_and_clears(project: Project) -> None:
    class ReportApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ReportView()

    app = ReportApp()
    async with app.run_test() as pilot:
        view = app.query_one(ReportView)
        body = view.query_one(Static)
        assert "no report yet" in str(body.render())
        view.show(project.view(), full_report())
        await pilot.pause()
        assert "Parser tidied" in str(body.render())
        view.clear()
        assert "no report yet" in str(body.render())


# -- log ---------------------------------------------------------------------------------


def test_clean_removes_escapes_and_controls() -> None:
    assert clean("\x1b[31mred\x1b[0m text\n") == "red text"
    assert clean("\x1b]0;title\x07after") == "after"
    assert clean("10%\r50%\r100%") == "100%"
    assert clean("bell\x07 nul\x00 tab\tkept") == "bell nul tab\tkept"


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LogView(max_lines=100)


async def test_log_appends_resets_and_stays_bounded() -> None:
    app = LogApp()
    async with app.run_test() as pilot:
        log = app.query_one(LogView)
        log.show(TASK, ["one\n", "two\n"], reset=True)
        log.show(TASK, ["three"], reset=False)
        assert log.lines == ["one", "two", "three"]
        log.show(TASK, ["fresh"], reset=True)
        assert log.lines == ["fresh"]
        log.show(OTHER, ["other task"], reset=False)
        assert log.lines == ["other task"]
        log.show(OTHER, [f"line {n}" for n in range(250)], reset=False)
        await pilot.pause()
        assert log.line_count == 100
        assert log.lines[-1] == "line 249"


async def test_log_follows_the_end_unless_scrolled_up() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 10)) as pilot:
        log = app.query_one(LogView)
        log.show(TASK, [f"line {n}" for n in range(40)], reset=True)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0
        log.scroll_to(y=0, animate=False, immediate=True)
        log.show(TASK, ["more"], reset=False)
        await pilot.pause()
        assert log.scroll_y == 0
        log.scroll_end(animate=False, immediate=True)
        log.show(TASK, ["and more"], reset=False)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y


# -- modals ------------------------------------------------------------------------------


class ModalApp(App[None]):
    """Pushes one modal on mount and keeps what it was dismissed with."""

    def __init__(self, make: Callable[[], ModalScreen[Any]]) -> None:
        super().__init__()
        self.make = make
        self.results: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.make(), self.results.append)


@pytest.mark.parametrize(
    ("keys", "expected"),
    [(["y"], True), (["enter"], True), (["n"], False), (["escape"], False)],
)
async def test_confirm_keys(keys: list[str], expected: bool) -> None:
    app = ModalApp(lambda: ConfirmModal("Apply?", ["a.py"], conflicts=["b.py"]))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
    assert app.results == [expected]


@pytest.mark.parametrize(("button", "expected"), [("#confirm", True), ("#cancel", False)])
async def test_confirm_buttons(button: str, expected: bool) -> None:
    app = ModalApp(lambda: ConfirmModal("Apply?", ["a.py"]))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.click(button)
        await pilot.pause()
    assert app.results == [expected]


@pytest.mark.parametrize("key", ["escape", "q", "question_mark"])
async def test_help_closes(key: str) -> None:
    app = ModalApp(lambda: HelpModal([("keys", [("q", "quit"), ("a", "answer")])]))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, HelpModal)
    assert app.results == [None]


async def test_filter_returns_the_edited_text() -> None:
    app = ModalApp(lambda: FilterModal("status:running"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.screen.query_one(Input).value == "status:running"
        await pilot.press(*" codex", "enter")
        await pilot.pause()
    assert app.results == ["status:running codex"]


async def test_filter_escape_keeps_the_current_filter() -> None:
    app = ModalApp(lambda: FilterModal("status:running"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("x", "escape")
        await pilot.pause()
    assert app.results == [None]


def test_a_cheap_task_does_not_look_free(project: Project) -> None:
    report = full_report().model_copy(update={"usage": Usage(cost_usd=0.0042)})
    assert "usage  $0.0042" in render_report(project.view(), report).plain
