"""The clock's tick in the task tree, as the terminal receives it: only the cells whose text
changed are sent (a thousand young tasks tick every second), and what the terminal then shows
is the frame itself."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import App
from textual.widgets import Tree

from caesar_tui.widgets import tree_lines
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import (
    OTHER,
    SIZE,
    TASK,
    Clock,
    Project,
    screen_lines,
    styled_screen,
    text,
    until,
)

CHILD = "t_" + "d" * 32


def sent(app: App[Any]) -> list[object]:
    """Every update the app hands the terminal from now on."""
    updates: list[object] = []
    display = app._display

    def recorded(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            updates.append(renderable)
        display(screen, renderable)

    app._display = recorded  # type: ignore[method-assign]
    return updates


def painted(rows: list[str], updates: list[object], width: int) -> tuple[list[str], str]:
    """``rows`` as a terminal shows them once ``updates`` are written over them (as the
    driver writes them: ``render_segments``), and the text the updates wrote."""
    grid = [list(row.ljust(width)) for row in rows]
    written: list[str] = []
    console = Console(width=width, height=len(rows), legacy_windows=False, color_system=None)
    for update in updates:
        sequence = update.render_segments(console)  # type: ignore[attr-defined]
        x = y = 0
        for token in re.split(r"(\x1b\[[0-9;?]*[A-Za-z])", sequence):
            move = re.fullmatch(r"\x1b\[(\d+);(\d+)H", token)
            if move:
                y, x = int(move[1]) - 1, int(move[2]) - 1
            elif token and not token.startswith("\x1b"):
                for char in token:
                    if char == "\n":
                        x, y = 0, y + 1
                    else:
                        grid[y][x] = char
                        written.append(char)
                        x += 1
    return ["".join(row).rstrip() for row in grid], "".join(written)


def three_tasks(tmp_path: Path) -> tuple[Any, Clock]:
    """A project of three young tasks (one a child: its age sits further right, after the
    guides) and its app, on a clock five seconds after the first."""
    project = Project(tmp_path)
    clock = Clock(Clock().at(5))
    project.task(TASK, objective="tidy the parser")
    project.task(CHILD, created_at=clock.at(1), parent_id=TASK, objective="look at the lexer")
    project.task(OTHER, created_at=clock.at(2), objective="keep the old names")
    return project.app(clock), clock


async def ages_shown(pilot: Any, app: Any) -> TaskTree:
    """The tree, once its three ages are on screen and the first frame is painted."""
    tree: TaskTree = app.query_one(TaskTree)
    await until(pilot, lambda: text(tree).count("s ") >= 3 and app.main.painted.is_set(), "")
    return tree


async def test_a_tick_sends_only_the_ages_and_the_terminal_shows_the_frame(
    tmp_path: Path,
) -> None:
    app, clock = three_tasks(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ages_shown(pilot, app)
        await pilot.pause()
        before = [row.rstrip() for row in screen_lines(app)]
        assert "   5s" in before[1] and "   3s" in before[3]
        updates = sent(app)
        clock.moment = clock.at(6)
        app.main.tick()
        await pilot.pause()
        after = [row.rstrip() for row in screen_lines(app)]
        shown, written = painted(before, updates, SIZE[0])
        assert shown == after  # the terminal shows the frame
        assert "   6s" in after[1] and "   5s" in after[2] and "   4s" in after[3]
        # The lines up to their ages were sent, not what follows them (the headline, the
        # scrollbar, the other panes): Textual sends a widget's line from its left edge.
        assert "waiting" not in written and "6s" in written and "4s" in written


async def test_a_tick_changes_the_age_in_the_line_already_drawn(tmp_path: Path) -> None:
    """The age is spliced into the line as drawn before (no line is drawn again for it), and
    what is drawn is what Textual's own ``Tree`` draws for the line, hovered or not."""
    app, clock = three_tasks(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await ages_shown(pilot, app)
        await pilot.hover(TaskTree, offset=(6, 1))
        await pilot.pause()
        drawings = 0
        drawing = tree_lines.LineDrawing.line

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal drawings
            drawings += 1
            return drawing(*args, **kwargs)

        tree_lines.LineDrawing.line = counted  # type: ignore[method-assign]
        try:
            for seconds in (6, 7, 8):
                clock.moment = clock.at(seconds)
                app.main.tick()
                await pilot.pause()
        finally:
            tree_lines.LineDrawing.line = drawing  # type: ignore[method-assign]
        assert drawings == 0
        rows = [row.rstrip() for row in screen_lines(app)]
        assert "   8s" in rows[1] and "   7s" in rows[2] and "   6s" in rows[3]
        width, style = tree.size.width, tree.rich_style
        for y in range(len(tree._tree_lines)):
            ours = list(tree._render_line(y, 0, width, style))
            tree._line_cache.clear()
            assert ours == list(Tree._render_line(tree, y, 0, width, style)), f"line {y}"


async def test_a_ticked_screen_is_the_screen_drawn_again(tmp_path: Path) -> None:
    """The ages a tick changes read, colours and all, as the same screen drawn again from
    nothing: under the cursor, under the mouse and elsewhere, tick after tick."""
    app, clock = three_tasks(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await ages_shown(pilot, app)
        await pilot.hover(TaskTree, offset=(6, 2))
        await pilot.pause()
        for seconds in (6, 7, 8, 69, 70):
            clock.moment = clock.at(seconds)
            app.main.tick()
            await pilot.pause()
            ticked = styled_screen(app)
            tree.refresh()  # every line of the tree drawn again
            await pilot.pause()
            assert ticked == styled_screen(app), f"at {seconds}s"
        rows = [row.rstrip() for row in screen_lines(app)]
        assert "  1m" in rows[1] and "  1m" in rows[3]
