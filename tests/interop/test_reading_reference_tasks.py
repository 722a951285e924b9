"""caesar reads what the reference implementation wrote: every command on its recorded tasks."""

from __future__ import annotations

import json
from pathlib import Path

from tests.interop.conftest import IMPOSED_IDS, ReferenceProject, git
from tests.runner.conftest import caesar, repo

__all__ = ["repo"]

THREE_FILES = {"README.md": "modified", "old.txt": "deleted", "src/new.txt": "created"}


def _json(project: ReferenceProject, *args: str) -> dict[str, object]:
    done = caesar(project.root, *args, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def _ids_in(listing: object) -> set[str]:
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key in ("task_id", "id"):
                if isinstance(node.get(key), str):
                    found.add(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(listing)
    return found


def test_ps_lists_every_reference_task_with_its_status(reference_project: ReferenceProject) -> None:
    done = caesar(reference_project.root, "ps", "--all")
    assert done.returncode == 0, done.stderr
    expected = {*reference_project.ids.values(), *IMPOSED_IDS}
    for task_id in expected:
        assert task_id in done.stdout
    assert "unreadable" not in done.stdout + done.stderr
    assert expected <= _ids_in(_json(reference_project, "ps", "--all"))
    statuses = {line.split()[0]: line.split()[2] for line in done.stdout.splitlines()[1:]}
    assert statuses[reference_project.ids["cancelled"]] == "cancelled"
    assert statuses[reference_project.ids["failed"]] == "failed"
    assert statuses[reference_project.ids["running"]] == "running"


def test_logs_of_reference_tasks_and_imposed_ids(reference_project: ReferenceProject) -> None:
    for task_id in (reference_project.ids["worktree"], *IMPOSED_IDS):
        done = caesar(reference_project.root, "logs", task_id)
        assert done.returncode == 0, done.stderr
        assert "started" in done.stdout and "finished" in done.stdout
        raw = caesar(reference_project.root, "logs", task_id, "--raw")
        assert raw.returncode == 0, raw.stderr
    writer = caesar(reference_project.root, "logs", reference_project.ids["worktree"], "--raw")
    assert "writer done" in writer.stdout


def test_diff_of_a_reference_worktree_task_shows_its_three_files(
    reference_project: ReferenceProject,
) -> None:
    base = git(reference_project.root, "rev-parse", "HEAD").strip()
    for task_id in (reference_project.ids["worktree"], "fix-login.2"):
        diff = _json(reference_project, "diff", task_id)
        assert diff["base"] == base and diff["is_empty"] is False
        files = {f["path"]: f["action"] for f in diff["files"]}  # type: ignore[attr-defined]
        assert files == THREE_FILES
        assert "+hello from the writer" in str(diff["patch"])
    empty = _json(reference_project, "diff", reference_project.ids["failed"])
    assert empty["is_empty"] is True and empty["base"] == base


def test_diff_of_a_reference_inplace_task_says_why_there_is_none(
    reference_project: ReferenceProject,
) -> None:
    done = caesar(reference_project.root, "diff", reference_project.ids["inplace"])
    assert done.returncode == 0
    assert "ran in place" in done.stdout and "outside git" not in done.stdout.split("(")[0]


def test_apply_of_a_reference_task_then_gc_collects_it(reference_project: ReferenceProject) -> None:
    task_id = "fix-login.2"
    done = caesar(reference_project.root, "apply", task_id)
    assert done.returncode == 0, done.stderr
    assert (reference_project.root / "src" / "new.txt").read_text() == "new file\n"
    assert not (reference_project.root / "old.txt").exists()
    assert "hello from the writer" in (reference_project.root / "README.md").read_text()
    record = reference_project.record(task_id)
    assert record["applied_at"] and record["applied_patch_digest"] == record["applied_digest"]
    assert record["task_dir"] == str(reference_project.root / ".caesar" / "tasks" / task_id)
    assert record["report_via"] == "file"
    gc = caesar(reference_project.root, "gc")
    assert gc.returncode == 0, gc.stderr
    line = next(line for line in gc.stdout.splitlines() if task_id in line)
    assert line.startswith("removed") and "applied" in line
    assert not reference_project.worktree(task_id).exists()
    branches = git(reference_project.root, "branch", "--list", "caesar/*")
    assert "fix-logi" not in branches


def test_gc_keeps_reference_work_and_calls_no_worktree_an_orphan(
    reference_project: ReferenceProject,
) -> None:
    ids = reference_project.ids
    gc = caesar(reference_project.root, "gc")
    assert gc.returncode == 0, gc.stderr
    assert "orphan" not in gc.stdout
    decisions = {
        task_id: line.split()[0]
        for line in gc.stdout.splitlines()[1:]
        for task_id in (*ids.values(), *IMPOSED_IDS)
        if f" {task_id} " in line
    }
    assert decisions[ids["worktree"]] == "kept"  # committed and uncommitted work, unapplied
    assert decisions["fix-login.2"] == "kept"
    assert decisions[ids["running"]] == "kept"
    assert decisions[ids["failed"]] == "removed"  # nothing in it
    assert decisions[ids["cancelled"]] == "removed"
    assert reference_project.worktree(ids["worktree"]).is_dir()
    # Kept with unapplied work, it is now locked against `git worktree remove --force`, which
    # is how the reference's gc removes a worktree it judges clean by `git status`.
    listing = git(reference_project.root, "worktree", "list", "--porcelain")
    assert f"{ids['worktree']}\n" in listing and "locked caesar task" in listing


def test_watch_once_shows_reference_tasks(reference_project: ReferenceProject) -> None:
    done = caesar(reference_project.root, "watch", "--once")
    assert done.returncode == 0, done.stderr
    for task_id in (reference_project.ids["worktree"], *IMPOSED_IDS):
        assert task_id in done.stdout
    assert "running" in done.stdout
    # Every row's columns line up, whatever the length of its id: the agent column starts at
    # the same place on each top-level row.
    rows = [line for line in done.stdout.splitlines()[1:] if line[:1] not in (" ", "")]
    rows = [row for row in rows if not row.startswith(("approval ", "question ", "broken "))]
    starts = {row.index(row.split()[2], len(" ".join(row.split()[:2]))) for row in rows}
    assert len(rows) > 1 and len(starts) == 1, done.stdout


def test_a_worktree_task_without_a_usable_base_is_refused_with_the_reason(
    reference_project: ReferenceProject,
) -> None:
    task_id = reference_project.ids["worktree"]
    task_file = reference_project.root / ".caesar" / "tasks" / task_id / "task.json"
    task = json.loads(task_file.read_text())
    task["base_ref"] = "HEAD"  # moves as the agent commits: never a base
    task_file.write_text(json.dumps(task))
    for command in ("diff", "apply"):
        done = caesar(reference_project.root, command, task_id)
        assert done.returncode == 1, done.stdout
        assert "no known base commit" in done.stderr and "Traceback" not in done.stderr
    # A link in its place is not followed (the agent can write its task directory).
    outside = reference_project.root.parent / "elsewhere.json"
    outside.write_text(json.dumps({**task, "base_ref": "0" * 40}))
    task_file.unlink()
    task_file.symlink_to(outside)
    done = caesar(reference_project.root, "diff", task_id)
    assert done.returncode == 1 and "no known base commit" in done.stderr
    gc = caesar(reference_project.root, "gc")
    line = next(line for line in gc.stdout.splitlines() if task_id in line)
    assert line.startswith("kept") and "no known base commit" in line


def test_ids_that_could_leave_the_store_are_still_refused(
    reference_project: ReferenceProject,
) -> None:
    for bad in ("../../etc/passwd", "a/b", "..", ".hidden", "x" * 200):
        done = caesar(reference_project.root, "logs", bad)
        assert done.returncode == 2, (bad, done.stdout)
        assert "invalid task id" in done.stderr


def test_a_caesar_record_the_reference_rewrote_still_diffs(repo: Path) -> None:
    """The reference's store keeps only the keys it knows when it rewrites a record (its
    `apply`, its `cancel`): caesar's base_ref and worktree_path are then gone."""
    agent = repo.parent / "writer.sh"
    agent.write_text("#!/bin/sh\necho more >> README.md\necho new > added.txt\n")
    agent.chmod(0o755)
    (repo / ".caesar").mkdir(exist_ok=True)
    (repo / ".caesar" / "config.toml").write_text(
        f'[[agent]]\nid = "writer"\nbin = "{agent}"\nargs = "{{{{prompt}}}}"\n'
    )
    run = caesar(repo, "run", "change it", "--agent", "writer", "--isolation", "worktree", "--json")
    task_id = json.loads(run.stdout)["task_id"]
    record_file = repo / ".caesar" / "state" / "tasks" / f"{task_id}.json"
    schema = json.loads(
        (
            Path(__file__).parent.parent / "fixtures/reference/record-requirements.schema.json"
        ).read_text()
    )
    kept = set(schema["properties"])
    stripped = {k: v for k, v in json.loads(record_file.read_text()).items() if k in kept}
    assert "base_ref" not in stripped and "worktree_path" not in stripped
    record_file.write_text(json.dumps(stripped, indent=2))
    diff = json.loads(caesar(repo, "diff", task_id, "--json").stdout)
    assert {f["path"] for f in diff["files"]} == {"README.md", "added.txt"}


def test_a_record_naming_a_worktree_outside_the_project_is_not_followed(
    reference_project: ReferenceProject, tmp_path: Path
) -> None:
    task_id = reference_project.ids["failed"]
    elsewhere = tmp_path / "other" / ".caesar" / "wt" / task_id
    elsewhere.mkdir(parents=True)
    (elsewhere / "precious.txt").write_text("not caesar's\n")
    record = reference_project.record(task_id)
    reference_project.write_record(task_id, {**record, "workspace": str(elsewhere)})
    done = caesar(reference_project.root, "diff", task_id)
    assert done.returncode == 0 and "no worktree left" in done.stdout
    assert caesar(reference_project.root, "apply", task_id).returncode == 2
    gc = caesar(reference_project.root, "gc", "--force")
    assert gc.returncode == 0, gc.stderr
    assert (elsewhere / "precious.txt").read_text() == "not caesar's\n"
