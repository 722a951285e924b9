"""An agent that writes random bytes over its worktree's git index (case 7 of issue 11).

A linked worktree's ``.git`` is a file naming ``<repo>/.git/worktrees/<name>/``, where its index
lives; libgit2 refuses the garbage. Every command answers: ``run`` concludes the task failed
with a finding, ``diff`` and ``apply`` refuse with the reason and the way out, ``discard
--force`` still removes caesar's worktree, and ``gc`` keeps that one task, says why, and
collects the others.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.conftest import BOUND_S, caesar, hostile_agent, run_json
from tests.runner.conftest import context

GARBAGE_INDEX = """
echo "work" > a.txt
admin=$(sed 's/^gitdir: //' .git)
head -c 4096 /dev/urandom > "$admin/index"
"""


def broken_task(repo: Path) -> dict[str, object]:
    hostile_agent(repo, "garbage", GARBAGE_INDEX)
    return run_json(repo, "x", "--agent", "garbage", "--isolation", "worktree")


def test_run_concludes_the_task_failed_with_a_finding(repo: Path) -> None:
    out = broken_task(repo)

    assert out["_exit"] == 1
    assert "Traceback" not in str(out["_stderr"])
    assert out["status"] == "failed"
    report = out["report"]
    assert isinstance(report, dict) and report["status"] == "failed"
    finding = next(f for f in report["findings"] if f["title"] == "Changes unverifiable")
    assert "index" in finding["detail"] and "cannot be read" in finding["detail"]
    shown = caesar(repo, "ps", "--json", timeout=BOUND_S)
    assert json.loads(shown.stdout)[0]["status"] == "failed"


def test_diff_and_apply_refuse_with_the_reason_and_a_remedy(repo: Path) -> None:
    task_id = str(broken_task(repo)["task_id"])

    for command in (("diff", task_id), ("diff", task_id, "--stat"), ("apply", task_id)):
        refused = caesar(repo, *command, timeout=BOUND_S)
        assert refused.returncode == 1, refused.stderr
        assert "Traceback" not in refused.stderr
        assert "git index" in refused.stderr and "cannot be read" in refused.stderr
        assert f"caesar discard {task_id} --force" in refused.stderr
        assert "remedy: rebuild it, keeping the files" in refused.stderr
    assert not (repo / "a.txt").exists()


def test_gc_keeps_the_broken_task_and_collects_the_others(repo: Path) -> None:
    healthy = run_json(
        repo, "x", "--agent", "demo", "--isolation", "worktree", "--context", context("quick")
    )
    broken = str(broken_task(repo)["task_id"])

    dry = caesar(repo, "gc", "--dry-run", "--json", timeout=BOUND_S)
    done = caesar(repo, "gc", "--json", timeout=BOUND_S)

    for result in (dry, done):
        assert result.returncode == 0, result.stderr
    decided = {d["task_id"]: d for d in json.loads(done.stdout)}
    assert decided[healthy["task_id"]]["decision"] == "removed"
    assert decided[broken]["decision"] == "kept"
    assert "cannot be inspected" in decided[broken]["reason"]
    assert f"caesar discard {broken} --force" in decided[broken]["reason"]
    table = caesar(repo, "gc", "--dry-run", timeout=BOUND_S)
    assert table.returncode == 0 and "cannot be inspected" in table.stdout


def test_discard_says_why_and_force_removes_caesar_s_worktree(repo: Path) -> None:
    out = broken_task(repo)
    task_id = str(out["task_id"])
    worktree = Path(str(out["workspace"]))

    refused = caesar(repo, "discard", task_id, timeout=BOUND_S)
    forced = caesar(repo, "discard", task_id, "--force", timeout=BOUND_S)

    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "cannot be inspected" in refused.stderr and "--force" in refused.stderr
    assert forced.returncode == 0, forced.stderr
    assert not worktree.exists()
    assert caesar(repo, "gc", "--json", timeout=BOUND_S).stdout.strip() == "[]"
