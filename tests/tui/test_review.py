"""Reviewing a real task's diff by keys, as a person would: a real repository, a real worktree
task (the demo agent's), edits in its worktree, and the hunks and lines chosen in the Diff tab
applied to the user's tree or rejected out of the worktree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from caesar_core.store import TaskStore
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.modals.confirm import ConfirmModal
from caesar_tui.widgets.diff_view import DiffView
from caesar_tui.widgets.task_tree import TaskTree
from tests.runner.conftest import context, git, run_json
from tests.tui.screen import lines, screen_lines, text, until

SIZE = (150, 45)

OLD = """\
import math


def area(r):
    return math.pi * r * r


def perimeter(r):
    return 2 * math.pi * r


def describe(r):
    print("circle", r)
    print("area", area(r))
    return None

{filler}
def main():
    describe(1)
""".replace("{filler}", "".join(f"# filler {n}\n" for n in range(12)))


def edited(*, first: bool = True, second: bool = True, third: bool = True) -> str:
    """``OLD`` with the agent's three changes, each one or not (the hunks of the diff)."""
    text = OLD
    if first:
        text = text.replace(
            "def area(r):\n    return math.pi * r * r",
            "def area(radius):\n    return math.pi * radius * radius",
        )
    if second:
        text = text.replace(
            '    print("circle", r)\n    print("area", area(r))\n',
            '    print("circle of radius", r)\n    print("its area", area(r))\n'
            '    print("its perimeter", perimeter(r))\n',
        )
    if third:
        text = text.replace("describe(1)", "describe(2)")
    return text


def task_with_three_hunks(repo: Path) -> tuple[str, Path]:
    """A finished worktree task whose worktree changes ``calc.py`` in three places."""
    (repo / "calc.py").write_text(OLD)
    git(repo, "add", "calc.py")
    git(repo, "commit", "-q", "-m", "calc")
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    task_id = out["task_id"]
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    (worktree / "calc.py").write_text(edited())
    return task_id, worktree


async def open_diff(pilot: Pilot[Any], app: CaesarApp, task_id: str) -> DiffView:
    """Select the task, open its Diff tab and focus the file list, as a person would."""
    tree = app.query_one(TaskTree)
    await until(pilot, lambda: task_id[2:10] in text(tree), "the task")
    tree.select_task(task_id)
    await pilot.press("3")
    view = app.query_one(DiffView)
    await until(pilot, lambda: any("@@" in row for row in lines(view.text)), "the diff")
    await pilot.press("enter")
    await until(pilot, lambda: app.focused is view.file_list, "the file list focused")
    return view


def shown(app: CaesarApp) -> str:
    return "\n".join(screen_lines(app))


async def test_two_hunks_toggled_and_applied_are_exactly_what_reaches_the_tree(
    repo: Path,
) -> None:
    task_id, _ = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("a")  # every hunk was selected: none now
        await pilot.press("enter", "space")  # the text; the first hunk back in
        await pilot.press("right_square_bracket", "right_square_bracket", "space")  # the third
        assert "[~] M +6 -5  2/3  calc.py" in text(view.file_list)
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal), "the confirmation")
        confirmation = shown(app)
        assert "Apply 2 hunk(s) of 1 file(s)" in confirmation
        assert "calc.py: 2 of 3 hunks" in confirmation
        assert "@@ -1,8 +1,8 @@  (all 4 lines)" in confirmation
        assert "def describe(r):  (all 2 lines)" in confirmation
        assert "def perimeter(r):  (all" not in confirmation
        assert "⚠ caesar's checks have not run on this task" in confirmation
        await pilot.press("y")
        await until(
            pilot, lambda: (repo / "calc.py").read_text() != OLD, "the applied hunks in the tree"
        )
        await until(pilot, lambda: "✓2" in text(view.file_list), "the applied count")
        assert (repo / "calc.py").read_text() == edited(second=False)
        assert len(TaskStore(repo).get(task_id).applied_hunks) == 2
        # Applied hunks are marked, and what is left is what stays selected.
        assert any(row.endswith("[✓] @@ -1,8 +1,8 @@") for row in lines(view.text))
    assert "calc.py" not in git(repo, "diff", "--cached", "--name-only")  # never staged


async def test_lines_chosen_with_v_are_the_only_change_applied(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("a", "enter", "right_square_bracket")  # none; the second hunk
        await pilot.press("v", "j")  # its first two changed lines: the two removed prints
        assert '▶●-    print("area", area(r))' in lines(view.text)
        await pilot.press("v")
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal), "the confirmation")
        assert "(lines 1-2 of 5)" in shown(app)
        await pilot.press("y")
        await until(pilot, lambda: (repo / "calc.py").read_text() != OLD, "the applied lines")
    expected = OLD.replace('    print("circle", r)\n    print("area", area(r))\n', "")
    assert (repo / "calc.py").read_text() == expected


async def test_a_rejected_hunk_leaves_the_worktree_and_the_diff(repo: Path) -> None:
    task_id, worktree = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("a", "enter", "space")  # only the first hunk
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmModal), "the confirmation")
        assert "Reject 1 hunk(s) of 1 file(s)" in shown(app)
        await pilot.press(*"keep the name r", "enter")
        await until(
            pilot,
            lambda: not any("def area(radius)" in row for row in lines(view.text)),
            "the rejected hunk gone from the diff",
        )
        await until(pilot, lambda: "✗1" in text(view.file_list), "the rejected count")
        assert "[ ] M +4 -3  0/2 ✗1  calc.py" in text(view.file_list)
    assert (worktree / "calc.py").read_text() == edited(first=False)
    assert (repo / "calc.py").read_text() == OLD  # the user's tree is not touched
    rejected = TaskStore(repo).get(task_id).rejected_hunks
    assert [(entry.path, entry.reason) for entry in rejected] == [("calc.py", "keep the name r")]
