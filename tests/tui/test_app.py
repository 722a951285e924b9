"""The app driven by keys against real tasks: files change as a person would expect."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from caesar_core.events import EventWriter
from caesar_core.protocol import ToolStatus, ToolUse
from caesar_core.store import TaskStatus, TaskStore, answer, pending_questions
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.task_tree import TaskTree
from tests.runner.conftest import CAESAR, caesar_env, context, run_json, wait_for

SIZE = (140, 40)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    """Let the app run until ``condition`` holds (file events arrive asynchronously)."""
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def start_run(root: Path, script: str, **extra: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CAESAR, "run", script, "--agent", "demo", "--json", "--context", context(script, **extra)],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=caesar_env(),
    )


def pending_in(root: Path) -> tuple[str, str]:
    def found() -> tuple[str, str] | None:
        for record in TaskStore(root).list().records:
            questions = pending_questions(TaskStore(root).paths(record.id))
            if questions:
                return record.id, questions[0].id
        return None

    pair: tuple[str, str] = wait_for(found, what="a pending question")
    return pair


async def test_answering_by_keyboard_writes_the_answer_and_closes_the_form(repo: Path) -> None:
    run = start_run(repo, "ask")
    task_id, question_id = pending_in(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: task_id in app.views and app.views[task_id].pending, "the question"
        )
        app.query_one(TaskTree).select_task(task_id)
        await pilot.press("a")
        await pilot.press("1")
        answer_file = TaskStore(repo).paths(task_id).answers / f"{question_id}.json"
        await until(pilot, answer_file.exists, "the answer file")
        assert json.loads(answer_file.read_text())["answer"] == "yes"
        pane = app.query_one(QuestionsPane)
        await until(pilot, lambda: not app.views[task_id].pending, "the question to leave")
        assert question_id not in {q.id for q in app.views[task_id].pending}
        assert not pane.query("QuestionForm")
    stdout, _ = run.communicate(timeout=60)
    assert "yes" in json.loads(stdout)["report"]["summary"]


async def test_a_question_answered_elsewhere_leaves_the_form(repo: Path) -> None:
    run = start_run(repo, "ask")
    task_id, question_id = pending_in(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: task_id in app.views and app.views[task_id].pending, "the question"
        )
        app.query_one(TaskTree).select_task(task_id)
        await pilot.press("2")
        await until(pilot, lambda: app.query("QuestionForm"), "the form")
        answer(TaskStore(repo).paths(task_id), question_id, "no", by="cli")
        await until(pilot, lambda: not app.query("QuestionForm"), "the form to close")
    run.communicate(timeout=60)


async def test_apply_brings_the_files_into_the_main_tree(repo: Path) -> None:
    out = run_json(repo, "note", "--agent", "demo", "--context", context("work"))
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: out["task_id"] in app.views, "the task")
        app.query_one(TaskTree).select_task(out["task_id"])
        await pilot.press("A")
        await pilot.press("y")
        await until(pilot, (repo / "DEMO_NOTES.md").exists, "the applied file")
    assert "note" in (repo / "README.md").read_text()
    assert TaskStore(repo).get(out["task_id"]).applied_digest


async def test_cancel_stops_a_hanging_task(repo: Path) -> None:
    run = start_run(repo, "hang")
    task_id = wait_for(
        lambda: (
            TaskStore(repo).list().records
            and TaskStore(repo).list().records[0].pid
            and TaskStore(repo).list().records[0].id
        ),
        what="the running task",
    )
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: task_id in app.views, "the task")
        app.query_one(TaskTree).select_task(task_id)
        await pilot.press("x")
        await pilot.press("y")
        await until(
            pilot,
            lambda: app.views[task_id].record.status is TaskStatus.CANCELLED,
            "the cancellation on screen",
        )
    run.communicate(timeout=60)
    assert run.returncode == 1


async def test_two_thousand_appended_events_stay_paired_on_screen(repo: Path) -> None:
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    paths = TaskStore(repo).paths(task_id)
    app: CaesarApp = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: task_id in app.views, "the task")
        app.query_one(TaskTree).select_task(task_id)
        with EventWriter(paths.events, task_id) as writer:
            for n in range(1000):
                writer.append(
                    ToolUse(
                        tool="bash",
                        id=f"c{n}",
                        input_summary=f"step {n}",
                        status=ToolStatus.STARTED,
                    )
                )
                writer.append(ToolUse(tool="", id=f"c{n}", status=ToolStatus.SUCCEEDED))
        view = app.query_one(ActivityView)
        await until(
            pilot,
            lambda: view.row_count >= 1000,
            f"rows (have {view.row_count}, loading={view.loading}, task={view.task_id})",
        )
        await until(
            pilot,
            lambda: all(
                r.status == "succeeded" for r in view._builder.rows.values() if r.kind == "tool"
            ),
            "every call closed",
        )
        tool_rows = [r for r in view._builder.rows.values() if r.kind == "tool"]
        assert len([r for r in tool_rows if r.text.startswith("step ")]) == 1000


async def test_updates_behind_an_open_modal_keep_the_app_alive(repo: Path) -> None:
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    paths = TaskStore(repo).paths(task_id)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: task_id in app.views, "the task")
        await pilot.press("question_mark")  # the help modal is now the active screen
        before = app.views[task_id].activity.events
        with EventWriter(paths.events, task_id) as writer:
            writer.append(
                ToolUse(tool="bash", id="late", input_summary="ls", status=ToolStatus.STARTED)
            )
        await until(pilot, lambda: app.views[task_id].activity.events > before, "the update")
        app.tick()  # the clock tick, too, reaches the tree behind the modal
        assert app.is_running


def test_watch_once_prints_one_text_frame(repo: Path) -> None:
    from tests.runner.conftest import caesar

    done = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))["task_id"]
    run = start_run(repo, "ask")
    task_id, question_id = pending_in(repo)
    frame = caesar(repo, "watch", "--once")
    assert frame.returncode == 0, frame.stderr
    lines = frame.stdout.splitlines()
    assert lines[0].startswith("caesar ") and "need input" in lines[0]
    assert any(done in line and line.startswith("✓") for line in lines)
    assert f"question {task_id} {question_id}: Should the old behavior be kept? [yes / no]" in lines
    answer(TaskStore(repo).paths(task_id), question_id, "no")
    run.communicate(timeout=60)
