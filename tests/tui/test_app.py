"""The app driven by keys against real tasks: files change as a person would expect."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from caesar_core.events import EventWriter
from caesar_core.protocol import ToolStatus, ToolUse
from caesar_core.store import TaskStore, answer, pending_questions
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.modals.help import HelpModal
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.task_tree import TaskTree
from tests.runner.conftest import CAESAR, caesar_env, context, run_json, wait_for
from tests.tui.screen import cells, lines, text, toasts, until

SIZE = (140, 40)


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
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: f"? {task_id[2:10]}" in text(tree), "the question")
        tree.select_task(task_id)
        await pilot.press("a")
        pane = app.query_one(QuestionsPane)
        await until(pilot, lambda: "1 yes" in text(pane), "the form")
        await pilot.press("1")
        answer_file = TaskStore(repo).paths(task_id).answers / f"{question_id}.json"
        await until(pilot, answer_file.exists, "the answer file")
        assert json.loads(answer_file.read_text())["answer"] == "yes"
        await until(pilot, lambda: "→ yes" in text(pane), "the answer on screen")
        assert "1 yes" not in text(pane)
        assert f"? {task_id[2:10]}" not in text(tree)
    stdout, _ = run.communicate(timeout=60)
    assert "yes" in json.loads(stdout)["report"]["summary"]


async def test_a_question_answered_elsewhere_leaves_the_form(repo: Path) -> None:
    run = start_run(repo, "ask")
    task_id, question_id = pending_in(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: f"? {task_id[2:10]}" in text(tree), "the question")
        tree.select_task(task_id)
        await pilot.press("2")
        pane = app.query_one(QuestionsPane)
        await until(pilot, lambda: "1 yes" in text(pane), "the form")
        answer(TaskStore(repo).paths(task_id), question_id, "no", by="cli")
        await until(pilot, lambda: "1 yes" not in text(pane), "the form to close")
        assert "→ no  by cli" in text(pane)
    run.communicate(timeout=60)


async def test_apply_brings_the_files_into_the_main_tree(repo: Path) -> None:
    out = run_json(repo, "note", "--agent", "demo", "--context", context("work"))
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: out["task_id"][2:10] in text(tree), "the task")
        tree.select_task(out["task_id"])
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
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: task_id[2:10] in text(tree), "the task")
        tree.select_task(task_id)
        await pilot.press("x")
        await pilot.press("y")
        await until(pilot, lambda: f"⊘ {task_id[2:10]}" in text(tree), "the cancellation")
    run.communicate(timeout=60)
    assert run.returncode == 1


async def test_two_thousand_appended_events_stay_paired_on_screen(repo: Path) -> None:
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    paths = TaskStore(repo).paths(task_id)
    app: CaesarApp = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: task_id[2:10] in text(tree), "the task")
        tree.select_task(task_id)
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
        await until(pilot, lambda: view.row_count >= 1000, f"rows (have {view.row_count})")

        def calls() -> list[tuple[str, ...]]:
            return [row for row in cells(view) if row[4].startswith("step ")]

        await until(pilot, lambda: all(row[1] == "✓" for row in calls()), "every call closed")
        shown = calls()
        assert len(shown) == 1000
        assert [row[4] for row in shown] == [f"step {n}" for n in range(1000)]
        assert all(row[2] == "bash" and row[3].endswith("s") for row in shown)


async def test_updates_behind_an_open_modal_keep_the_app_alive(repo: Path) -> None:
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    paths = TaskStore(repo).paths(task_id)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: task_id[2:10] in text(tree), "the task")
        activity = app.query_one(ActivityView)
        await pilot.press("question_mark")  # the help modal is now the active screen
        assert isinstance(app.screen, HelpModal)
        with EventWriter(paths.events, task_id) as writer:
            writer.append(
                ToolUse(tool="bash", id="late", input_summary="ls -la", status=ToolStatus.STARTED)
            )
        # The screen behind the modal still follows (read as drawn: the modal hides it).
        await until(pilot, lambda: any("ls -la" in line for line in lines(activity)), "update")
        app.main.tick()  # the clock tick, too, reaches the tree behind the modal
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


async def test_a_project_read_before_the_app_runs_misses_nothing_written_after(
    repo: Path,
) -> None:
    """`caesar watch` reads the first scan before the app runs (its first frame shows the
    project): what a task writes between that read and the watcher is still shown."""
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    app = make_app(repo)
    app.read_first(SIZE[1])
    with EventWriter(TaskStore(repo).paths(task_id).events, task_id) as writer:
        writer.append(
            ToolUse(tool="bash", id="after", input_summary="ls after", status=ToolStatus.STARTED)
        )
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: task_id[2:10] in text(tree), "the task")
        activity = app.query_one(ActivityView)
        await until(pilot, lambda: any("ls after" in line for line in lines(activity)), "it")


async def test_a_project_read_before_the_app_runs_is_in_the_first_screen_drawn(
    repo: Path,
) -> None:
    """The first scan read before the app runs is shown as the screen mounts: the screen the
    app first draws holds the task and the selected task's activity, with nothing waited
    for (no empty screen drawn first, then drawn again once a worker has read the project)."""
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    with EventWriter(TaskStore(repo).paths(task_id).events, task_id) as writer:
        writer.append(
            ToolUse(tool="bash", id="before", input_summary="ls before", status=ToolStatus.STARTED)
        )
    app = make_app(repo)
    app.read_first(SIZE[1])
    async with app.run_test(size=SIZE):
        assert task_id[2:10] in text(app.query_one(TaskTree))
        assert any("ls before" in line for line in lines(app.query_one(ActivityView)))


async def test_a_first_read_that_fails_is_reported_on_screen_as_the_app_reports_it(
    tmp_path: Path,
) -> None:
    """A project whose task store cannot be listed (a file where caesar's state directory of
    records belongs): reading it before the app runs raises nothing; the app starts, and its
    own read says what failed, as a notification."""
    records = tmp_path / ".caesar" / "state" / "tasks"
    records.parent.mkdir(parents=True)
    records.write_text("not a directory\n")
    app = make_app(tmp_path)
    app.read_first(SIZE[1])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(
            pilot, lambda: any("NotADirectoryError" in toast for toast in toasts(app)), "it"
        )
