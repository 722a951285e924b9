"""The Diff tab: file rows, selection, per-file text, the empty states, and lazy rendering."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static

from caesar_core.git.diff import FileChange, TreeDiff, assemble, changes_since
from caesar_core.protocol.report import ChangeAction
from caesar_tui.widgets.diff_files import DiffFileList
from caesar_tui.widgets.diff_text import BLOCK_LINES, DiffText
from caesar_tui.widgets.diff_view import BINARY, NO_CHANGES, NO_GIT, NO_TASK, DiffView
from tests.runner.conftest import git

TASK = "t_" + "a" * 32
OTHER = "t_" + "b" * 32


class DiffApp(App[None]):
    """Nothing but a DiffView, animations off so that scrolling lands at once."""

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield DiffView()


def section(path: str, lines: list[str], *, old: str | None = None) -> str:
    """A file's patch section the way libgit2 writes it."""
    head = f"diff --git a/{old or path} b/{path}\n"
    if old:
        head += f"similarity index 90%\nrename from {old}\nrename to {path}\n"
    head += f"index 1111111..2222222 100644\n--- a/{old or path}\n+++ b/{path}\n"
    removed = sum(line.startswith("-") for line in lines)
    added = sum(line.startswith("+") for line in lines)
    context = len(lines) - removed - added
    hunk = f"@@ -1,{context + removed} +1,{context + added} @@\n"
    return head + hunk + "".join(line + "\n" for line in lines)


def sample_diff() -> TreeDiff:
    """Three files; the patch is deliberately not in the files' order, as git's may not be."""
    return assemble(
        "b" * 40,
        "c" * 40,
        [
            (
                FileChange("src/app.py", ChangeAction.MODIFIED, additions=2, deletions=1),
                section("src/app.py", [" import os", "-x = 1", "+x = 2", "+y = 3"]),
            ),
            (
                FileChange("logo.png", ChangeAction.MODIFIED, binary=True),
                "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
                "Binary files a/logo.png and b/logo.png differ\n",
            ),
            (
                FileChange("README.md", ChangeAction.MODIFIED, additions=1, deletions=0),
                section("README.md", [" # project", "+more"]),
            ),
        ],
    )


def rename_diff() -> TreeDiff:
    return assemble(
        "b" * 40,
        "c" * 40,
        [
            (
                FileChange(
                    "new_name.py", ChangeAction.RENAMED, old_path="old_name.py", additions=1
                ),
                section("new_name.py", [" a", "+b"], old="old_name.py"),
            ),
            (
                FileChange("gone.txt", ChangeAction.DELETED, deletions=1),
                "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"
                "index 1111111..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
            ),
        ],
    )


def sections(diff: TreeDiff) -> list[tuple[FileChange, str]]:
    """``diff`` back as its files and their sections, in patch order (to build a bigger one)."""
    spans = sorted(
        ((change, change.span) for change in diff.files if change.span is not None),
        key=lambda pair: pair[1].start,
    )
    return [(change, diff.patch[span.start : span.end]) for change, span in spans]


def rows(view: DiffView) -> list[str]:
    return [str(option.prompt) for option in view.file_list.options]


def screen_lines(text: DiffText) -> list[str]:
    return [text.render_line(y).text.rstrip() for y in range(text.scrollable_content_region.height)]


async def test_rows_show_action_path_and_counts() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        await pilot.pause()
        assert rows(view) == [
            "[x] M  +1 -0  README.md",
            "[x] M bin     logo.png",
            "[x] M  +2 -1  src/app.py",
        ]
        assert view.file_list.border_title == "files 3/3"
        assert view.file_list.border_subtitle == "+3 -1"
        assert view.task_id == TASK


async def test_the_highlighted_file_shows_its_own_diff() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        await pilot.pause()
        text = view.text
        assert text.path == "README.md"
        assert screen_lines(text)[0] == "diff --git a/README.md b/README.md"
        assert "+more" in screen_lines(text)
        view.file_list.focus()
        await pilot.press("down", "down")
        assert text.path == "src/app.py"
        shown = screen_lines(text)
        assert shown[0] == "diff --git a/src/app.py b/src/app.py"
        assert shown[5:9] == [" import os", "-x = 1", "+x = 2", "+y = 3"]
        assert "+more" not in shown
        await pilot.press("k")
        assert text.message == BINARY
        assert screen_lines(text)[0] == BINARY
        await pilot.press("j")
        assert text.path == "src/app.py"


async def test_added_and_removed_lines_are_tinted_and_hunks_dimmed() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.press("end")
        text = view.text
        context, removed, added = (text.render_line(y) for y in (5, 6, 7))
        background = {segment.style.bgcolor for segment in context if segment.style}
        assert {segment.style.bgcolor for segment in removed if segment.style} - background
        assert {segment.style.bgcolor for segment in added if segment.style} - background
        # The tint fills the row, past the end of the text.
        assert added.cell_length == text.scrollable_content_region.width
        padding = list(added)[-1]
        assert padding.style is not None and padding.style.bgcolor not in background
        # Code is highlighted: `x = 2` gets more than one colour.
        colours = {segment.style.color for segment in added if segment.style and segment.text}
        assert len(colours) > 1
        hunk = text.render_line(4)
        assert hunk.text.startswith("@@ -1,2 +1,3 @@")


async def test_space_and_a_choose_the_files_to_apply() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.pause()
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py"]
        await pilot.press("down", "space")
        assert view.selected_paths == ["README.md", "src/app.py"]
        assert rows(view)[1].startswith("[ ] ")
        assert view.file_list.border_title == "files 2/3"
        await pilot.press("space")
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py"]
        await pilot.press("a")  # all were selected: select none
        assert view.selected_paths == []
        assert all(row.startswith("[ ] ") for row in rows(view))
        await pilot.press("a")  # some were not: select all
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py"]
        await pilot.press("space", "a")
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py"]


async def test_selection_changes_are_announced() -> None:
    messages: list[object] = []
    app = DiffApp()
    async with app.run_test(size=(100, 30), message_hook=messages.append) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.press("space")
        assert any(isinstance(m, DiffFileList.SelectionChanged) for m in messages)


async def test_enter_and_tab_move_focus_to_the_text() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.press("enter")
        assert app.focused is view.text
        view.file_list.focus()
        await pilot.press("tab")
        assert app.focused is view.text


async def test_a_rename_shows_both_names_and_applies_both_paths() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, rename_diff())
        await pilot.pause()
        assert rows(view) == [
            "[x] D +0 -1  gone.txt",
            "[x] R +1 -0  old_name.py -> new_name.py",
        ]
        assert view.selected_paths == ["gone.txt", "new_name.py", "old_name.py"]
        view.file_list.focus()
        await pilot.press("down")
        assert view.text.path == "new_name.py"
        assert "old_name.py -> new_name.py" in (view.text.border_title or "")
        assert "rename from old_name.py" in screen_lines(view.text)
        await pilot.press("space")
        assert view.selected_paths == ["gone.txt"]


async def test_no_git_no_changes_and_no_task() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        message = view.query_one("#diff-message", Static)
        await pilot.pause()
        assert str(message.render()) == NO_TASK
        view.show(TASK, None)
        await pilot.pause()
        assert message.display and not view.query_one("#diff-panes").display
        assert str(message.render()) == NO_GIT
        assert view.selected_paths == []
        view.show(TASK, TreeDiff(base="b" * 40, tree="b" * 40))
        await pilot.pause()
        assert str(message.render()) == NO_CHANGES
        assert view.selected_paths == []
        view.show(TASK, sample_diff())
        await pilot.pause()
        assert not message.display and view.query_one("#diff-panes").display


async def test_show_before_mount_is_kept() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = DiffView()
        view.show(TASK, sample_diff())
        await app.screen.mount(view)
        await pilot.pause()
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py"]
        assert view.text.path == "README.md"


async def test_a_new_diff_of_the_same_task_keeps_choices_and_place() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.press("down", "space", "down")
        assert view.text.path == "src/app.py"
        added = (FileChange("z.txt", ChangeAction.CREATED, additions=1), section("z.txt", ["+z"]))
        grown = assemble("b" * 40, "d" * 40, [*sections(sample_diff()), added])
        view.show(TASK, grown)
        await pilot.pause()
        assert view.text.path == "src/app.py"
        assert view.selected_paths == ["README.md", "src/app.py", "z.txt"]
        view.show(OTHER, grown)
        await pilot.pause()
        assert view.text.path == "README.md"
        assert view.selected_paths == ["README.md", "logo.png", "src/app.py", "z.txt"]


async def test_a_50000_line_diff_renders_only_what_is_seen() -> None:
    count = 50_000
    body = "".join(f"+value_{i} = compute({i}, 'text')  # {i}\n" for i in range(count))
    patch = (
        "diff --git a/big.py b/big.py\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.py\n@@ -0,0 +1,{count} @@\n" + body
    )
    diff = assemble(
        "b" * 40, "c" * 40, [(FileChange("big.py", ChangeAction.CREATED, additions=count), patch)]
    )
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, diff)
        await pilot.pause()
        text = view.text
        assert text.line_count == count + 6
        assert text.virtual_size.height == count + 6
        first_screen = text.highlighted_lines
        assert 0 < first_screen <= BLOCK_LINES
        text.focus()
        await pilot.press("end")
        assert text.scroll_y == text.max_scroll_y
        assert screen_lines(text)[-1].startswith(f"+value_{count - 1} = ")
        for _ in range(20):
            await pilot.press("pageup")
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.press("home")
        assert screen_lines(text)[0].startswith("diff --git a/big.py")
        page = text.scrollable_content_region.height
        # 20 pages looked at, each highlighted once as part of a 64-line block.
        visited_blocks = (20 * page) // BLOCK_LINES + 4
        assert text.highlighted_lines <= visited_blocks * BLOCK_LINES
        assert text.highlighted_lines < count // 20
        assert len(text._strips) <= DiffText.STRIP_CACHE_SIZE


async def test_each_file_of_a_real_git_diff_shows_its_own_section(repo: Path) -> None:
    """Paths with spaces, non-ASCII names (quoted by git), renames, deletions, binaries: the
    text shown for a file is the section its span names, never a neighbour's."""
    shutil.copy(repo / "app.py", repo / "to move.py")
    (repo / "doomed.txt").write_text("bye\n")
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "mv", "to move.py", "moved here.py")
    (repo / "moved here.py").write_text("def greet(name):\n    return 'hi ' + name\n")
    (repo / "doomed.txt").unlink()
    (repo / "blob.bin").write_bytes(b"\x00\x03\x04")
    (repo / "ünïcode.md").write_text("# hé\n")
    (repo / "README.md").write_text("# project\n\nmore\n")
    diff = changes_since(repo, base, with_patch=True)
    expected = {
        "README.md": "+more",
        "doomed.txt": "-bye",
        "moved here.py": "+    return 'hi ' + name",
        "ünïcode.md": "+# hé",
    }
    app = DiffApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, diff)
        view.file_list.focus()
        await pilot.pause()
        seen = {}
        for _ in diff.files:
            change = view.file_list.highlighted_file
            assert change is not None
            shown = screen_lines(view.text)
            seen[change.path] = shown
            assert (shown[0] == BINARY) is change.binary, change.path
            assert change.binary or shown[0].startswith("diff --git "), change.path
            await pilot.press("down")
    assert sorted(seen) == sorted(change.path for change in diff.files)
    for path, line in expected.items():
        assert line in seen[path], path
        others = [other for other in expected if other != path]
        assert not any(expected[other] in seen[path] for other in others), path
    assert seen["blob.bin"] == [BINARY] + [""] * (len(seen["blob.bin"]) - 1)


async def test_control_characters_and_crlf_never_reach_the_terminal() -> None:
    files = [FileChange("notes.txt", ChangeAction.MODIFIED, additions=2)]
    patch = section("notes.txt", [" plain", "+red \x1b[31mtext\r", "+\ttabbed"])
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, assemble("b" * 40, "c" * 40, [(files[0], patch)]))
        await pilot.pause()
        shown = screen_lines(view.text)
        assert shown[6] == "+red \\x1b[31mtext"
        assert shown[7] == "+    tabbed"


async def test_a_light_theme_rehighlights_with_light_colours() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.file_list.focus()
        await pilot.press("end")
        text = view.text
        dark = [segment.style for segment in text.render_line(7)]
        before = text.highlighted_lines
        app.theme = "textual-light"
        await pilot.pause()
        light = [segment.style for segment in text.render_line(7)]
        assert light != dark
        assert text.highlighted_lines > before


async def test_focusing_the_view_focuses_its_file_list() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(TASK, sample_diff())
        view.focus()
        await pilot.pause()
        assert app.focused is view.file_list
        assert view.all_selected
        await pilot.press("space")
        assert not view.all_selected
        view.show(TASK, None)
        assert not view.all_selected
