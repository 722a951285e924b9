"""The task tree draws its lines from cached pieces (``tree_lines``): exactly the segments
Textual's ``Tree`` draws for them, for roots, children and grandchildren, the cursor's line, a
hovered line, focused or not."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tree

from caesar_core.protocol import Message, ToolStatus, ToolUse
from caesar_core.store import TaskStatus, ask
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import SIZE, Clock, Project, text, until

IDS = [f"t_{n:08x}" + "0" * 24 for n in range(7)]


def drawn_alike(tree: TaskTree) -> None:
    width = tree.size.width
    style = tree.rich_style
    for y in range(len(tree._tree_lines)):
        ours = list(tree._render_line(y, 0, width, style))
        tree._line_cache.clear()
        textual = list(Tree._render_line(tree, y, 0, width, style))
        assert ours == textual, f"line {y}"


async def test_every_line_is_drawn_as_textuals_tree_draws_it(tmp_path: Path) -> None:
    project = Project(tmp_path)
    root, child, grandchild, sibling, other, last, turn = IDS
    clock = Clock()
    project.task(root, created_at=clock.at(0))
    project.task(child, parent_id=root, created_at=clock.at(1), status=TaskStatus.SUCCEEDED)
    project.task(grandchild, parent_id=child, created_at=clock.at(2), role="reviewer")
    project.task(sibling, parent_id=root, created_at=clock.at(3), status=TaskStatus.FAILED)
    project.task(other, created_at=clock.at(4))
    project.task(last, created_at=clock.at(5))
    project.task(turn, continues=other, chain=other, turn=2, created_at=clock.at(6))
    project.emit(root, clock.at(1), ToolUse(tool="bash", id="c1", status=ToolStatus.STARTED))
    project.emit(other, clock.at(1), Message(text="said something"))
    ask(project.store.paths(last), "Proceed?", ["yes", "no"], now=clock.at(2))
    app = project.app(Clock(clock.at(90)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "said something" in text(tree), "the tasks")
        await until(pilot, lambda: len(tree._tree_lines) == len(IDS), "every line")
        drawn_alike(tree)  # focused, the cursor on the first line
        await pilot.press("down", "down")
        await pilot.hover(TaskTree, offset=(6, 4))
        await pilot.pause()
        assert tree.hover_line == 4
        drawn_alike(tree)
        tree.blur()
        await pilot.pause()
        drawn_alike(tree)


async def test_a_new_theme_recolours_the_labels(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.task(IDS[0], created_at=Clock().at(0))
    project.task(IDS[1], created_at=Clock().at(1))
    app = project.app(Clock(Clock().at(90)))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: "00000001" in text(tree), "the tasks")

        def agent_colour() -> object:  # on the second line: the cursor's colours are its own
            style = next(seg.style for seg in tree.render_line(1) if "claude" in seg.text)
            return style.color if style is not None else None

        before = agent_colour()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        assert agent_colour() != before
        drawn_alike(tree)
