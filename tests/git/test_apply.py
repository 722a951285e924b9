from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core.git import (
    DamagedWorktreeError,
    GitError,
    LocalChangesError,
    OutsideLinksError,
    apply_changes,
    changes_since,
    create_worktree,
    patch_digest,
    unapplied_changes,
    unapplied_work,
)
from tests.git import TASK_ID, commit_all, git, index_state, lines, make_repo, tree_bytes, write


@pytest.fixture
def task(tmp_path: Path) -> tuple[Path, Path, str]:
    """(main root, task worktree, base) with a few files of each kind in the base."""
    root = make_repo(
        tmp_path / "repo",
        {
            ".gitignore": ".caesar/\n*.log\n",
            "edit.txt": lines(10),
            "remove.txt": lines(3),
            "move/from.txt": lines(30, "moving"),
            "shared.txt": lines(10, "shared"),
            "tool.sh": "#!/bin/sh\necho hi\n",
            "untouched.txt": "same\n",
        },
    )
    worktree = root / ".caesar" / "wt" / TASK_ID
    base = create_worktree(root, worktree, "caesar/task-01234567")
    return root, worktree, base


def agent_work(wt: Path) -> None:
    """Created, modified, deleted, renamed, executable and symlink changes, half committed."""
    write(wt, "edit.txt", lines(10).replace("line 4 ", "LINE FOUR "))
    (wt / "remove.txt").unlink()
    commit_all(wt, "agent: first half")
    (wt / "moved").mkdir()
    git(wt, "mv", "move/from.txt", "moved/to.txt")
    write(wt, "moved/to.txt", lines(30, "moving") + "one more line\n")
    write(wt, "brand/new.txt", "created by the agent\n")
    os.chmod(wt / "tool.sh", 0o755)
    (wt / "link").symlink_to("edit.txt")


def test_clean_apply_writes_files_only(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    agent_work(wt)
    head = git(root, "rev-parse", "HEAD").strip()
    index_before = index_state(root)

    result = apply_changes(root, wt, base)

    assert result.applied and result.conflicts == []
    assert result.files == sorted(
        [
            "brand/new.txt",
            "edit.txt",
            "link",
            "move/from.txt",
            "moved/to.txt",
            "remove.txt",
            "tool.sh",
        ]
    )
    assert result.digest == patch_digest(changes_since(wt, base, with_patch=True).patch)
    assert (root / "edit.txt").read_text() == (wt / "edit.txt").read_text()
    assert not (root / "remove.txt").exists()
    assert not (root / "move").exists()  # emptied directories go, as git would leave them
    assert (root / "moved" / "to.txt").read_text().endswith("one more line\n")
    assert (root / "brand" / "new.txt").read_text() == "created by the agent\n"
    assert os.access(root / "tool.sh", os.X_OK)
    assert os.readlink(root / "link") == "edit.txt"
    assert git(root, "rev-parse", "HEAD").strip() == head  # nothing committed
    assert index_state(root) == index_before  # the index untouched
    assert git(root, "diff", "--cached", "--name-only") == ""
    status = git(root, "status", "--porcelain")
    assert " M edit.txt" in status and " D remove.txt" in status and "?? brand/" in status


def test_apply_when_main_moved_on_elsewhere_is_three_way(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(root, "shared.txt", "a new first line from main\n" + lines(10, "shared"))
    write(root, "main-only.txt", "main went on\n")
    commit_all(root, "main moves on")
    write(wt, "shared.txt", lines(10, "shared") + "a new last line from the task\n")
    write(wt, "edit.txt", "the task's edit\n")
    commit_all(wt, "task")

    result = apply_changes(root, wt, base)

    assert result.applied and result.written == ["edit.txt", "shared.txt"]
    shared = (root / "shared.txt").read_text()
    assert shared.startswith("a new first line from main\n")
    assert shared.endswith("a new last line from the task\n")
    assert (root / "main-only.txt").read_text() == "main went on\n"


def test_apply_into_a_rename_made_on_main(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    git(root, "mv", "move/from.txt", "elsewhere.txt")
    commit_all(root, "main renames")
    write(wt, "move/from.txt", lines(30, "moving") + "task edit\n")

    result = apply_changes(root, wt, base)

    assert result.applied
    assert (root / "elsewhere.txt").read_text().endswith("task edit\n")


def test_conflict_writes_nothing(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(root, "edit.txt", "main's version\n")
    commit_all(root, "main edits")
    write(wt, "edit.txt", "the task's version\n")
    write(wt, "clean-addition.txt", "would apply alone\n")
    before = tree_bytes(root)
    index_before = index_state(root)

    result = apply_changes(root, wt, base)

    assert not result.applied
    assert result.conflicts == ["edit.txt"]
    assert result.digest is None and result.written == []
    assert tree_bytes(root) == before
    assert index_state(root) == index_before


def test_local_changes_on_a_touched_file_refuse_everything(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "edit.txt", "task\n")
    write(wt, "brand/new.txt", "task\n")
    write(wt, "untouched-by-user.txt", "task\n")
    write(root, "edit.txt", "the user's unsaved work\n")
    before = tree_bytes(root)

    with pytest.raises(LocalChangesError) as caught:
        apply_changes(root, wt, base)

    assert caught.value.paths == ["edit.txt"]
    assert "edit.txt" in caught.value.reason and caught.value.remedy
    assert tree_bytes(root) == before


@pytest.mark.parametrize("kind", ["staged", "untracked", "ignored"])
def test_staged_or_untracked_files_in_the_way_refuse(
    task: tuple[Path, Path, str], kind: str
) -> None:
    root, wt, base = task
    target = {"staged": "edit.txt", "untracked": "brand/new.txt", "ignored": "out.log"}[kind]
    write(wt, target, "from the task\n")
    if kind == "ignored":  # the agent force-adds a file the repository ignores
        git(wt, "add", "-f", target)
        commit_all(wt, "force-added")
    write(root, target, "the user's\n")
    if kind == "staged":
        git(root, "add", target)
    before = tree_bytes(root)

    with pytest.raises(LocalChangesError) as caught:
        apply_changes(root, wt, base)

    assert caught.value.paths == [target]
    assert tree_bytes(root) == before


def test_a_file_in_the_way_of_a_new_directory_refuses(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "notes/today.txt", "task\n")
    write(root, "notes", "an untracked file where the task needs a directory\n")
    with pytest.raises(LocalChangesError) as caught:
        apply_changes(root, wt, base)
    assert "notes" in caught.value.paths


def test_local_changes_elsewhere_do_not_matter(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(root, "untouched.txt", "the user's own edit\n")
    write(wt, "edit.txt", "task\n")
    result = apply_changes(root, wt, base)
    assert result.applied and result.written == ["edit.txt"]
    assert (root / "untouched.txt").read_text() == "the user's own edit\n"


def test_paths_subset_applies_only_those(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    agent_work(wt)
    result = apply_changes(root, wt, base, paths=["brand", "edit.txt"])
    assert result.applied
    assert result.written == ["brand/new.txt", "edit.txt"]
    assert (root / "remove.txt").exists()
    assert (root / "move" / "from.txt").exists()
    assert not (root / "link").exists()
    assert result.digest == patch_digest(
        changes_since(wt, base, paths=["brand", "edit.txt"], with_patch=True).patch
    )


def test_an_empty_change_set_applies_nothing(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    before = tree_bytes(root)
    result = apply_changes(root, wt, base)
    assert result.applied and result.files == [] and result.written == []
    assert tree_bytes(root) == before


def test_exclusions_are_not_applied(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, ".env", "SECRET=1\n")
    write(wt, "edit.txt", "task\n")
    result = apply_changes(root, wt, base, exclude=[".env"])
    assert result.written == ["edit.txt"]
    assert not (root / ".env").exists()


def test_unapplied_work_sees_committed_work_and_the_applied_digest(
    task: tuple[Path, Path, str],
) -> None:
    root, wt, base = task
    assert not unapplied_work(root, wt, base, None)
    write(wt, "edit.txt", "committed but never applied\n")
    commit_all(wt, "agent commits")
    assert git(wt, "status", "--porcelain") == ""  # `git status` alone would call it clean
    assert unapplied_work(root, wt, base, None)

    result = apply_changes(root, wt, base)
    assert not unapplied_work(root, wt, base, result.digest)

    write(wt, "later.txt", "work after the apply\n")
    assert unapplied_work(root, wt, base, result.digest)


def test_unapplied_work_after_a_partial_apply(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "edit.txt", "one\n")
    write(wt, "brand/new.txt", "two\n")
    partial = apply_changes(root, wt, base, paths=["edit.txt"])
    assert unapplied_work(root, wt, base, partial.digest)


def test_unapplied_work_of_a_missing_or_unreadable_worktree(
    task: tuple[Path, Path, str], tmp_path: Path
) -> None:
    root, wt, base = task
    assert not unapplied_work(root, tmp_path / "gone", base, None)
    (wt / ".git").unlink()
    write(wt, "edit.txt", "can no longer be inspected\n")
    assert unapplied_work(root, wt, base, None)


def test_a_second_apply_writes_nothing_and_names_what_is_already_there(
    task: tuple[Path, Path, str],
) -> None:
    root, wt, base = task
    agent_work(wt)
    first = apply_changes(root, wt, base)

    second = apply_changes(root, wt, base)

    assert second.applied and second.written == []
    assert second.already == first.written
    assert second.digest == first.digest


def test_a_partly_reverted_apply_writes_only_what_is_missing(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    agent_work(wt)
    apply_changes(root, wt, base)
    git(root, "checkout", "--", "edit.txt")

    again = apply_changes(root, wt, base)

    assert again.written == ["edit.txt"]
    assert "brand/new.txt" in again.already and "edit.txt" not in again.already


def test_an_empty_selected_path_is_refused(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    agent_work(wt)
    for paths in ([""], ["edit.txt", " "]):
        with pytest.raises(GitError, match="empty path") as caught:
            apply_changes(root, wt, base, paths=paths)
        assert caught.value.exit_code == 2
    assert not (root / "brand").exists()


def test_links_out_of_the_repository_are_refused_unless_allowed(
    task: tuple[Path, Path, str], tmp_path: Path
) -> None:
    root, wt, base = task
    (wt / "keys").symlink_to(tmp_path / ".ssh")
    (wt / "up").symlink_to("../../../etc")
    (wt / "fine").symlink_to("edit.txt")

    with pytest.raises(OutsideLinksError) as caught:
        apply_changes(root, wt, base)

    assert [path for path, _ in caught.value.links] == ["keys", "up"]
    assert not os.path.lexists(root / "fine")
    assert apply_changes(root, wt, base, paths=["fine"]).written == ["fine"]
    allowed = apply_changes(root, wt, base, allow_outside_links=True)
    assert sorted(allowed.written) == ["keys", "up"]
    assert os.readlink(root / "keys") == str(tmp_path / ".ssh")


def test_a_garbage_worktree_index_is_a_damaged_worktree(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "edit.txt", "work\n")
    admin = Path((wt / ".git").read_text().removeprefix("gitdir:").strip())
    (admin / "index").write_bytes(os.urandom(4096))

    with pytest.raises(DamagedWorktreeError, match="cannot be read") as caught:
        apply_changes(root, wt, base)
    assert str(admin / "index") in caught.value.remedy
    with pytest.raises(DamagedWorktreeError):
        unapplied_changes(root, wt, base, None)
    assert unapplied_work(root, wt, base, None)  # never judged clean
