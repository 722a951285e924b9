"""Review comments on a real task's worktree: made on lines of the diff, refused off it with
the nearest lines, re-anchored when the code moves, outdated when it is gone, resolved; a
comments file edited into garbage reported and kept aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caesar_core.review.comments import (
    CommentRefused,
    CommentState,
    add_comment,
    open_comments_for_brief,
    read_comments,
    resolve_comment,
)
from caesar_core.store import TaskStore
from tests.runner.conftest import context, git, repo, run_json

__all__ = ["repo"]  # the fixture

BASE = "".join(f"line {n}\n" for n in range(1, 41))


def comments_file(store: TaskStore, task_id: str) -> Path:
    """Where caesar keeps a chain's comments: in its own state, not in the task directory."""
    return store.home / "state" / "comments" / f"{task_id}.json"


@pytest.fixture
def task(repo: Path) -> tuple[TaskStore, str, Path]:
    """A finished task whose worktree changed lines 20 and 21 of ``lines.txt``."""
    (repo / "lines.txt").write_text(BASE)
    git(repo, "add", "lines.txt")
    git(repo, "commit", "-qm", "lines")
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("quick"))
    assert out["_exit"] == 0, out["_stderr"]
    store = TaskStore(repo)
    task_id = str(out["task_id"])
    worktree = Path(store.get(task_id).worktree_path or "")
    text = BASE.replace("line 20\n", "line twenty\n").replace("line 21\n", "line 21b\n")
    (worktree / "lines.txt").write_text(text)
    return store, task_id, worktree


def test_a_comment_is_anchored_on_its_lines(task: tuple[TaskStore, str, Path]) -> None:
    store, task_id, _ = task
    added = add_comment(store, store.get(task_id), "lines.txt", 20, 21, "why?", author="ann")
    assert added.comment.anchor == ["line twenty", "line 21b"]
    [placed] = read_comments(store, store.get(task_id)).placed
    assert placed.state is CommentState.OPEN
    assert (placed.start_line, placed.end_line) == (20, 21)
    assert placed.code == ("line twenty", "line 21b")
    on_disk = json.loads(comments_file(store, task_id).read_text())
    assert on_disk["comments"][0]["text"] == "why?" and on_disk["comments"][0]["author"] == "ann"


def test_a_comment_follows_its_code_and_is_outdated_when_it_is_gone(
    task: tuple[TaskStore, str, Path],
) -> None:
    store, task_id, worktree = task
    add_comment(store, store.get(task_id), "lines.txt", 20, 20, "rename")
    # The agent adds three lines above: the comment moves with its line.
    text = (worktree / "lines.txt").read_text()
    (worktree / "lines.txt").write_text("new 1\nnew 2\nnew 3\n" + text)
    [placed] = read_comments(store, store.get(task_id)).placed
    assert (placed.state, placed.start_line, placed.moved) == (CommentState.OPEN, 23, True)
    # The same text twice: the copy nearest the old position wins.
    lines = (worktree / "lines.txt").read_text().splitlines(keepends=True)
    lines.insert(0, "line twenty\n")
    (worktree / "lines.txt").write_text("".join(lines))
    assert read_comments(store, store.get(task_id)).placed[0].start_line == 24
    # Its line gone: outdated, still shown with the text it was on.
    (worktree / "lines.txt").write_text("".join(lines).replace("line twenty\n", "line 20!\n"))
    [placed] = read_comments(store, store.get(task_id)).placed
    assert placed.state is CommentState.OUTDATED and placed.code == ("line twenty",)
    assert open_comments_for_brief(store, store.get(task_id)) == []


def test_off_the_diff_is_refused_with_the_nearest_range(task: tuple[TaskStore, str, Path]) -> None:
    store, task_id, _ = task
    record = store.get(task_id)
    with pytest.raises(CommentRefused) as refused:
        add_comment(store, record, "lines.txt", 2, 3, "here")
    assert "lines.txt:17-24" in refused.value.remedy
    with pytest.raises(CommentRefused) as refused:
        add_comment(store, record, "nothere.txt", 1, 1, "here")
    assert "lines.txt" in refused.value.reason and "--stat" in refused.value.remedy
    with pytest.raises(CommentRefused):
        add_comment(store, record, "lines.txt", 20, 20, "   ")
    assert not comments_file(store, task_id).exists()


def test_resolve(task: tuple[TaskStore, str, Path]) -> None:
    store, task_id, _ = task
    comment = add_comment(store, store.get(task_id), "lines.txt", 21, 21, "ok?").comment
    resolve_comment(store, store.get(task_id), comment.id)
    [placed] = read_comments(store, store.get(task_id)).placed
    assert placed.state is CommentState.RESOLVED
    with pytest.raises(CommentRefused) as refused:
        resolve_comment(store, store.get(task_id), "c_00000000")
    assert comment.id in refused.value.reason


@pytest.mark.parametrize(
    "garbage",
    [b"{not json", b'{"protocol": "caesar.comments/v1", "comments": [{"id": 3}]}', b"[" * 5000],
    ids=["not json", "wrong shape", "too deep"],
)
def test_a_garbage_file_is_reported_and_kept_aside(
    task: tuple[TaskStore, str, Path], garbage: bytes
) -> None:
    store, task_id, _ = task
    path = comments_file(store, task_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(garbage)
    read = read_comments(store, store.get(task_id))
    assert read.placed == () and read.problem
    assert f".caesar/state/comments/{task_id}.json" in read.problem
    assert path.read_bytes() == garbage
    with pytest.raises(CommentRefused):
        resolve_comment(store, store.get(task_id), "c_00000000")
    added = add_comment(store, store.get(task_id), "lines.txt", 20, 20, "fresh")
    assert added.set_aside == f".caesar/state/comments/{task_id}.json.refused-1"
    assert (store.root / added.set_aside).read_bytes() == garbage
    assert [p.comment.text for p in read_comments(store, store.get(task_id)).placed] == ["fresh"]


def test_a_link_in_place_of_the_file_is_not_followed(
    task: tuple[TaskStore, str, Path], tmp_path: Path
) -> None:
    store, task_id, _ = task
    outside = tmp_path / "outside.json"
    outside.write_text('{"protocol": "caesar.comments/v1", "comments": []}')
    comments_file(store, task_id).parent.mkdir(parents=True, exist_ok=True)
    comments_file(store, task_id).symlink_to(outside)
    assert read_comments(store, store.get(task_id)).problem
    add_comment(store, store.get(task_id), "lines.txt", 20, 20, "x")
    assert json.loads(outside.read_text())["comments"] == []
