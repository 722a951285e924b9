"""The Diff tab as a review screen, driven by keys: moving by hunk and by file, choosing
hunks and lines, the side-by-side view, word-level highlighting, and what was already
applied or rejected. What is asserted is what is drawn (rows of the text and the file list)
and what applying would take (``DiffView.choice``, as the confirmation lists it)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from caesar_core.git.diff import FileChange, TreeDiff
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Pick
from caesar_tui.modals.review import apply_confirmation
from caesar_tui.review import Done
from caesar_tui.widgets.diff_text import SIDE_BY_SIDE_MIN
from caesar_tui.widgets.diff_view import DiffView
from tests.tui.screen import lines as rendered
from tests.tui.screen import record, reviewable, screen_lines, toasts, until

TASK = "t_" + "c" * 32

CALC = [
    "diff --git a/calc.py b/calc.py",
    "index fb48806..580885b 100644",
    "--- a/calc.py",
    "+++ b/calc.py",
    "@@ -1,8 +1,8 @@",
    " import math",
    " ",
    " ",
    "-def area(r):",
    "-    return math.pi * r * r",
    "+def area(radius):",
    "+    return math.pi * radius * radius",
    " ",
    " ",
    " def perimeter(r):",
    "@@ -10,8 +10,9 @@ def perimeter(r):",
    " ",
    " ",
    " def describe(r):",
    '-    print("circle", r)',
    '-    print("area", area(r))',
    '+    print("circle of radius", r)',
    '+    print("its area", area(r))',
    '+    print("its perimeter", perimeter(r))',
    "     return None",
    " ",
    " # filler 0",
    "@@ -28,5 +29,5 @@ def describe(r):",
    " # filler 11",
    " ",
    " def main():",
    "-    describe(1)",
    "+    describe(2)",
    " ",
]
NOTES = [
    "diff --git a/notes.md b/notes.md",
    "new file mode 100644",
    "index 0000000..1111111",
    "--- /dev/null",
    "+++ b/notes.md",
    "@@ -0,0 +1,2 @@",
    "+# Notes",
    "+the radius, not r",
]


def review_diff() -> TreeDiff:
    return reviewable(
        "b" * 40,
        "c" * 40,
        [
            (
                FileChange("calc.py", ChangeAction.MODIFIED, additions=6, deletions=5),
                "\n".join(CALC) + "\n",
            ),
            (
                FileChange("notes.md", ChangeAction.CREATED, additions=2),
                "\n".join(NOTES) + "\n",
            ),
        ],
    )


class ReviewApp(App[None]):
    def __init__(self, done: Done | None = None) -> None:
        super().__init__()
        self.animation_level = "none"
        self.done = done

    def compose(self) -> ComposeResult:
        yield DiffView()

    def on_mount(self) -> None:
        view = self.query_one(DiffView)
        view.show(TASK, review_diff(), self.done)
        view.text.focus()


def text_rows(view: DiffView) -> list[str]:
    return rendered(view.text)


def file_rows(view: DiffView) -> list[str]:
    return [str(option.prompt) for option in view.file_list.options]


def picks(view: DiffView) -> list[Pick]:
    choice = view.choice()
    return list(choice.picks) if choice is not None else []


def hunk_ids(view: DiffView) -> list[str]:
    return [hunk.id for change in review_diff().files for hunk in view.hunks_of(change)]


def cursor_rows(view: DiffView) -> list[str]:
    """The rows the gutter marks as the cursor's hunk (▌) or line (▶)."""
    return [row for row in text_rows(view) if row[:1] in ("▌", "▶")]


async def test_brackets_and_j_k_move_by_hunk_and_on_to_the_next_file() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert cursor_rows(view)[0] == "▌ [x] @@ -1,8 +1,8 @@"
        assert view.text.border_subtitle == "hunk 1/3 · 34 lines"
        await pilot.press("right_square_bracket")
        assert cursor_rows(view)[0] == "▌ [x] @@ -10,8 +10,9 @@ def perimeter(r):"
        await pilot.press("J")
        assert cursor_rows(view)[0] == "▌ [x] @@ -28,5 +29,5 @@ def describe(r):"
        await pilot.press("J")  # past the last hunk: the next file's first
        assert view.text.path == "notes.md"
        assert cursor_rows(view) == ["▌ [x] @@ -0,0 +1,2 @@", "▌●+# Notes", "▌●+the radius, not r"]
        await pilot.press("J")  # the last hunk of the last file: stays
        assert view.text.path == "notes.md"
        await pilot.press("left_square_bracket")  # back: the previous file's last hunk
        assert view.text.path == "calc.py"
        assert cursor_rows(view)[0] == "▌ [x] @@ -28,5 +29,5 @@ def describe(r):"
        await pilot.press("K")
        assert view.text.border_subtitle == "hunk 2/3 · 34 lines"
        await pilot.press("right_curly_bracket")
        assert view.text.path == "notes.md"
        await pilot.press("left_curly_bracket")
        assert view.text.path == "calc.py"


async def test_space_toggles_the_hunk_under_the_cursor() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert file_rows(view)[0] == "[x] M +6 -5  3/3  calc.py"
        await pilot.press("right_square_bracket", "space")
        shown = cursor_rows(view)
        assert shown[0] == "▌ [ ] @@ -10,8 +10,9 @@ def perimeter(r):"
        assert '▌○-    print("circle", r)' in shown
        assert '▌○+    print("its perimeter", perimeter(r))' in shown
        assert file_rows(view)[0] == "[~] M +6 -5  2/3  calc.py"
        assert view.file_list.border_title == "files 2/2 · hunks 3/4"
        first, second, third, notes = hunk_ids(view)
        assert picks(view) == [Pick(first), Pick(third), Pick(notes)]
        await pilot.press("space")
        assert cursor_rows(view)[0] == "▌ [x] @@ -10,8 +10,9 @@ def perimeter(r):"
        assert picks(view) == [Pick(first), Pick(second), Pick(third), Pick(notes)]
        choice = view.choice()
        assert choice is not None and choice.whole


async def test_v_then_moving_chooses_lines_of_the_hunk() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        await pilot.press("right_square_bracket", "v", "j", "j")
        shown = cursor_rows(view)
        assert shown[0] == "▌ [~] @@ -10,8 +10,9 @@ def perimeter(r):"
        assert shown[4:9] == [
            '▌●-    print("circle", r)',
            '▌●-    print("area", area(r))',
            '▶●+    print("circle of radius", r)',
            '▌○+    print("its area", area(r))',
            '▌○+    print("its perimeter", perimeter(r))',
        ]
        assert view.text.border_subtitle == "lines 1-3 of 5 · 34 lines"
        await pilot.press("k")  # back up: the range shrinks
        assert view.text.border_subtitle == "lines 1-2 of 5 · 34 lines"
        await pilot.press("escape")  # done: the choice stays, the arrows scroll again
        assert view.text.border_subtitle == "hunk 2/3 · 34 lines"
        first, second, third, notes = hunk_ids(view)
        assert picks(view) == [Pick(first), Pick(second, 1, 2), Pick(third), Pick(notes)]
        choice = view.choice()
        assert choice is not None and not choice.whole
        assert "  @@ -10,8 +10,9 @@ def perimeter(r):  (lines 1-2 of 5)" in choice.lines
        assert "calc.py: 3 of 3 hunks" in choice.lines


async def test_side_by_side_shows_old_beside_new_and_back() -> None:
    app = ReviewApp()
    async with app.run_test(size=(SIDE_BY_SIDE_MIN + 70, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        await pilot.press("s")
        shown = text_rows(view)
        assert shown[4] == "▌ [x] @@ -1,8 +1,8 @@"
        old, new = shown[8].split("│")
        assert old.split() == ["▌●", "4", "-def", "area(r):"]
        assert new.split() == ["●", "4", "+def", "area(radius):"]
        # Three removed lines and three added: one row each; the fourth added stands alone.
        old, new = next(row for row in shown if "its perimeter" in row).split("│")
        assert old.strip() == ""
        assert new.split()[:2] == ["●", "15"]
        assert '+    print("its perimeter", perimeter(r))' in new
        await pilot.press("s")
        assert text_rows(view)[8] == "▌●-def area(r):"


async def test_side_by_side_waits_for_a_wide_terminal() -> None:
    app = ReviewApp()
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        await pilot.press("s")
        await until(pilot, lambda: toasts(app), "the notification")
        assert "side by side needs" in toasts(app)[0]
        assert text_rows(view)[8] == "▌●-def area(r):"


async def test_the_words_a_line_changed_are_highlighted_within_its_tint() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        added = view.text.render_line(10)  # +def area(radius):
        assert added.text.rstrip() == "▌●+def area(radius):"
        backgrounds = {segment.text: segment.style.bgcolor for segment in added if segment.style}
        assert backgrounds["radius"] != backgrounds["def"]
        assert backgrounds["def"] == backgrounds["area"]
        removed = view.text.render_line(8)  # -def area(r):
        by_text = {segment.text: segment.style.bgcolor for segment in removed if segment.style}
        assert by_text["r"] != by_text["area"]
        # An added line with no removed line to pair with has no word highlight.
        alone = view.text.render_line(23)
        assert "perimeter(r))" in alone.text
        code = [s.style.bgcolor for s in list(alone)[3:] if s.style and s.text.strip()]
        assert len(set(code)) == 1


async def test_applied_and_rejected_hunks_are_counted_and_not_chosen_again() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50), notifications=True) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        ids = hunk_ids(view)
        view.show(TASK, review_diff(), Done({ids[1]: None}, {"calc.py": 2}))
        await pilot.pause()
        assert file_rows(view)[0] == "[x] M +6 -5  2/3 ✓1 ✗2  calc.py"
        assert view.file_list.border_subtitle == "+8 -5 · ✓1 applied · ✗2 rejected"
        await pilot.press("right_square_bracket")
        shown = cursor_rows(view)
        assert shown[0] == "▌ [✓] @@ -10,8 +10,9 @@ def perimeter(r):"
        assert '▌✓-    print("circle", r)' in shown
        await pilot.press("space")
        await until(pilot, lambda: toasts(app), "the notification")
        assert "applied already" in toasts(app)[0]
        choice = view.choice()
        assert choice is not None and not choice.whole
        assert [pick.hunk_id for pick in choice.picks] == [ids[0], ids[2], ids[3]]


async def test_choices_survive_a_new_read_of_the_diff() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        await pilot.press("right_square_bracket", "space")
        view.show(TASK, review_diff())
        await pilot.pause()
        assert cursor_rows(view)[0] == "▌ [ ] @@ -10,8 +10,9 @@ def perimeter(r):"
        assert file_rows(view)[0] == "[~] M +6 -5  2/3  calc.py"


async def test_scrolling_a_long_file_moves_the_cursor_to_the_hunk_in_view() -> None:
    body: list[str] = []
    for n in range(40):
        start = 1 + n * 20
        body += [f"@@ -{start},3 +{start},3 @@", " a", f"-old {n}", f"+new {n}", " b"]
    head = ["diff --git a/many.txt b/many.txt", "index 1111111..2222222 100644", "--- a/many.txt"]
    patch = "\n".join([*head, "+++ b/many.txt", *body]) + "\n"
    diff = reviewable(
        "b" * 40, "c" * 40, [(FileChange("many.txt", ChangeAction.MODIFIED, None, 40, 40), patch)]
    )
    app = ReviewApp()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, diff)
        await pilot.pause()
        view.text.focus()
        assert (view.text.border_subtitle or "").startswith("hunk 1/40")
        await pilot.press("pagedown", "pagedown")
        subtitle = view.text.border_subtitle or ""
        number = int(subtitle.split()[1].split("/")[0])
        assert number > 5
        top_header = next(row for row in text_rows(view) if "@@" in row)
        assert cursor_rows(view)[0].split("@@")[1] == top_header.split("@@")[1]
        await pilot.press("space")
        assert cursor_rows(view)[0].startswith("▌ [ ] @@")


async def test_review_keys_are_remapped_by_action_id() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        app.set_keymap({"next_hunk": "n", "toggle_hunk": "x"})
        view = app.query_one(DiffView)
        await pilot.pause()
        await pilot.press("n", "x")
        assert cursor_rows(view)[0] == "▌ [ ] @@ -10,8 +10,9 @@ def perimeter(r):"
        await pilot.press("right_square_bracket")  # no longer bound
        assert cursor_rows(view)[0].startswith("▌ [ ] @@ -10,8")


async def test_a_hunk_header_an_agent_wrote_reaches_the_screen_escaped() -> None:
    patch = "\n".join(
        [
            "diff --git a/evil.py b/evil.py",
            "index 1111111..2222222 100644",
            "--- a/evil.py",
            "+++ b/evil.py",
            "@@ -1,2 +1,2 @@ def \x1b]0;pwned\x07\x1b[31mred():",
            " keep",
            "-old\x1b[2J",
            "+new",
        ]
    )
    diff = reviewable(
        "b" * 40,
        "c" * 40,
        [(FileChange("evil.py", ChangeAction.MODIFIED, None, 1, 1), patch + "\n")],
    )
    app = ReviewApp()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, diff)
        await pilot.pause()
        shown = "\n".join(text_rows(view))
        assert "\x1b" not in shown and "\x07" not in shown
        assert "▌ [x] @@ -1,2 +1,2 @@ def \\x1b]0;pwned\\x07\\x1b[31mred():" in shown
        assert "▌●-old\\x1b[2J" in shown
        await app.push_screen(apply_confirmation(record(TASK, Path("/project")), view.choice()))
        await pilot.pause()
        confirmation = "\n".join(screen_lines(app))
        assert "\x1b" not in confirmation
        assert (
            "@@ -1,2 +1,2 @@ def \\x1b]0;pwned\\x07\\x1b[31mred():  (all 2 lines)" in confirmation
        )


async def test_a_click_puts_the_cursor_on_the_hunk_clicked() -> None:
    app = ReviewApp()
    async with app.run_test(size=(120, 50)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        row = next(n for n, line in enumerate(text_rows(view)) if "its area" in line)
        await pilot.click(view.text, offset=(10, row + 1))  # + 1: the border above the text
        assert view.text.border_subtitle == "hunk 2/3 · 34 lines"
        assert cursor_rows(view)[0] == "▌ [x] @@ -10,8 +10,9 @@ def perimeter(r):"
