from __future__ import annotations

import os
import stat
from pathlib import Path

import pygit2
import pytest

from caesar_core.errors import ExitCode
from caesar_core.git import (
    GitError,
    branch_name,
    create_worktree,
    list_worktrees,
    remove_worktree,
)
from caesar_core.git.checkout import checkout_files, filters_are_noops
from tests.git import TASK_ID, git, index_state, make_repo, tree_bytes, write

BRANCH = "caesar/fix-it-01234567"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            ".gitignore": ".caesar/\n",
            "README.md": "# demo\n",
            "src/app.py": "print('hi')\n",
            "src/deep/nested/file.txt": "deep\n",
            "bin/run": "#!/bin/sh\necho run\n",
        },
    )


def test_branch_name_slugs_the_label_and_keeps_eight_id_characters() -> None:
    assert branch_name("Fix the Login bug!", TASK_ID) == "caesar/fix-the-login-bug-01234567"
    assert branch_name("  --Ünïcode__and  spaces--  ", TASK_ID) == (
        "caesar/n-code-and-spaces-01234567"
    )
    assert branch_name("!!!", TASK_ID) == "caesar/task-01234567"
    long = branch_name("a" * 39 + " b" * 20, TASK_ID)
    slug = long.removeprefix("caesar/").removesuffix("-01234567")
    assert len(slug) <= 40 and not slug.endswith("-")
    for label in ("x.lock", "a..b", "@{weird}", "tab\there", "end."):
        name = branch_name(label, TASK_ID)
        assert pygit2.reference_is_valid_name(f"refs/heads/{name}")


def test_create_worktree_at_head_on_a_new_branch(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    main_index = index_state(repo)
    main_files = tree_bytes(repo)
    dest = repo / ".caesar" / "wt" / TASK_ID

    base = create_worktree(repo, dest, BRANCH)

    assert base == head
    assert tree_bytes(dest) == main_files
    assert git(dest, "rev-parse", "HEAD").strip() == head
    assert git(dest, "rev-parse", "--abbrev-ref", "HEAD").strip() == BRANCH
    assert git(dest, "status", "--porcelain") == ""
    assert os.access(dest / "bin" / "run", os.X_OK) == os.access(repo / "bin" / "run", os.X_OK)
    assert str(dest) in git(repo, "worktree", "list")
    assert (repo / ".git" / "worktrees" / TASK_ID).is_dir()
    assert index_state(repo) == main_index
    assert tree_bytes(repo) == main_files
    assert git(repo, "status", "--porcelain") == ""


def test_worktree_of_an_unborn_repository_is_refused_with_a_remedy(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": "1\n"}, commit=False)
    dest = root / ".caesar" / "wt" / TASK_ID
    with pytest.raises(GitError) as caught:
        create_worktree(root, dest, BRANCH)
    assert "first commit" in caught.value.remedy
    assert caught.value.exit_code == ExitCode.USAGE
    assert not dest.exists()


def test_existing_branch_or_occupied_destination_is_refused_and_nothing_left(repo: Path) -> None:
    git(repo, "branch", BRANCH)
    with pytest.raises(GitError, match="already exists"):
        create_worktree(repo, repo / ".caesar" / "wt" / "a", BRANCH)
    git(repo, "branch", "-D", BRANCH)
    occupied = write(repo, ".caesar/wt/b/keep.txt", "mine\n").parent
    with pytest.raises(GitError, match="not an empty directory"):
        create_worktree(repo, occupied, BRANCH)
    assert (occupied / "keep.txt").read_text() == "mine\n"
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert list_worktrees(repo) == []


def test_a_failure_midway_undoes_the_branch_and_the_admin_entry(repo: Path) -> None:
    not_a_dir = write(repo, ".caesar/file", "a file where a directory should be\n")
    with pytest.raises(GitError, match="could not create the worktree"):
        create_worktree(repo, not_a_dir / "wt", BRANCH)
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert not (repo / ".git" / "worktrees" / "wt").exists()
    assert not_a_dir.read_text() == "a file where a directory should be\n"


def test_fast_and_filtered_checkouts_write_the_same_files(repo: Path, tmp_path: Path) -> None:
    commit = pygit2.Repository(str(repo)).head.peel(pygit2.Commit)
    results = []
    for fast in (True, False):
        dest = tmp_path / f"wt-{fast}"
        git(repo, "worktree", "add", "-q", "--no-checkout", "-b", f"b{fast}", str(dest))
        worktree = pygit2.Repository(str(dest))
        tree = worktree[commit.tree.id]
        assert isinstance(tree, pygit2.Tree)
        checkout_files(worktree, tree, fast=fast)
        assert git(dest, "status", "--porcelain") == ""
        results.append(tree_bytes(dest))
    assert results[0] == results[1]


def test_attributes_turn_filters_on_and_are_honoured(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo", {".gitattributes": "*.txt text eol=crlf\n", "a.txt": "one\ntwo\n"}
    )
    repo = pygit2.Repository(str(root))
    assert not filters_are_noops(repo, repo.head.peel(pygit2.Tree))
    dest = root / ".caesar" / "wt" / "crlf"
    create_worktree(root, dest, BRANCH)
    assert (dest / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert git(dest, "status", "--porcelain") == ""


def test_a_plain_tree_needs_no_filters(repo: Path) -> None:
    opened = pygit2.Repository(str(repo))
    assert filters_are_noops(opened, opened.head.peel(pygit2.Tree))


def test_remove_worktree_removes_directory_admin_and_branch_idempotently(repo: Path) -> None:
    dest = repo / ".caesar" / "wt" / TASK_ID
    create_worktree(repo, dest, BRANCH)
    write(dest, "scratch/new.txt", "agent output\n")
    remove_worktree(repo, dest, BRANCH)
    assert not dest.exists()
    assert not (repo / ".git" / "worktrees" / TASK_ID).exists()
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert str(dest) not in git(repo, "worktree", "list")
    remove_worktree(repo, dest, BRANCH)  # nothing left: still fine
    remove_worktree(repo, dest, None)


def test_remove_worktree_never_follows_symlinks_out(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "precious"
    write(outside, "keep/me.txt", "do not delete\n")
    dest = repo / ".caesar" / "wt" / TASK_ID
    create_worktree(repo, dest, BRANCH)
    (dest / "linked-dir").symlink_to(outside, target_is_directory=True)
    (dest / "linked-file").symlink_to(outside / "keep" / "me.txt")
    (dest / "src" / "nested-link").symlink_to(outside / "keep")
    remove_worktree(repo, dest, BRANCH)
    assert not dest.exists()
    assert (outside / "keep" / "me.txt").read_text() == "do not delete\n"


def test_remove_worktree_gets_through_read_only_directories(repo: Path) -> None:
    dest = repo / ".caesar" / "wt" / TASK_ID
    create_worktree(repo, dest, BRANCH)
    locked = write(dest, "locked/inner/file.txt", "x\n").parent
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    locked.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    remove_worktree(repo, dest, BRANCH)
    assert not dest.exists()


def test_remove_worktree_keeps_the_branch_when_asked(repo: Path) -> None:
    dest = repo / ".caesar" / "wt" / TASK_ID
    create_worktree(repo, dest, BRANCH)
    remove_worktree(repo, dest, BRANCH, delete_branch=False)
    assert not dest.exists()
    assert git(repo, "branch", "--list", BRANCH).strip().endswith(BRANCH)


def test_remove_worktree_refuses_what_is_not_a_worktree(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="holds the repository"):
        remove_worktree(repo, repo, None)
    with pytest.raises(GitError, match="holds the repository"):
        remove_worktree(repo, tmp_path, None)
    stranger = write(tmp_path / "stranger", "notes.txt", "mine\n").parent
    with pytest.raises(GitError, match="not a worktree"):
        remove_worktree(repo, stranger, None)
    assert (stranger / "notes.txt").exists()


def test_remove_worktree_whose_dot_git_the_agent_deleted(repo: Path) -> None:
    dest = repo / ".caesar" / "wt" / TASK_ID
    create_worktree(repo, dest, BRANCH)
    (dest / ".git").unlink()
    remove_worktree(repo, dest, BRANCH)
    assert not dest.exists()
    assert list_worktrees(repo) == []


def test_list_worktrees_reports_branch_and_orphans(repo: Path) -> None:
    first = repo / ".caesar" / "wt" / "one"
    second = repo / ".caesar" / "wt" / "two"
    create_worktree(repo, first, "caesar/one-00000001")
    create_worktree(repo, second, "caesar/two-00000002")
    git(second, "checkout", "-q", "--detach")
    listed = {info.name: info for info in list_worktrees(repo)}
    assert set(listed) == {"one", "two"}
    assert listed["one"].path == first.resolve()
    assert listed["one"].branch == "caesar/one-00000001"
    assert listed["two"].branch is None
    assert not listed["one"].prunable

    os.rename(first, repo / "moved-away")
    orphan = {info.name: info for info in list_worktrees(repo)}["one"]
    assert orphan.prunable


def test_an_existing_empty_destination_is_used(repo: Path) -> None:
    dest = repo / ".caesar" / "wt" / "empty"
    dest.mkdir(parents=True)
    create_worktree(repo, dest, BRANCH)
    assert (dest / "README.md").read_text() == "# demo\n"
