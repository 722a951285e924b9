"""Keys by action id: ``[watch.keys]`` remaps them, and the footer, the tabs and the help
(generated from the bindings) show the keys in force."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Footer, Static, TabbedContent

from caesar_core.config import WATCH_KEYS
from caesar_core.store import ask
from caesar_tui.app import CaesarApp
from caesar_tui.modals.comments import CommentsModal
from caesar_tui.modals.help import HelpModal, binding_rows
from caesar_tui.screens.main import MainScreen
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.approvals import ApprovalCard
from caesar_tui.widgets.diff_files import DiffFileList
from caesar_tui.widgets.diff_text import DiffText
from caesar_tui.widgets.diff_view import DiffView
from caesar_tui.widgets.questions import QuestionForm, QuestionsPane
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import SIZE, TASK, Clock, Project, static_text, text, until

BOUND: tuple[type[DOMNode], ...] = (
    CaesarApp,
    MainScreen,
    ActivityView,
    ApprovalCard,
    QuestionForm,
    QuestionsPane,
    DiffFileList,
    DiffView,
    DiffText,
    TaskTree,
    CommentsModal,
)


def bindings() -> list[Binding]:
    return list(Binding.make_bindings(b for kind in BOUND for b in vars(kind)["BINDINGS"]))


def test_every_action_of_the_config_is_bound_and_every_bound_id_is_an_action() -> None:
    ids = {binding.id for binding in bindings() if binding.id}
    assert ids == set(WATCH_KEYS)


def test_every_binding_with_a_description_has_a_row_in_the_help() -> None:
    rows = binding_rows([b for kind in BOUND for b in vars(kind)["BINDINGS"]], {}, str)
    described = {binding.tooltip or binding.description for binding in bindings()}
    assert {what for _, what in rows} == described - {""}


def test_rows_share_keys_that_do_one_thing_and_show_remaps() -> None:
    rows = binding_rows(vars(QuestionForm)["BINDINGS"] + vars(MainScreen)["BINDINGS"], {}, _key)
    assert rows[0][0] == "1-9"
    assert ("j down", "move to the next task") in rows
    remapped = binding_rows(vars(MainScreen)["BINDINGS"], {"down": "J,ctrl+n"}, _key)
    assert ("J ctrl+n", "move to the next task") in remapped


def help_text(app: App[Any]) -> str:
    """The help as ``keys | what`` lines under headings, scrolled into view or not."""
    shown: list[str] = []
    for cell in app.screen.query("#help-keys Static").results(Static):
        if cell.has_class("what"):
            shown[-1] += " | " + static_text(cell)
        else:
            shown.append(static_text(cell))
    return "\n".join(shown)


def _key(binding: Binding) -> str:
    return binding.key


async def test_a_remapped_key_acts_and_is_shown_in_the_footer_tabs_and_help(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path)
    project.task()
    ask(project.store.paths(TASK), "Proceed?", ["yes", "no"], question_id="q1")
    app = project.app(Clock(Clock().at(5)), keys={"answer": "ctrl+a", "diff": "f3"})
    async with app.run_test(size=SIZE) as pilot:
        footer = app.query_one(Footer)
        await until(pilot, lambda: "^a Answer" in text(footer), "the remapped key in the footer")
        assert " a Answer" not in text(footer)
        tabs = app.query_one(TabbedContent)
        assert "f3 Diff" in text(tabs) and "1 Activity" in text(tabs)
        await pilot.press("a")  # no longer answers
        await pilot.pause()
        assert tabs.active == "activity"
        await pilot.press("ctrl+a")
        await until(pilot, lambda: tabs.active == "questions", "the Questions tab")
        await pilot.press("escape", "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        shown = help_text(app)
        assert "^a | answer: focus the first held tool call" in shown
        for sentence in ("apply the task's diff", "allow the held tool call", "the Diff tab"):
            assert sentence in shown, sentence


async def test_the_help_lists_every_section(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task()
    app = project.app(Clock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpModal), "the help")
        shown = help_text(app)
        for heading in ("everywhere", "the Activity tab", "a held tool call", "a question"):
            assert heading in shown, heading
        assert "1-9" in shown and "Copy selected text" in shown
