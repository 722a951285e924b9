from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.errors import CaesarError
from caesar_core.git import GitError, find_repository, head_commit, is_ignored
from caesar_core.git.repo import is_under, normalize_rel
from tests.git import commit_all, git, make_repo


def test_find_repository_answers_the_workdir_root_from_anywhere_inside(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"src/pkg/a.py": "x = 1\n"})
    assert find_repository(root) == root
    assert find_repository(root / "src" / "pkg") == root
    assert find_repository(root / "src" / "not-yet-created" / "deeper") == root


def test_find_repository_is_none_outside_git(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_repository(plain) is None


def test_find_repository_of_a_linked_worktree_is_the_worktree(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a": "1\n"})
    git(root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    assert find_repository(tmp_path / "side") == tmp_path / "side"


def test_head_commit_is_none_before_the_first_commit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a": "1\n"}, commit=False)
    assert head_commit(root) is None
    sha = commit_all(root, "first")
    assert head_commit(root) == sha


def test_head_commit_outside_git_is_an_error_with_a_remedy(tmp_path: Path) -> None:
    with pytest.raises(GitError) as caught:
        head_commit(tmp_path)
    assert isinstance(caught.value, CaesarError)
    assert caught.value.remedy


def test_is_ignored_follows_gitignore(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {".gitignore": "*.log\nbuild/\n", "a": "1\n"})
    assert is_ignored(root, "debug.log")
    assert is_ignored(root, "build/out.o")
    assert not is_ignored(root, "a")
    assert not is_ignored(root, "src/main.py")


def test_relative_paths_are_normalized_and_kept_inside() -> None:
    assert normalize_rel("./src//pkg/") == "src/pkg"
    assert normalize_rel(".") == ""
    with pytest.raises(GitError):
        normalize_rel("/etc/passwd")
    with pytest.raises(GitError):
        normalize_rel("src/../../x")


def test_prefix_semantics_are_on_path_components() -> None:
    assert is_under("node_modules/x/y", "node_modules")
    assert is_under("node_modules", "node_modules")
    assert not is_under("node_modules2/x", "node_modules")
    assert not is_under(".envrc", ".env")
