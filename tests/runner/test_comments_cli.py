"""``caesar comment`` and ``caesar comments`` through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caesar_core.store import TaskStore
from tests.runner.conftest import caesar, context, git, run_json

BASE = "".join(f"line {n}\n" for n in range(1, 41))


@pytest.fixture
def task(repo: Path) -> tuple[str, Path]:
    (repo / "lines.txt").write_text(BASE)
    git(repo, "add", "lines.txt")
    git(repo, "commit", "-qm", "lines")
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("quick"))
    assert out["_exit"] == 0, out["_stderr"]
    task_id = str(out["task_id"])
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    (worktree / "lines.txt").write_text(BASE.replace("line 20\n", "line \x1b[31mtwenty\n"))
    return task_id, worktree


def test_comment_list_and_resolve(repo: Path, task: tuple[str, Path]) -> None:
    task_id, worktree = task
    done = caesar(repo, "comment", task_id, "lines.txt:20", "no \x1b]0;colour\x07 here")
    assert done.returncode == 0, done.stderr
    comment_id = done.stdout.split()[0]
    assert comment_id.startswith("c_") and "lines.txt:20" in done.stdout
    shown = caesar(repo, "comments", task_id)
    assert shown.returncode == 0, shown.stderr
    assert f"{comment_id}  open" in shown.stdout and "lines.txt:20" in shown.stdout
    assert "| line \\x1b[31mtwenty" in shown.stdout and "\x1b" not in shown.stdout
    # The agent adds two lines above: the comment moved with its line.
    (worktree / "lines.txt").write_text("a\nb\n" + (worktree / "lines.txt").read_text())
    listed = json.loads(caesar(repo, "comments", task_id, "--json").stdout)
    [item] = listed["comments"]
    assert (item["state"], item["start_line"], item["made_at_lines"]) == ("open", 22, [20, 20])
    assert item["text"] == "no \x1b]0;colour\x07 here" and listed["problem"] is None
    done = caesar(repo, "comment", task_id, "--resolve", comment_id)
    assert done.returncode == 0 and f"resolved {comment_id}" in done.stdout
    assert "resolved" in caesar(repo, "comments", task_id).stdout


def test_refusals(repo: Path, task: tuple[str, Path]) -> None:
    task_id, _ = task
    off = caesar(repo, "comment", task_id, "lines.txt:2-3", "here")
    assert off.returncode == 2 and "lines.txt:17-23" in off.stderr and "remedy" in off.stderr
    missing = caesar(repo, "comment", task_id, "other.txt:1", "here")
    assert missing.returncode == 2 and "no lines in the diff" in missing.stderr
    bad = caesar(repo, "comment", task_id, "lines.txt", "here")
    assert bad.returncode == 2 and "PATH:LINE" in bad.stderr
    unknown = caesar(repo, "comment", task_id, "--resolve", "c_12345678")
    assert unknown.returncode == 2 and "no comment" in unknown.stderr
    assert caesar(repo, "comments", task_id).stdout.strip() == "no comments"


def test_a_garbage_file_is_reported_then_kept_aside(repo: Path, task: tuple[str, Path]) -> None:
    task_id, _ = task
    path = repo / ".caesar" / "state" / "comments" / f"{task_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x1b[2J garbage")
    shown = caesar(repo, "comments", task_id)
    assert shown.returncode == 1 and "\x1b" not in shown.stderr
    assert f".caesar/state/comments/{task_id}.json" in shown.stderr
    assert caesar(repo, "ps").returncode == 0 and task_id[:10] in caesar(repo, "ps").stdout
    done = caesar(repo, "comment", task_id, "lines.txt:20", "fresh")
    assert done.returncode == 0 and "kept as" in done.stderr
    assert f".caesar/state/comments/{task_id}.json.refused-1" in done.stderr
    kept = [p for p in path.parent.iterdir() if p.name.startswith(path.name + ".refused")]
    assert [p.read_bytes() for p in kept] == [b"\x1b[2J garbage"]
    assert caesar(repo, "comments", task_id).returncode == 0


def test_a_follow_up_carries_open_comments_and_they_follow_its_edits(
    repo: Path, task: tuple[str, Path]
) -> None:
    task_id, worktree = task
    first = caesar(repo, "comment", task_id, "lines.txt:20", "colour?").stdout.split()[0]
    second = caesar(repo, "comment", task_id, "lines.txt:21-22", "and these").stdout.split()[0]
    third = caesar(repo, "comment", task_id, "lines.txt:23", "this one").stdout.split()[0]
    gone = caesar(repo, "comment", task_id, "lines.txt:17", "resolved already").stdout.split()[0]
    assert caesar(repo, "comment", task_id, "--resolve", gone).returncode == 0
    done = caesar(repo, "continue", task_id, "see my comments", "--json")
    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)["task_id"]
    task_file = json.loads((TaskStore(repo).paths(turn).root / "task.json").read_text())
    carried = task_file["followup"]["comments"]
    assert [(c["text"], c["start_line"], c["code"]) for c in carried] == [
        ("colour?", 20, ["line \x1b[31mtwenty"]),
        ("and these", 21, ["line 21", "line 22"]),
        ("this one", 23, ["line 23"]),
    ]
    # The demo agent rewrote the last line of each commented range: each comment addressed,
    # seen from either turn; nothing inserted, so no line moved.
    text = (worktree / "lines.txt").read_text().splitlines()
    assert len(text) == 40
    note = "review (turn 2): {} (addressed by the demo agent)"
    assert text[19] == "line \x1b[31mtwenty -- " + note.format("colour?")
    assert (text[20], text[21]) == ("line 21", "line 22 -- " + note.format("and these"))
    assert text[22] == "line 23 -- " + note.format("this one")
    for shown_from in (task_id, turn):
        listed = json.loads(caesar(repo, "comments", shown_from, "--json").stdout)["comments"]
        states = {c["id"]: c["state"] for c in listed}
        assert states == {
            first: "addressed",
            second: "addressed",
            third: "addressed",
            gone: "resolved",
        }
        assert {c["id"]: c["code"] for c in listed}[third] == ["line 23"]  # what it was on
    shown = caesar(repo, "comments", turn).stdout
    assert f"{first}  addressed" in shown and f"{gone}  resolved" in shown
    # A comment on what turn 2 wrote follows it when a later edit moves it.
    fourth = caesar(repo, "comment", turn, "lines.txt:23", "shorter").stdout.split()[0]
    (worktree / "lines.txt").write_text("a\nb\n" + (worktree / "lines.txt").read_text())
    listed = json.loads(caesar(repo, "comments", turn, "--json").stdout)["comments"]
    [moved] = [c for c in listed if c["id"] == fourth]
    assert (moved["state"], moved["start_line"], moved["made_at_lines"]) == ("open", 25, [23, 23])
    assert moved["code"] == ["line 23 -- " + note.format("this one")]
    assert {c["id"]: c["state"] for c in listed}[first] == "addressed"
