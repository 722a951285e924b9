from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from caesar_core.git import (
    GitError,
    Snapshot,
    TreeDiff,
    changes_between,
    changes_since,
    create_worktree,
    link_leaves_repository,
    patch_digest,
    snapshot,
)
from caesar_core.protocol.report import ChangeAction
from tests.git import GIT_ENV, TASK_ID, commit_all, git, index_state, lines, make_repo, write

CREATED, MODIFIED, DELETED, RENAMED = (
    ChangeAction.CREATED,
    ChangeAction.MODIFIED,
    ChangeAction.DELETED,
    ChangeAction.RENAMED,
)


@pytest.fixture
def task(tmp_path: Path) -> tuple[Path, Path, str]:
    """A main repository and a task worktree created from it: (root, worktree, base)."""
    root = make_repo(
        tmp_path / "repo",
        {
            ".gitignore": ".caesar/\n*.log\nbuild/\n",
            "keep.txt": "unchanged\n",
            "committed.txt": lines(5),
            "staged.txt": lines(5),
            "unstaged.txt": lines(5),
            "doomed.txt": lines(5),
            "old/name.txt": lines(30, "moved"),
            "dir/gone/a.txt": "a\n",
            "dir/gone/b.txt": "b\n",
        },
    )
    worktree = root / ".caesar" / "wt" / TASK_ID
    base = create_worktree(root, worktree, "caesar/task-01234567")
    return root, worktree, base


def actions(diff: TreeDiff) -> dict[str, tuple[ChangeAction, str | None]]:
    return {change.path: (change.action, change.old_path) for change in diff.files}


def test_every_kind_of_work_shows_up(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "committed.txt", lines(5) + "committed line\n")
    commit_all(wt, "agent commit")
    write(wt, "staged.txt", lines(5) + "staged line\n")
    git(wt, "add", "staged.txt")
    write(wt, "unstaged.txt", "replaced first\n" + lines(5).split("\n", 1)[1])
    write(wt, "brand/new.txt", "untracked\n")
    write(wt, "debug.log", "ignored\n")
    write(wt, "build/out.bin", "ignored too\n")
    (wt / "doomed.txt").unlink()
    (wt / "new").mkdir()
    git(wt, "mv", "old/name.txt", "new/name.txt")
    write(wt, "new/name.txt", lines(30, "moved") + "and edited\n")
    (wt / "dir" / "gone" / "a.txt").unlink()
    (wt / "dir" / "gone" / "b.txt").unlink()

    diff = changes_since(wt, base)

    assert diff.base == base
    assert actions(diff) == {
        "committed.txt": (MODIFIED, None),
        "staged.txt": (MODIFIED, None),
        "unstaged.txt": (MODIFIED, None),
        "brand/new.txt": (CREATED, None),
        "doomed.txt": (DELETED, None),
        "new/name.txt": (RENAMED, "old/name.txt"),
        "dir/gone/a.txt": (DELETED, None),
        "dir/gone/b.txt": (DELETED, None),
    }
    assert [c.path for c in diff.files] == sorted(c.path for c in diff.files)
    by_path = {c.path: c for c in diff.files}
    assert (by_path["committed.txt"].additions, by_path["committed.txt"].deletions) == (1, 0)
    assert (by_path["unstaged.txt"].additions, by_path["unstaged.txt"].deletions) == (1, 1)
    assert by_path["doomed.txt"].deletions == 5
    assert by_path["new/name.txt"].additions == 1
    assert not diff.is_empty


def test_it_agrees_with_the_git_cli(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "committed.txt", "rewritten\n")
    commit_all(wt, "agent")
    write(wt, "staged.txt", "x\n")
    git(wt, "add", "-A")
    (wt / "doomed.txt").unlink()
    os.rename(wt / "old" / "name.txt", wt / "renamed.txt")
    write(wt, "fresh.txt", "new\n")

    letter = {CREATED: "A", MODIFIED: "M", DELETED: "D", RENAMED: "R"}
    ours = {(letter[c.action], c.old_path or c.path, c.path) for c in changes_since(wt, base).files}

    git(wt, "add", "-A", "-N")  # the witness may touch the index: ours is computed already
    theirs = set()
    for line in git(wt, "diff", "--name-status", "-M", base).splitlines():
        status, *paths = line.split("\t")
        theirs.add((status[0], paths[0], paths[-1]))
    assert ours == theirs


def test_work_committed_in_the_worktree_still_counts(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "feature.py", "def feature():\n    return 42\n")
    commit_all(wt, "first")
    write(wt, "keep.txt", "changed by a second commit\n")
    commit_all(wt, "second")
    assert git(wt, "status", "--porcelain") == ""
    assert git(wt, "rev-parse", "HEAD").strip() != base

    diff = changes_since(wt, base)
    assert actions(diff) == {"feature.py": (CREATED, None), "keep.txt": (MODIFIED, None)}


def test_nothing_changed_is_empty(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    diff = changes_since(wt, base, with_patch=True)
    assert diff.is_empty and diff.files == [] and diff.patch == ""


def test_exclusions_use_prefix_semantics_and_caesar_is_always_out(
    task: tuple[Path, Path, str],
) -> None:
    _, wt, base = task
    for rel in (
        "node_modules/x/y.js",
        "node_modules2/z.js",
        ".env",
        ".envrc",
        "pkg/secret/key.pem",
        "pkg/public.txt",
        ".caesar/tasks/notes.txt",
    ):
        write(wt, rel, f"content of {rel}\n")
    write(wt, "keep.txt", "edited\n")

    diff = changes_since(wt, base, exclude=["node_modules", ".env", "pkg/secret/"])
    assert set(actions(diff)) == {"keep.txt", "node_modules2/z.js", "pkg/public.txt", ".envrc"}


def test_excluded_files_are_never_read_into_the_object_store(
    task: tuple[Path, Path, str],
) -> None:
    _, wt, base = task
    secret = "API_KEY=never-store-me-5b1e\n"
    write(wt, ".env", secret)
    write(wt, "config/.env", secret + "nested\n")
    write(wt, "visible.txt", "fine\n")
    diff = changes_since(wt, base, exclude=[".env", "config/.env"])
    assert [c.path for c in diff.files] == ["visible.txt"]
    for content in (secret, secret + "nested\n"):
        blob = subprocess.run(
            ["git", "hash-object", "--stdin"],
            input=content,
            capture_output=True,
            text=True,
            check=True,
            env=GIT_ENV,
        ).stdout.strip()
        missing = subprocess.run(
            ["git", "cat-file", "-e", blob], cwd=wt, env=GIT_ENV, capture_output=True, check=False
        )
        assert missing.returncode != 0


def test_an_excluded_tracked_file_that_changed_is_left_out(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "keep.txt", "edited but excluded\n")
    commit_all(wt, "agent touched an excluded file")
    write(wt, "staged.txt", "edited\n")
    diff = changes_since(wt, base, exclude=["keep.txt"], with_patch=True)
    assert [c.path for c in diff.files] == ["staged.txt"]
    assert "keep.txt" not in diff.patch


def test_the_worktree_index_and_files_are_left_byte_identical(
    task: tuple[Path, Path, str],
) -> None:
    _, wt, base = task
    write(wt, "staged.txt", "staged\n")
    git(wt, "add", "staged.txt")
    write(wt, "unstaged.txt", "unstaged\n")
    write(wt, "untracked.txt", "untracked\n")
    (wt / "doomed.txt").unlink()
    before_status = git(wt, "status", "--porcelain")  # git may refresh its index: first
    before_index = index_state(wt)
    before_files = {
        p: p.read_bytes() for p in wt.rglob("*") if p.is_file() and ".git" not in p.parts
    }

    changes_since(wt, base, with_patch=True)
    snapshot(wt)

    assert index_state(wt) == before_index
    assert git(wt, "status", "--porcelain") == before_status
    assert git(wt, "diff", "--cached", "--name-only") == "staged.txt\n"
    after_files = {
        p: p.read_bytes() for p in wt.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    assert after_files == before_files


def test_paths_restrict_with_prefix_semantics(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "src/a.py", "a\n")
    write(wt, "src2/b.py", "b\n")
    write(wt, "keep.txt", "edited\n")
    (wt / "doomed.txt").unlink()
    diff = changes_since(wt, base, paths=["src", "doomed.txt"], with_patch=True)
    assert sorted(actions(diff)) == ["doomed.txt", "src/a.py"]
    assert "keep.txt" not in diff.patch and "src2" not in diff.patch
    everything = changes_since(wt, base, paths=["."])
    assert len(everything.files) == 4


def test_binary_files_are_flagged_and_marked_in_the_patch(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "image.png", bytes(range(256)) * 4)
    diff = changes_since(wt, base, with_patch=True)
    (change,) = diff.files
    assert change.binary and change.action is CREATED
    assert "Binary files" in diff.patch and "differ" in diff.patch


def test_the_patch_applies_with_git_apply_on_the_base(
    task: tuple[Path, Path, str], tmp_path: Path
) -> None:
    root, wt, base = task
    write(wt, "committed.txt", lines(5) + "more\n")
    commit_all(wt, "agent")
    write(wt, "unstaged.txt", "rewritten\n")
    write(wt, "brand/new.txt", "hello\n")
    (wt / "doomed.txt").unlink()
    (wt / "new").mkdir()
    git(wt, "mv", "old/name.txt", "new/name.txt")
    diff = changes_since(wt, base, with_patch=True)
    assert "rename from old/name.txt" in diff.patch

    check = tmp_path / "check"
    git(root, "worktree", "add", "-q", "--detach", str(check), base)
    (tmp_path / "task.patch").write_text(diff.patch)
    git(check, "apply", "--index", str(tmp_path / "task.patch"))
    assert git(check, "write-tree").strip() == diff.tree


def test_patch_digest_is_stable_and_content_sensitive(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "keep.txt", "one\n")
    first = changes_since(wt, base, with_patch=True).patch
    assert patch_digest(first) == patch_digest(changes_since(wt, base, with_patch=True).patch)
    write(wt, "keep.txt", "two\n")
    assert patch_digest(first) != patch_digest(changes_since(wt, base, with_patch=True).patch)
    assert len(patch_digest("")) == 64


def test_names_with_glob_characters_and_deleted_top_level_entries(
    task: tuple[Path, Path, str],
) -> None:
    _, wt, base = task
    for rel in ("a*b/x.txt", "[br]/y.txt", "q?x.txt", "!bang.txt", "#hash/z.txt", "sp ace.txt"):
        write(wt, rel, f"{rel}\n")
    (wt / "keep.txt").unlink()
    diff = changes_since(wt, base, exclude=["other"])
    assert actions(diff) == {
        "a*b/x.txt": (CREATED, None),
        "[br]/y.txt": (CREATED, None),
        "q?x.txt": (CREATED, None),
        "!bang.txt": (CREATED, None),
        "#hash/z.txt": (CREATED, None),
        "sp ace.txt": (CREATED, None),
        "keep.txt": (DELETED, None),
    }


def test_a_file_turned_into_a_symlink_is_a_modification(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    (wt / "keep.txt").unlink()
    (wt / "keep.txt").symlink_to("committed.txt")
    assert actions(changes_since(wt, base)) == {"keep.txt": (MODIFIED, None)}


def test_an_unknown_base_is_an_error_with_a_remedy(task: tuple[Path, Path, str]) -> None:
    _, wt, _ = task
    with pytest.raises(GitError) as caught:
        changes_since(wt, "0" * 40)
    assert caught.value.remedy


def test_snapshot_then_changes_between_for_in_place_work(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {".gitignore": "*.log\n", "a.txt": "a\n", "gone.txt": lines(3), "big.txt": lines(20)},
    )
    write(root, "dirty-before.txt", "the user's own uncommitted work\n")
    write(root, "a.txt", "a, edited by the user before the task\n")
    write(root, ".caesar/state/record.json", "{}\n")
    start = snapshot(root)
    assert isinstance(start, Snapshot) and len(start.tree) == 40
    assert changes_between(root, start).is_empty

    write(root, "a.txt", "a, edited by the task\n")
    write(root, "task-new.txt", "new\n")
    write(root, "noise.log", "ignored\n")
    write(root, ".caesar/tasks/t/events.jsonl", "{}\n")
    (root / "gone.txt").unlink()
    os.rename(root / "big.txt", root / "moved.txt")

    diff = changes_between(root, start, with_patch=True)
    assert diff.base == start.tree
    assert actions(diff) == {
        "a.txt": (MODIFIED, None),
        "task-new.txt": (CREATED, None),
        "gone.txt": (DELETED, None),
        "moved.txt": (RENAMED, "big.txt"),
    }
    assert "the user's own uncommitted work" not in diff.patch


def test_snapshot_works_before_the_first_commit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": "a\n"}, commit=False)
    start = snapshot(root)
    write(root, "b.txt", "b\n")
    assert actions(changes_between(root, start)) == {"b.txt": (CREATED, None)}


def test_a_pruned_snapshot_is_an_error(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    with pytest.raises(GitError, match="object store"):
        changes_between(root, Snapshot("1" * 40))


def test_attributes_still_normalize_what_is_stored(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {".gitattributes": "*.txt text\n", "a.txt": "a\n"})
    wt = root / ".caesar" / "wt" / TASK_ID
    base = create_worktree(root, wt, "caesar/crlf-01234567")
    write(wt, "new.txt", b"one\r\ntwo\r\n")
    write(wt, "raw.bin", b"one\r\ntwo\r\n")
    diff = changes_since(wt, base)
    assert git(wt, "cat-file", "-p", f"{diff.tree}:new.txt") == "one\ntwo\n"
    stored = subprocess.run(
        ["git", "cat-file", "-p", f"{diff.tree}:raw.bin"], cwd=wt, capture_output=True, check=True
    ).stdout
    assert stored == b"one\r\ntwo\r\n"


def test_a_worktree_stuck_in_a_merge_conflict_is_read_as_it_is(
    task: tuple[Path, Path, str],
) -> None:
    _, wt, base = task
    git(wt, "checkout", "-q", "-b", "other")
    write(wt, "keep.txt", "theirs\n")
    commit_all(wt, "other side")
    git(wt, "checkout", "-q", "caesar/task-01234567")
    write(wt, "keep.txt", "ours\n")
    commit_all(wt, "our side")
    merge = subprocess.run(
        ["git", "merge", "other"], cwd=wt, env=GIT_ENV, capture_output=True, check=False
    )
    assert merge.returncode != 0 and "U" in git(wt, "status", "--porcelain")[:2]
    diff = changes_since(wt, base, with_patch=True)
    assert actions(diff) == {"keep.txt": (MODIFIED, None)}
    assert "<<<<<<<" in diff.patch


def test_a_nested_repository_is_not_content(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    nested = wt / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, "inner.txt", "belongs to another repository\n")
    write(wt, "vendor/notes.txt", "ours\n")
    assert actions(changes_since(wt, base)) == {"vendor/notes.txt": (CREATED, None)}


def test_in_place_snapshot_skips_task_worktrees_under_caesar(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": "a\n"})  # .caesar/ is not even ignored
    start = snapshot(root)
    wt = root / ".caesar" / "wt" / TASK_ID
    create_worktree(root, wt, "caesar/x-01234567")
    write(wt, "agent.txt", "inside a worktree\n")
    write(root, ".caesar/state/x.json", "{}\n")
    write(root, "b.txt", "b\n")
    assert actions(changes_between(root, start)) == {"b.txt": (CREATED, None)}


@pytest.mark.parametrize(
    ("path", "target", "outside"),
    [
        ("link", "edit.txt", False),
        ("deep/link", "../edit.txt", False),
        ("deep/link", "../../x", True),
        ("link", "..", True),
        ("link", "/etc/passwd", True),
        ("a/b/link", "../../c/../d", False),
        ("link", "", True),
    ],
)
def test_which_link_targets_leave_the_repository(path: str, target: str, outside: bool) -> None:
    assert link_leaves_repository(path, target) is outside


def test_links_are_listed_with_their_target(task: tuple[Path, Path, str], tmp_path: Path) -> None:
    _, wt, base = task
    (wt / "keys").symlink_to(tmp_path / ".ssh")
    (wt / "near").symlink_to("edit.txt")
    write(wt, "plain.txt", "x\n")

    diff = changes_since(wt, base)

    found = {f.path: (f.link_target, f.link_outside) for f in diff.files}
    assert found == {
        "keys": (str(tmp_path / ".ssh"), True),
        "near": ("edit.txt", False),
        "plain.txt": (None, False),
    }
    assert [f.path for f in diff.outside_links] == ["keys"]


def test_each_file_carries_its_own_section_of_the_patch(task: tuple[Path, Path, str]) -> None:
    """Spans, checked by the git CLI: each file's section alone is a patch of that file only
    (``git apply --numstat``), with its counts; together they are the whole patch, in order."""
    _, wt, base = task
    write(wt, "committed.txt", lines(5) + "more\n")
    write(wt, "sp ace/ünï code.txt", "quoted by git\n")
    write(wt, "image.png", bytes(range(256)) * 4)
    (wt / "doomed.txt").unlink()
    (wt / "new").mkdir()
    git(wt, "mv", "old/name.txt", "new/name.txt")
    (wt / "keep.txt").unlink()
    (wt / "keep.txt").symlink_to("committed.txt")
    diff = changes_since(wt, base, with_patch=True)
    assert len(diff.files) == 6

    spans = sorted((c.span for c in diff.files if c.span is not None), key=lambda s: s.start)
    assert len(spans) == len(diff.files)
    assert [s.start for s in spans] == [0, *(s.end for s in spans[:-1])]
    assert spans[-1].end == len(diff.patch)
    assert [s.first_line for s in spans] == [0, *(s.first_line + s.line_count for s in spans[:-1])]
    every_line = diff.patch.split("\n")
    for change in diff.files:
        assert change.span is not None
        section = diff.patch[change.span.start : change.span.end]
        assert section.startswith("diff --git ")
        shown = every_line[change.span.first_line : change.span.first_line + change.span.line_count]
        assert "\n".join(shown) + "\n" == section
        numstat = subprocess.run(
            ["git", "apply", "--numstat", "-z"],
            cwd=wt,
            input=section.encode("utf-8", "surrogateescape"),
            capture_output=True,
            check=True,
        ).stdout.decode()
        added, deleted, *names = numstat.rstrip("\0").split("\t", 2)
        paths = names[0].strip("\0").split("\0")
        assert paths[-1] == change.path
        if change.old_path:  # a pure rename's numstat names the new path only
            assert f"rename from {change.old_path}\n" in section
        if change.binary:
            assert (added, deleted) == ("-", "-")
        else:
            assert (int(added), int(deleted)) == (change.additions, change.deletions)


def test_without_the_patch_no_file_has_a_span(task: tuple[Path, Path, str]) -> None:
    _, wt, base = task
    write(wt, "keep.txt", "changed\n")
    (change,) = changes_since(wt, base).files
    assert change.span is None
