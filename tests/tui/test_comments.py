"""Commenting on lines of a real task's diff by keys (``c``), as a person would: the comment
is stored through the core (``caesar comments`` shows it) and drawn under its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from caesar_core.review.comments import add_comment
from caesar_core.store import TaskStore
from caesar_tui.app import make_app
from caesar_tui.modals.comment import CommentModal
from caesar_tui.modals.comments import CommentsModal
from caesar_tui.modals.request_changes import RequestChangesModal
from caesar_tui.widgets.task_tree import TaskTree
from tests.runner.conftest import caesar
from tests.tui.screen import lines, text, toasts, until
from tests.tui.test_review import OLD, SIZE, edited, open_diff, shown, task_with_three_hunks

WIDE = (200, 45)
"""Wide enough for the text side by side beside the tree and the file list."""


def listed_comments(repo: Path, task_id: str) -> list[dict[str, Any]]:
    """``caesar comments ID --json``: what the CLI shows of the task's comments."""
    result = caesar(repo, "comments", task_id, "--json")
    assert result.returncode == 0, result.stderr
    comments: list[dict[str, Any]] = json.loads(result.stdout)["comments"]
    return comments


async def test_c_on_a_hunk_comments_on_its_lines_and_shows_it_under_them(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("enter", "c")  # the text, the first hunk: def area(radius)
        await until(pilot, lambda: isinstance(app.screen, CommentModal), "the comment field")
        assert "Comment on calc.py:4-5" in shown(app)
        await pilot.press(*"keep r", "enter")
        await until(
            pilot, lambda: any("▎ keep r" in row for row in lines(view.text)), "the comment row"
        )
        rows = lines(view.text)
        at = next(i for i, row in enumerate(rows) if "▎ keep r" in row)
        assert rows[at - 1].endswith("+    return math.pi * radius * radius")
        await until(
            pilot, lambda: any("commented on calc.py:4-5" in t for t in toasts(app)), "the toast"
        )
    listed = listed_comments(repo, task_id)
    assert [(c["path"], c["start_line"], c["end_line"], c["state"]) for c in listed] == [
        ("calc.py", 4, 5, "open")
    ]
    assert listed[0]["text"] == "keep r"


async def test_c_on_lines_chosen_with_v_comments_on_their_new_lines(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("enter", "right_square_bracket")  # the second hunk
        await pilot.press("v", "j", "j", "j")  # two removed prints, two added ones
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CommentModal), "the comment field")
        await pilot.press(*"say circle", "enter")
        await until(
            pilot, lambda: any("▎ say circle" in r for r in lines(view.text)), "the comment row"
        )
        rows = lines(view.text)
        at = next(i for i, row in enumerate(rows) if "▎ say circle" in row)
        assert rows[at - 1].endswith('+    print("its area", area(r))')
    listed = listed_comments(repo, task_id)
    assert [c["code"] for c in listed] == [
        ['    print("circle of radius", r)', '    print("its area", area(r))']
    ]


async def test_a_refused_comment_is_notified_with_the_cores_reason_and_remedy(
    repo: Path,
) -> None:
    task_id, worktree = task_with_three_hunks(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_diff(pilot, app, task_id)
        (worktree / "calc.py").write_text(OLD)  # the agent's change is gone meanwhile
        await pilot.press("enter", "c")
        await until(pilot, lambda: isinstance(app.screen, CommentModal), "the comment field")
        await pilot.press(*"too late", "enter")
        await until(
            pilot, lambda: any("has no lines in the diff" in t for t in toasts(app)), "the refusal"
        )
        refusal = next(t for t in toasts(app) if "has no lines in the diff" in t)
        assert "remedy: comment on a path of the diff" in refusal
    assert listed_comments(repo, task_id) == []


async def test_comments_are_drawn_escaped_and_marked_outdated_when_their_lines_are_gone(
    repo: Path,
) -> None:
    task_id, worktree = task_with_three_hunks(repo)
    store = TaskStore(repo)
    add_comment(store, store.get(task_id), "calc.py", 4, 5, "red\x1b[31m\nnext")
    add_comment(store, store.get(task_id), "calc.py", 32, 32, "two")
    (worktree / "calc.py").write_text(edited(first=False))  # lines 4-5 are gone
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await until(pilot, lambda: any("▎" in row for row in lines(view.text)), "the comments")
        rows = lines(view.text)
        assert "  ▎ [outdated] red\\x1b[31m\\nnext" in rows
        at = rows.index("  ▎ [outdated] red\\x1b[31m\\nnext")
        assert rows[at - 1].startswith("  +++ b/calc.py")  # above the first hunk
        assert "@@ -10,8 +10,9 @@" in rows[at + 1]
        at = rows.index("  ▎ two")
        assert rows[at - 1].endswith("+    describe(2)")


async def test_a_garbage_comments_file_is_reported_and_the_diff_still_shown(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    kept = repo / ".caesar" / "state" / "comments" / f"{task_id}.json"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("{not json\x1b[2J")
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await until(
            pilot, lambda: any(f"comments/{task_id}.json" in t for t in toasts(app)), "reported"
        )
        assert not any("\x1b" in t for t in toasts(app))
        assert any("+def area(radius):" in row for row in lines(view.text))


async def test_C_lists_the_comments_and_x_resolves_the_highlighted_one(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    store = TaskStore(repo)
    add_comment(store, store.get(task_id), "calc.py", 4, 5, "keep r")
    add_comment(store, store.get(task_id), "calc.py", 32, 32, "two\x1b[2J")
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, CommentsModal), "the list")
        modal = app.screen
        await until(pilot, lambda: "keep r" in text(modal), "the comments listed")
        listed = text(modal)
        assert "calc.py:4-5  [open]  keep r" in listed
        assert "calc.py:32  [open]  two\\x1b[2J" in listed
        await pilot.press("x")  # the first: keep r
        await until(pilot, lambda: "[resolved]  keep r" in text(modal), "resolved in the list")
        await pilot.press("escape")
        await until(
            pilot,
            lambda: not any("▎ keep r" in row for row in lines(view.text)),
            "the resolved comment gone from the diff",
        )
        assert any("▎ two" in row for row in lines(view.text))
    states = {c["text"]: c["state"] for c in listed_comments(repo, task_id)}
    assert states == {"keep r": "resolved", "two\x1b[2J": "open"}


async def test_r_requests_changes_a_follow_up_turn_prefilled_with_the_review(
    repo: Path,
) -> None:
    task_id, _ = task_with_three_hunks(repo)
    store = TaskStore(repo)
    add_comment(store, store.get(task_id), "calc.py", 4, 5, "keep r")
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_diff(pilot, app, task_id)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RequestChangesModal), "the form")
        await until(pilot, lambda: "calc.py:4-5: keep r" in shown(app), "the summary")
        assert "Address the review comments:" in shown(app)
        await pilot.press(*" please", "ctrl+s")
        await until(
            pilot, lambda: any(" started" in t for t in toasts(app)), "the new turn notified"
        )
        turn = store.get(task_id).continued_by
        assert turn is not None
        assert any(f"turn {turn} started" in t for t in toasts(app))
        tree = app.query_one(TaskTree)
        await until(pilot, lambda: turn[2:10] in text(tree), "the new turn in the tree")
        await until(pilot, lambda: store.get(turn).status.terminal, "the turn's end")
    record = store.get(turn)
    assert record.continues == task_id
    assert record.turn == 2
    assert "- calc.py:4-5: keep r please" in record.objective


async def test_r_on_a_task_continued_already_is_refused_with_the_reason(repo: Path) -> None:
    task_id, _ = task_with_three_hunks(repo)
    store = TaskStore(repo)
    app = make_app(repo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_diff(pilot, app, task_id)
        continued = caesar(repo, "continue", task_id, "--json")  # from the CLI meanwhile
        assert store.get(task_id).continued_by, continued.stderr
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RequestChangesModal), "the form")
        await pilot.press("ctrl+s")
        await until(
            pilot, lambda: any("already continued" in t for t in toasts(app)), "the refusal"
        )
        assert any("remedy: continue the latest turn" in t for t in toasts(app))
    assert store.get(task_id).continued_by is not None


async def test_comments_are_drawn_side_by_side_under_the_new_side_of_their_line(
    repo: Path,
) -> None:
    task_id, worktree = task_with_three_hunks(repo)
    store = TaskStore(repo)
    add_comment(store, store.get(task_id), "calc.py", 4, 5, "keep r")
    add_comment(store, store.get(task_id), "calc.py", 15, 15, "changed since")
    add_comment(store, store.get(task_id), "calc.py", 32, 32, "gone")
    text = (worktree / "calc.py").read_text()
    text = text.replace('"its perimeter"', '"perimeter"').replace("describe(2)", "describe(1)")
    (worktree / "calc.py").write_text(text)
    app = make_app(repo)
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        view = await open_diff(pilot, app, task_id)
        await until(pilot, lambda: any("▎ keep r" in r for r in lines(view.text)), "comments")
        await pilot.press("enter", "s")
        await until(pilot, lambda: view.text.side_by_side, "side by side")
        await until(pilot, lambda: "│" in lines(view.text)[8], "the rows side by side")
        rows = lines(view.text)
        at = next(i for i, row in enumerate(rows) if "▎ keep r" in row)
        old, new = rows[at].split("│")
        assert old.strip() == "" and new.strip() == "▎ keep r"
        above_old, above_new = rows[at - 1].split("│")
        assert "-    return math.pi * r * r" in above_old
        assert above_new.split()[:3] == ["●", "5", "+"]  # line 5, under the new side's code
        assert new.index("▎") == above_new.index("+")
        at = next(i for i, row in enumerate(rows) if "[outdated] changed since" in row)
        assert '+    print("perimeter", perimeter(r))' in rows[at - 1].split("│")[1]
        # Its lines gone from the diff, a comment is drawn across, above the first hunk.
        at = rows.index("  ▎ [outdated] gone")
        assert rows[at - 1] == "  +++ b/calc.py" and "@@ -1,8 +1,8 @@" in rows[at + 1]
        # The cursor still moves by hunk over the comments' rows; s again: unified.
        await pilot.press("right_square_bracket")
        assert "hunk 2/2" in str(view.text.border_subtitle)
        await pilot.press("s")
        await until(pilot, lambda: not view.text.side_by_side, "unified")
        rows = lines(view.text)
        at = rows.index("  ▎ keep r")
        assert rows[at - 1].endswith("+    return math.pi * radius * radius")
