"""The story ``make demo`` tells, driven by keys as a person would: in the demo's repository, the
demo's first task (``caesar watch --demo`` starts it), a comment on a line of its diff (``c``),
changes requested (``r``), and the second turn watched as it addresses the comment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from caesar_core.store import TaskStore
from caesar_tui.app import make_app
from caesar_tui.demo import DEMO_TASKS, start_demo
from caesar_tui.modals.comment import CommentModal
from caesar_tui.modals.request_changes import RequestChangesModal
from caesar_tui.widgets.task_tree import TaskTree
from tests.tui.screen import lines, screen_lines, text, toasts, until
from tests.tui.test_review import open_diff

SIZE = (160, 48)
NOTED = "- Refactor the greeting (noted by the demo agent)"
"""The line the demo's ``work`` script adds to README.md."""


async def until_long(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    """``until`` for a real turn of a real process: a few of its windows."""
    for _ in range(5):
        try:
            await until(pilot, condition, what)
            return
        except AssertionError:
            continue
    raise AssertionError(f"timed out waiting for {what}")


async def test_comment_request_changes_and_watch_the_second_turn_address_it(
    tmp_path: Path,
) -> None:
    objective, script, _ = DEMO_TASKS[0]
    root = start_demo(tmp_path / "demo", tasks=[(objective, script, 0.0)])
    store = TaskStore(root)
    app = make_app(root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        tree = app.query_one(TaskTree)
        await until_long(pilot, lambda: store.list().records, "the demo task")
        [first] = store.list().records
        await until_long(pilot, lambda: store.get(first.id).status.terminal, "its end")
        assert store.get(first.id).status.value == "succeeded"

        # The Diff tab, its first file (DEMO_NOTES.md, one line); c, a comment, enter.
        view = await open_diff(pilot, app, first.id)
        await pilot.press("enter")
        await until(pilot, lambda: view.text.path == "DEMO_NOTES.md", "DEMO_NOTES.md shown")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CommentModal), "the comment field")
        assert "Comment on DEMO_NOTES.md:1" in "\n".join(screen_lines(app))
        await pilot.press(*"one line", "enter")
        await until(pilot, lambda: "  ▎ one line" in lines(view.text), "the comment")
        rows = lines(view.text)
        assert rows[rows.index("  ▎ one line") - 1].endswith("+- Refactor the greeting")
        # ] to README.md's hunk, and a comment on its lines.
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: view.text.path == "README.md", "README.md shown")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CommentModal), "the comment field")
        assert "Comment on README.md:4-5" in "\n".join(screen_lines(app))
        await pilot.press(*"say what changed", "enter")
        await until(pilot, lambda: "  ▎ say what changed" in lines(view.text), "the comment")
        rows = lines(view.text)
        assert rows[rows.index("  ▎ say what changed") - 1].endswith("+" + NOTED)

        # r: the form says what the turn is asked; ctrl+s sends it.
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RequestChangesModal), "the form")
        await until(
            pilot,
            lambda: "README.md:4-5: say what changed" in "\n".join(screen_lines(app)),
            "the summary",
        )
        assert "DEMO_NOTES.md:1: one line" in "\n".join(screen_lines(app))
        await pilot.press("ctrl+s")
        await until_long(pilot, lambda: store.get(first.id).continued_by, "the second turn")
        turn = str(store.get(first.id).continued_by)
        await until(pilot, lambda: any(f"turn {turn} started" in t for t in toasts(app)), "toast")

        # The new turn is selected (its diff, the whole work, from its first file); once it
        # ended, each commented line rewritten and its comment addressed (] to README.md).
        await until(pilot, lambda: tree.selected_id == turn, "the new turn selected")
        await until_long(pilot, lambda: store.get(turn).status.terminal, "the turn's end")
        await until(
            pilot,
            lambda: "  ▎ [addressed] one line" in lines(view.text),
            "the first comment addressed",
        )
        rows = lines(view.text)
        shown_line = rows[rows.index("  ▎ [addressed] one line") - 1]
        assert shown_line.startswith("▌●+- Refactor the greeting -- review (turn 2): one line")
        assert "+- turn 2: addressed README.md:4: say what changed" in text(view.text)
        await pilot.press("right_square_bracket")
        addressed = "  ▎ [addressed] say what changed"
        await until(pilot, lambda: addressed in lines(view.text), "the comment addressed")
        rows = lines(view.text)
        rewritten = f"{NOTED} -- review (turn 2): say what changed (addressed by the demo agent)"
        shown_line = rows[rows.index(addressed) - 1]
        assert shown_line.startswith("▌●+" + NOTED + " -- review")  # as far as the view is wide
        worktree = Path(str(store.get(turn).worktree_path))
        assert (worktree / "README.md").read_text().splitlines()[-1] == rewritten
        shown = [row for row in text(tree).splitlines() if row.strip()]
        [row_1] = [row for row in shown if first.id[2:10] in row]
        [row_2] = [row for row in shown if turn[2:10] in row]
        assert "turn 1" in row_1 and "turn 2" in row_2 and "✓" in row_2
        assert shown.index(row_2) == shown.index(row_1) + 1
    assert (root / ".caesar" / "state" / "comments" / f"{first.id}.json").is_file()
