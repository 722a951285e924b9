"""Per-run configuration files: laid down for the run, then put back exactly as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.runner.injected import injected


def test_a_users_file_is_restored_byte_for_byte_and_a_new_one_removed(tmp_path: Path) -> None:
    mine = tmp_path / "opencode.json"
    mine.write_bytes(b'{"mine": true}\r\n')
    new = tmp_path / "sub" / "mcp.json"

    with injected({mine: '{"caesar": 1}', new: "{}"}, [tmp_path]):
        assert mine.read_text() == '{"caesar": 1}'
        assert new.read_text() == "{}"

    assert mine.read_bytes() == b'{"mine": true}\r\n'
    assert not new.exists()


def test_files_are_put_back_when_the_run_fails(tmp_path: Path) -> None:
    mine = tmp_path / "settings.json"
    mine.write_text("original")

    with pytest.raises(RuntimeError), injected({mine: "ours"}, [tmp_path]):
        raise RuntimeError("the agent could not start")

    assert mine.read_text() == "original"


def test_a_users_link_is_put_back_as_a_link(tmp_path: Path) -> None:
    dotfile = tmp_path / "dotfiles" / "settings.json"
    dotfile.parent.mkdir()
    dotfile.write_text("mine")
    mine = tmp_path / "work" / "settings.json"
    mine.parent.mkdir()
    mine.symlink_to(dotfile)
    with injected({mine: "ours"}, [tmp_path / "work"]):
        assert not mine.is_symlink() and mine.read_text() == "ours"
        assert dotfile.read_text() == "mine"
    assert mine.is_symlink() and mine.readlink() == dotfile
    assert dotfile.read_text() == "mine"


def test_a_directory_swapped_for_a_link_is_never_written_through(tmp_path: Path) -> None:
    """The agent moves the folder away and leaves a link to somewhere else in its place:
    putting back happens in the folder caesar opened, wherever it went, never through the
    link."""
    work = tmp_path / "work"
    (work / ".gemini").mkdir(parents=True)
    (work / ".gemini" / "settings.json").write_text("mine")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_text("not yours")
    with injected({work / ".gemini" / "settings.json": "ours"}, [work]):
        (work / ".gemini").rename(work / "moved")
        (work / ".gemini").symlink_to(elsewhere)
    assert (elsewhere / "settings.json").read_text() == "not yours"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["settings.json"]
    assert (work / "moved" / "settings.json").read_text() == "mine"


def test_a_directory_left_at_caesars_name_is_moved_aside_not_fatal(tmp_path: Path) -> None:
    mine = tmp_path / "settings.json"
    mine.write_text("original")
    ours = tmp_path / "mcp.json"
    with injected({mine: "ours", ours: "{}"}, [tmp_path]):
        mine.unlink()
        mine.mkdir()
        (mine / "agent-work").write_text("x")
        ours.unlink()
        ours.mkdir()
    assert mine.read_text() == "original"
    assert (tmp_path / "settings.json.refused-1" / "agent-work").read_text() == "x"
    assert (tmp_path / "mcp.json.refused-1").is_dir() and not ours.exists()
