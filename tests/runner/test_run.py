"""``caesar run`` end to end with the built-in demo agent: real git, real processes."""

from __future__ import annotations

import json
from pathlib import Path

from caesar_core.events import read_events
from caesar_core.store import TaskStatus, TaskStore
from tests.runner.conftest import caesar, context, git, run_json, write_config


def test_quick_task_succeeds_with_a_file_report(repo: Path) -> None:
    out = run_json(repo, "look around", "--agent", "demo", "--context", context("quick"))
    assert out["_exit"] == 0, out["_stderr"]
    assert out["status"] == "succeeded"
    assert out["report"]["status"] == "success"
    assert out["report_source"] == "file"
    assert out["changes_verified_by"] == "git"
    assert out["diff"] == {"files": [], "is_empty": True}
    store = TaskStore(repo)
    record = store.get(out["task_id"])
    assert (
        record.isolation.value == "worktree"
        and record.base_ref == git(repo, "rev-parse", "HEAD").strip()
    )
    events, bad = read_events(store.paths(record.id).events)
    assert not bad
    assert events[0].type == "started" and events[-1].type == "finished"
    assert [e.type for e in events].count("finished") == 1
    assert [e.seq for e in events] == list(range(len(events)))


def test_work_that_is_committed_in_the_worktree_still_shows(repo: Path) -> None:
    """The agent commits in its worktree: HEAD moves, the diff against base_ref does not lie."""
    out = run_json(repo, "note the objective", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    assert out["diff"]["files"] == ["DEMO_NOTES.md", "README.md"]
    record = TaskStore(repo).get(out["task_id"])
    worktree = Path(record.worktree_path or "")
    assert git(worktree, "rev-list", "--count", f"{record.base_ref}..HEAD").strip() == "1"
    # The user's tree is untouched until `caesar apply`.
    assert git(repo, "status", "--porcelain") == ""
    changes = {c["path"]: c["action"] for c in out["report"]["changes"]}
    assert changes == {"DEMO_NOTES.md": "created", "README.md": "modified"}


def test_live_lines_and_the_outcome_on_a_terminal(repo: Path) -> None:
    result = caesar(repo, "run", "note it", "--agent", "demo", "--context", context("work"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "▸ bash" in out and "✓ bash" in out
    assert "files changed (according to git):" in out
    assert "review: caesar diff t_" in out


def test_lying_agent_is_caught_both_ways(repo: Path) -> None:
    out = run_json(repo, "fix the parser", "--agent", "demo", "--context", context("lie"))
    report = out["report"]
    assert [c["path"] for c in report["changes"]] == ["UNDECLARED.txt"]
    titles = {f["title"]: f["detail"] for f in report["findings"]}
    assert "UNDECLARED.txt" in titles["Undeclared change"]
    assert "src/parser.py" in titles["Change declared but not found in the diff"]


def test_a_failing_agent_exits_one(repo: Path) -> None:
    out = run_json(repo, "break", "--agent", "demo", "--context", context("fail"))
    assert out["_exit"] == 1
    assert out["status"] == "failed" and out["report"]["status"] == "failed"


def test_read_only_in_place_when_the_agent_can_be_trusted(repo: Path) -> None:
    out = run_json(
        repo, "survey", "--agent", "demo", "--mode", "read-only", "--context", context("work")
    )
    assert out["_exit"] == 0, out["_stderr"]
    record = TaskStore(repo).get(out["task_id"])
    assert record.isolation.value == "inplace" and record.worktree_path is None
    assert out["changes_verified_by"] == "git" and out["diff"]["is_empty"]


def test_a_write_in_a_read_only_task_is_a_high_finding(repo: Path) -> None:
    out = run_json(
        repo, "survey", "--agent", "demo", "--mode", "read-only", "--context", context("lie")
    )
    high = [f for f in out["report"]["findings"] if f["severity"] == "high"]
    assert high and "UNDECLARED.txt" in high[0]["detail"]


def test_outside_git_changes_are_declarations(tmp_path: Path) -> None:
    # --root: the walk up from a bare temporary directory could meet another project.
    out = run_json(
        tmp_path, "note", "--agent", "demo", "--root", str(tmp_path), "--context", context("work")
    )
    assert out["_exit"] == 0, out["_stderr"]
    assert out["changes_verified_by"] == "declaration"
    assert TaskStore(tmp_path).get(out["task_id"]).isolation.value == "inplace"


def test_laid_down_paths_are_excluded_from_the_diff(repo: Path) -> None:
    (repo / "deps").mkdir()
    (repo / "deps" / "lib.txt").write_text("vendored\n")
    (repo / ".env").write_text("SECRET=1\n")
    (repo / ".gitignore").write_text(".caesar/\ndeps/\n.env\n")
    git(repo, "commit", "-qam", "ignore deps")
    write_config(repo, '[worktree]\ncopy = ["deps"]\nlink = [".env"]\n')
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    record = TaskStore(repo).get(out["task_id"])
    worktree = Path(record.worktree_path or "")
    assert (worktree / "deps" / "lib.txt").read_text() == "vendored\n"
    assert (worktree / ".env").is_symlink()
    assert record.excluded_paths == ["deps", ".env"]
    (worktree / "deps" / "new.txt").write_text("x")  # even a write inside stays out
    diff = json.loads(caesar(repo, "diff", record.id, "--json").stdout)
    assert diff["is_empty"], diff


def test_setup_failure_ends_the_task_with_its_output(repo: Path) -> None:
    write_config(repo, '[worktree]\nsetup = ["echo preparing; echo broken >&2; exit 3"]\n')
    out = run_json(repo, "quick", "--agent", "demo", "--context", context("quick"))
    assert out["_exit"] == 1
    record = TaskStore(repo).get(out["task_id"])
    assert record.status is TaskStatus.FAILED
    assert "broken" in out["report"]["details"]


def test_depth_and_parent_come_from_the_environment(repo: Path) -> None:
    parent = run_json(repo, "parent", "--agent", "demo", "--context", context("quick"))
    child = run_json(
        repo,
        "child",
        "--agent",
        "demo",
        "--context",
        context("quick"),
        env={"CAESAR_DEPTH": "1", "CAESAR_TASK_ID": parent["task_id"]},
    )
    record = TaskStore(repo).get(child["task_id"])
    assert record.depth == 2 and record.parent_id == parent["task_id"]
    refused = caesar(repo, "run", "x", "--agent", "demo", env={"CAESAR_DEPTH": "2"})
    assert refused.returncode == 2 and "max_depth = 3" in refused.stderr


def test_delegate_builds_a_tree_of_depth_two(repo: Path) -> None:
    out = run_json(repo, "delegate", "--agent", "demo", "--context", context("delegate"))
    assert out["_exit"] == 0, out["_stderr"] + json.dumps(out["report"])
    records = TaskStore(repo).list().records
    child = next(r for r in records if r.id != out["task_id"])
    assert child.parent_id == out["task_id"] and child.depth == 2
    tree = caesar(repo, "ps")
    assert f"  {child.id}" in tree.stdout  # indented under its parent
