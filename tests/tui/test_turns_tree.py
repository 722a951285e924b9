"""The turns of a task (``caesar continue``) in the tree: one chain under its first turn."""

from __future__ import annotations

from pathlib import Path

from caesar_core.store import TaskStatus
from caesar_tui.frame import text_frame
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import OTHER, SIZE, TASK, Clock, Project, text, until

THIRD = "t_" + "c" * 32
CHILD = "t_" + "d" * 32


def chain(project: Project) -> None:
    """A task (TASK) with a delegated child and two follow-up turns."""
    clock = Clock()
    done = {"status": TaskStatus.SUCCEEDED}
    project.task(TASK, objective="tidy the parser", continued_by=OTHER, **done)
    project.task(
        CHILD, created_at=clock.at(1), parent_id=TASK, objective="look at the lexer", **done
    )
    project.task(
        OTHER,
        created_at=clock.at(2),
        objective="keep the old names",
        continues=TASK,
        chain=TASK,
        turn=2,
        continued_by=THIRD,
        **done,
    )
    project.task(
        THIRD,
        created_at=clock.at(3),
        objective="and the tests",
        continues=OTHER,
        chain=TASK,
        turn=3,
    )


async def test_follow_up_turns_are_shown_as_one_chain_under_the_task(tmp_path: Path) -> None:
    project = Project(tmp_path)
    chain(project)
    app = project.app(Clock(Clock().at(10)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "cccccccc" in text(tree), "the third turn")
        shown = [line for line in text(tree).splitlines() if line.strip()]

    tasks = (TASK, OTHER, THIRD, CHILD)
    rows = {task: next(line for line in shown if task[2:10] in line) for task in tasks}
    assert "turn 1" in rows[TASK]
    assert "turn 2" in rows[OTHER] and "turn 3" in rows[THIRD]
    assert "turn" not in rows[CHILD]  # a delegated task is not a turn
    indent = {task: len(row) - len(row.lstrip("│├└─ ")) for task, row in rows.items()}
    assert indent[OTHER] == indent[THIRD] == indent[CHILD] > indent[TASK]
    order = [t for line in shown for t in tasks if t[2:10] in line]
    assert order == [TASK, CHILD, OTHER, THIRD]


def test_the_text_frame_shows_the_chain_too(tmp_path: Path) -> None:
    project = Project(tmp_path)
    chain(project)
    frame = text_frame(tmp_path, Clock().at(10)).splitlines()
    rows = [line for line in frame if line.lstrip().startswith(("✓", "▶"))]
    assert [row.split()[1] for row in rows] == [TASK, CHILD, OTHER, THIRD]
    assert rows[0].startswith("✓ ") and "turn 1 " in rows[0]
    assert rows[2].startswith("  ✓ ") and "turn 2 " in rows[2]
    assert rows[3].startswith("  ▶ ") and "turn 3 " in rows[3]
    assert "turn" not in rows[1]


async def test_a_new_turn_appearing_keeps_the_task_selected(tmp_path: Path) -> None:
    """The person who pressed r stays on the task they were reviewing when its new turn (or
    any new task) appears in the tree; the cursor does not fall to the top row."""
    project = Project(tmp_path)
    clock = Clock()
    done = {"status": TaskStatus.SUCCEEDED}
    project.task(OTHER, objective="an unrelated task", **done)
    project.task(TASK, created_at=clock.at(1), objective="tidy the parser", **done)
    app = project.app(Clock(clock.at(10)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: TASK[2:10] in text(tree), "the task")
        await pilot.press("down")
        await until(pilot, lambda: tree.selected_id == TASK, "the task selected")
        project.store.set(TASK, continued_by=THIRD)
        project.task(
            THIRD, created_at=clock.at(2), objective="again", continues=TASK, chain=TASK, turn=2
        )
        await until(pilot, lambda: "turn 2" in text(tree), "the new turn")
        await pilot.pause()
        assert tree.selected_id == TASK
        [row] = [line for line in text(tree).splitlines() if TASK[2:10] in line]
        assert "turn 1" in row
