"""diff, apply, discard and gc on real worktrees: no work is ever lost."""

from __future__ import annotations

import json
from pathlib import Path

from caesar_core.store import TaskStore
from tests.runner.conftest import caesar, context, git, run_json


def work_task(repo: Path) -> str:
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    return str(out["task_id"])


def test_diff_shows_committed_and_uncommitted_work(repo: Path) -> None:
    task_id = work_task(repo)
    stat = caesar(repo, "diff", task_id, "--stat")
    assert "created   DEMO_NOTES.md" in stat.stdout and "modified  README.md" in stat.stdout
    patch = caesar(repo, "diff", task_id).stdout
    assert "+++ b/DEMO_NOTES.md" in patch and "+++ b/README.md" in patch
    data = json.loads(caesar(repo, "diff", task_id, "--json").stdout)
    assert not data["is_empty"] and data["patch"] == patch


def test_apply_writes_the_tree_never_commits_and_records_the_digest(repo: Path) -> None:
    task_id = work_task(repo)
    head = git(repo, "rev-parse", "HEAD")
    result = caesar(repo, "apply", task_id)
    assert result.returncode == 0, result.stderr
    assert "note it" in (repo / "README.md").read_text()
    assert (repo / "DEMO_NOTES.md").exists()
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-only") == ""
    record = TaskStore(repo).get(task_id)
    assert record.applied_at is not None and record.applied_digest


def test_apply_a_subset(repo: Path) -> None:
    task_id = work_task(repo)
    result = caesar(repo, "apply", task_id, "--path", "DEMO_NOTES.md")
    assert result.returncode == 0, result.stderr
    assert (repo / "DEMO_NOTES.md").exists()
    assert "note it" not in (repo / "README.md").read_text()


def test_a_conflict_leaves_the_tree_untouched(repo: Path) -> None:
    task_id = work_task(repo)
    (repo / "README.md").write_text("# project, rewritten by the user\n")
    git(repo, "commit", "-qam", "user rewrote the readme")
    before = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    result = caesar(repo, "apply", task_id, "--json")
    assert result.returncode == 1
    verdict = json.loads(result.stdout)
    assert verdict["applied"] is False and verdict["conflicts"] == ["README.md"]
    after = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    assert after == before
    assert TaskStore(repo).get(task_id).applied_at is None


def test_apply_refuses_files_with_local_changes(repo: Path) -> None:
    task_id = work_task(repo)
    (repo / "README.md").write_text("# project\nmy unsaved idea\n")
    result = caesar(repo, "apply", task_id)
    assert result.returncode != 0
    assert "README.md" in result.stderr
    assert (repo / "README.md").read_text() == "# project\nmy unsaved idea\n"
    assert not (repo / "DEMO_NOTES.md").exists()


def test_discard_refuses_unapplied_work_without_force(repo: Path) -> None:
    task_id = work_task(repo)
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    refused = caesar(repo, "discard", task_id)
    assert refused.returncode == 1 and "never applied" in refused.stderr
    assert worktree.is_dir()
    forced = caesar(repo, "discard", task_id, "--force")
    assert forced.returncode == 0, forced.stderr
    assert not worktree.exists()
    assert "caesar/" not in git(repo, "branch", "--list", "caesar/*")


def test_gc_keeps_committed_unapplied_work_and_removes_the_rest(repo: Path) -> None:
    unapplied = work_task(repo)
    applied = work_task(repo)
    empty = run_json(repo, "look", "--agent", "demo", "--context", context("quick"))["task_id"]
    assert caesar(repo, "apply", applied, "--path", "DEMO_NOTES.md").returncode == 0
    # A full apply is what marks a task done; apply the second one whole instead.
    git(repo, "checkout", "--", ".")
    (repo / "DEMO_NOTES.md").unlink()
    assert caesar(repo, "apply", applied).returncode == 0
    dry = json.loads(caesar(repo, "gc", "--dry-run", "--json").stdout)
    by_task = {d["task_id"]: d["decision"] for d in dry}
    assert by_task == {unapplied: "kept", applied: "would remove", empty: "would remove"}
    assert all(Path(d["path"]).exists() for d in dry)
    done = json.loads(caesar(repo, "gc", "--json").stdout)
    store = TaskStore(repo)
    assert Path(store.get(unapplied).worktree_path or "").is_dir()
    assert not Path(store.get(applied).worktree_path or "").exists()
    assert {d["task_id"]: d["decision"] for d in done}[unapplied] == "kept"
