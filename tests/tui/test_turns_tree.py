"""The turns of a task (``caesar continue``) in the tree: one chain under its first turn."""

from __future__ import annotations

from pathlib import Path

from caesar_core.store import TaskStatus
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import OTHER, SIZE, TASK, Clock, Project, text, until

THIRD = "t_" + "c" * 32
CHILD = "t_" + "d" * 32


async def test_follow_up_turns_are_shown_as_one_chain_under_the_task(tmp_path: Path) -> None:
    project = Project(tmp_path)
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
    app = project.app(Clock(clock.at(10)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "cccccccc" in text(tree), "the third turn")
        shown = [line for line in text(tree).splitlines() if line.strip()]

    rows = {
        task: next(line for line in shown if task[2:10] in line)
        for task in (TASK, OTHER, THIRD, CHILD)
    }
    assert "turn 1" in rows[TASK]
    assert "turn 2" in rows[OTHER] and "turn 3" in rows[THIRD]
    assert "turn" not in rows[CHILD]  # a delegated task is not a turn
    indent = {task: len(row) - len(row.lstrip("│├└─ ")) for task, row in rows.items()}
    assert indent[OTHER] == indent[THIRD] == indent[CHILD] > indent[TASK]
    order = [
        next(t for t in rows if t[2:10] in line)
        for line in shown
        if any(t[2:10] in line for t in rows)
    ]
    assert order == [TASK, CHILD, OTHER, THIRD]
