from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core.errors import UsageError
from caesar_core.fs import atomic_write, create_exclusive
from caesar_core.store import find_root


def test_root_is_the_nearest_caesar_or_git_ancestor(tmp_path: Path) -> None:
    project = tmp_path / "project"
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    (project / ".git").mkdir()
    assert find_root(start=deep, ceiling=tmp_path) == project
    (project / "src" / ".caesar").mkdir()
    assert find_root(start=deep, ceiling=tmp_path) == project / "src"


def test_a_git_file_marks_a_linked_worktree_root(tmp_path: Path) -> None:
    (tmp_path / "outer" / ".git").mkdir(parents=True)
    worktree = tmp_path / "outer" / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../.git/worktrees/wt\n")
    assert find_root(start=worktree, ceiling=tmp_path) == worktree


def test_without_markers_the_start_is_the_root(tmp_path: Path) -> None:
    assert find_root(start=tmp_path, ceiling=tmp_path) == tmp_path.resolve()


def test_explicit_root_wins_and_must_exist(tmp_path: Path) -> None:
    assert find_root(tmp_path, start=Path("/")) == tmp_path.resolve()
    with pytest.raises(UsageError):
        find_root(tmp_path / "missing")


def test_atomic_write_replaces_whole_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    atomic_write(target, b"old")
    inode = target.stat().st_ino
    atomic_write(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert target.stat().st_ino != inode  # a rename, not an in-place rewrite
    assert os.listdir(tmp_path) == ["doc.json"]


def test_create_exclusive_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "a" / "answer.json"
    create_exclusive(target, b"first")
    with pytest.raises(FileExistsError):
        create_exclusive(target, b"second")
    assert target.read_bytes() == b"first"
    assert os.listdir(target.parent) == ["answer.json"]
