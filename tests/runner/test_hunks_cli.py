"""``caesar diff --hunks``, ``apply --hunk``/``--interactive`` and ``reject`` on real worktrees,
with the real ``caesar`` executable; ``--interactive`` through a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from caesar_core.store import TaskStore
from tests.runner.conftest import CAESAR, caesar, caesar_env, context, git, run_json

BASE = "".join(f"line {n}\n" for n in range(1, 41))
THREE = (("line 2\n", "line two\n"), ("line 20\n", "line twenty\n"), ("line 38\n", "line 38b\n"))


def edited(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.fixture
def task(repo: Path) -> tuple[str, Path]:
    """A finished task whose worktree changed ``lines.txt`` in three places (and the demo's
    own two files)."""
    (repo / "lines.txt").write_text(BASE)
    git(repo, "add", "lines.txt")
    git(repo, "commit", "-qm", "lines")
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    task_id = str(out["task_id"])
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    (worktree / "lines.txt").write_text(edited(BASE, *THREE))
    return task_id, worktree


def diff_json(repo: Path, task_id: str) -> dict[str, Any]:
    done = caesar(repo, "diff", task_id, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def hunk_ids(repo: Path, task_id: str, path: str = "lines.txt") -> list[str]:
    files = {f["path"]: f for f in diff_json(repo, task_id)["files"]}
    return [h["id"] for h in files[path]["hunks"]] if path in files else []


def test_hunk_ids_are_stable_and_shown_in_text(repo: Path, task: tuple[str, Path]) -> None:
    task_id, worktree = task
    ids = hunk_ids(repo, task_id)
    assert len(ids) == 3 and ids == hunk_ids(repo, task_id)
    # An edit elsewhere in the file leaves the other hunks' ids alone.
    (worktree / "lines.txt").write_text(edited(BASE, *THREE[1:]))
    assert hunk_ids(repo, task_id) == ids[1:]
    shown = caesar(repo, "diff", task_id, "--hunks").stdout
    assert f"{ids[1]}  lines.txt  @@ -17,7 +17,7 @@" in shown
    assert "    1 -line 20" in shown and "    2 +line twenty" in shown
    listed = caesar(repo, "diff", task_id, "--hunks", "--stat").stdout
    assert ids[1] in listed and "line twenty" not in listed


def test_apply_hunk_two_of_three_then_the_rest(repo: Path, task: tuple[str, Path]) -> None:
    task_id, _ = task
    first, second, third = hunk_ids(repo, task_id)
    head = git(repo, "rev-parse", "HEAD")
    done = caesar(repo, "apply", task_id, "--hunk", second)
    assert done.returncode == 0, done.stderr
    assert f"{second}  lines.txt" in done.stdout
    assert (repo / "lines.txt").read_text() == edited(BASE, THREE[1])
    assert not (repo / "DEMO_NOTES.md").exists()
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "diff", "--cached") == ""
    record = TaskStore(repo).get(task_id)
    assert [h.id for h in record.applied_hunks] == [second]

    again = caesar(repo, "apply", task_id, "--hunk", second, "--json")
    assert again.returncode == 0, again.stderr
    verdict = json.loads(again.stdout)
    assert verdict["already_applied_hunks"] == [second] and verdict["written"] == []
    plain = caesar(repo, "apply", task_id, "--hunk", second)
    assert f"already applied: {second}" in plain.stdout

    rest = caesar(repo, "apply", task_id, "--hunk", first, "--hunk", third, "--json")
    assert rest.returncode == 0, rest.stderr
    assert json.loads(rest.stdout)["hunks"] == [first, third]
    assert (repo / "lines.txt").read_text() == edited(BASE, *THREE)


def test_changed_lines_of_a_hunk(repo: Path, task: tuple[str, Path]) -> None:
    task_id, worktree = task
    (worktree / "lines.txt").write_text(edited(BASE, ("line 5\nline 6\n", "five\nsix\n")))
    (hunk,) = hunk_ids(repo, task_id)
    # Changed lines: 1 -line 5, 2 -line 6, 3 +five, 4 +six. Take "line 6" -> "six".
    done = caesar(repo, "apply", task_id, "--hunk", f"{hunk}:2-2", "--hunk", f"{hunk}:4-4")
    assert done.returncode == 0, done.stderr
    assert (repo / "lines.txt").read_text() == edited(BASE, ("line 6\n", "six\n"))
    overlapping = caesar(repo, "apply", task_id, "--hunk", f"{hunk}:1-2", "--hunk", f"{hunk}:2-3")
    assert overlapping.returncode == 2 and "overlaps" in overlapping.stderr
    outside = caesar(repo, "apply", task_id, "--hunk", f"{hunk}:3-9")
    assert outside.returncode == 2 and "has 4 changed lines" in outside.stderr
    assert (repo / "lines.txt").read_text() == edited(BASE, ("line 6\n", "six\n"))


def test_a_conflict_on_one_selected_hunk_writes_nothing(repo: Path, task: tuple[str, Path]) -> None:
    task_id, _ = task
    ids = hunk_ids(repo, task_id)
    notes = [h["id"] for f in diff_json(repo, task_id)["files"] for h in f["hunks"]]
    (repo / "lines.txt").write_text(edited(BASE, ("line 20\n", "the user's twenty\n")))
    git(repo, "commit", "-qam", "user")
    before = (repo / "lines.txt").read_text()
    picks = [arg for hid in notes for arg in ("--hunk", hid)]
    done = caesar(repo, "apply", task_id, *picks)
    assert done.returncode == 1 and "lines.txt" in done.stderr
    assert (repo / "lines.txt").read_text() == before
    assert not (repo / "DEMO_NOTES.md").exists()
    assert TaskStore(repo).get(task_id).applied_hunks == []
    # The hunks away from the user's edit still apply.
    fine = caesar(repo, "apply", task_id, "--hunk", ids[0], "--hunk", ids[2])
    assert fine.returncode == 0, fine.stderr


def test_unknown_and_stale_ids_are_refused_with_the_current_ones(
    repo: Path, task: tuple[str, Path]
) -> None:
    task_id, worktree = task
    stale = hunk_ids(repo, task_id)[0]
    (worktree / "lines.txt").write_text(edited(BASE, ("line 2\n", "line TWO\n"), *THREE[1:]))
    current = hunk_ids(repo, task_id)
    for command in ("apply", "reject"):
        done = caesar(repo, command, task_id, "--hunk", stale)
        assert done.returncode == 2, done.stderr
        assert f"no such hunk in the task's diff now: {stale}" in done.stderr
        assert all(hid in done.stderr for hid in current)
    bad = caesar(repo, "apply", task_id, "--hunk", "h_nothex")
    assert bad.returncode == 2 and "not a hunk selection" in bad.stderr
    assert (repo / "lines.txt").read_text() == BASE
    assert (worktree / "lines.txt").read_text() == edited(
        BASE, ("line 2\n", "line TWO\n"), *THREE[1:]
    )


def test_reject_reverts_the_hunk_in_the_worktree_and_the_diff(
    repo: Path, task: tuple[str, Path]
) -> None:
    task_id, worktree = task
    first, second, third = hunk_ids(repo, task_id)
    done = caesar(repo, "reject", task_id, "--hunk", second, "--reason", "keep line 20", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "task_id": task_id,
        "rejected": True,
        "hunks": [second],
        "files": ["lines.txt"],
        "reason": "keep line 20",
    }
    assert (worktree / "lines.txt").read_text() == edited(BASE, THREE[0], THREE[2])
    assert hunk_ids(repo, task_id) == [first, third]
    (rejected,) = TaskStore(repo).get(task_id).rejected_hunks
    assert (rejected.id, rejected.reason, rejected.path) == (second, "keep line 20", "lines.txt")
    assert "-line 20\n" in rejected.lines and "+line twenty\n" in rejected.lines
    assert (repo / "lines.txt").read_text() == BASE


def test_reject_never_follows_a_link_the_agent_left(
    repo: Path, task: tuple[str, Path], tmp_path: Path
) -> None:
    task_id, worktree = task
    outside = tmp_path / "outside.txt"
    outside.write_text(edited(BASE, *THREE))
    ids = hunk_ids(repo, task_id)
    (worktree / "lines.txt").unlink()
    (worktree / "lines.txt").symlink_to(outside)
    done = caesar(repo, "reject", task_id, "--hunk", ids[0])
    assert done.returncode == 2  # the link is a new change: the old hunk is gone
    whole = hunk_ids(repo, task_id)
    assert len(whole) == 1
    rejected = caesar(repo, "reject", task_id, "--hunk", whole[0])
    assert rejected.returncode == 0, rejected.stderr
    assert outside.read_text() == edited(BASE, *THREE)
    assert not (worktree / "lines.txt").is_symlink()
    assert (worktree / "lines.txt").read_text() == BASE


def test_gc_keeps_a_task_with_unapplied_hunks(repo: Path, task: tuple[str, Path]) -> None:
    task_id, worktree = task
    every = [h["id"] for f in diff_json(repo, task_id)["files"] for h in f["hunks"]]
    assert caesar(repo, "apply", task_id, "--hunk", every[0]).returncode == 0
    kept = {d["task_id"]: d for d in json.loads(caesar(repo, "gc", "--json").stdout)}
    assert kept[task_id]["decision"] == "kept" and worktree.is_dir()
    discard = caesar(repo, "discard", task_id)
    assert discard.returncode == 1 and "never applied" in discard.stderr
    # Apply some of the rest, reject the others: nothing is left unapplied.
    assert caesar(repo, "apply", task_id, *["--hunk", every[1]]).returncode == 0
    rest = [arg for hid in every[2:] for arg in ("--hunk", hid)]
    assert caesar(repo, "reject", task_id, *rest).returncode == 0
    done = {d["task_id"]: d for d in json.loads(caesar(repo, "gc", "--json").stdout)}
    assert done[task_id]["decision"] == "removed" and done[task_id]["reason"] == "applied"
    assert not worktree.exists()


def test_interactive_walks_the_hunks_through_a_terminal(repo: Path, task: tuple[str, Path]) -> None:
    task_id, worktree = task
    (worktree / "lines.txt").write_text(
        edited(BASE, ("line 2\n", "line two\n"), ("line 5\n", "line five\n"), *THREE[1:])
    )
    notes = [f["path"] for f in diff_json(repo, task_id)["files"]]
    assert notes == ["DEMO_NOTES.md", "README.md", "lines.txt"]
    # DEMO_NOTES.md: n; README.md: ? then n; lines.txt's first hunk (2 and 5): s, y to the
    # first part, n to the second; the 20 hunk: y; then q before the 38 hunk.
    screen = interact(
        repo, ["apply", task_id, "--interactive"], ["n", "?", "n", "s", "y", "n", "y", "q"]
    )
    assert "Apply this hunk [y,n,s,q,?]?" in screen and "split into 2 parts" in screen
    assert "s - split this hunk" in screen
    assert (repo / "lines.txt").read_text() == edited(BASE, ("line 2\n", "line two\n"), THREE[1])
    assert not (repo / "DEMO_NOTES.md").exists()
    piped = caesar(repo, "apply", task_id, "--interactive", stdin="y\n")
    assert piped.returncode == 2 and "reads its answers from a terminal" in piped.stderr


def interact(repo: Path, args: list[str], answers: list[str], timeout: float = 60) -> str:
    """Run ``caesar ARGS`` on a pseudo-terminal, answering each prompt in turn; the screen."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [CAESAR, *args],
        cwd=repo,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=caesar_env(),
        close_fds=True,
    )
    os.close(follower)
    screen = b""
    pending = list(answers)
    prompts = 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the program ended and closed the terminal
                break
            if not chunk:
                break
            screen += chunk
            asked = len(re.findall(rb"\]\? ", screen))
            while asked > prompts and pending:
                prompts += 1
                os.write(leader, (pending.pop(0) + "\n").encode())
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    text = screen.decode(errors="replace").replace("\r\n", "\n")
    assert process.returncode == 0, text
    return text


def test_reject_refuses_a_hard_link_to_a_file_outside(
    repo: Path, task: tuple[str, Path], tmp_path: Path
) -> None:
    task_id, worktree = task
    outside = tmp_path / "precious.txt"
    outside.write_text(edited(BASE, *THREE))
    (worktree / "lines.txt").unlink()
    os.link(outside, worktree / "lines.txt")
    first = hunk_ids(repo, task_id)[0]
    done = caesar(repo, "reject", task_id, "--hunk", first)
    assert done.returncode == 1 and "hard link" in done.stderr
    assert outside.read_text() == edited(BASE, *THREE)
    assert TaskStore(repo).get(task_id).rejected_hunks == []
