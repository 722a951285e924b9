"""The reference implementation reads what caesar writes: caesar's records, task files and
events checked against what the reference requires (recorded as JSON Schemas beside the
fixtures), and caesar's worktrees safe from the reference's ``gc``.

When the reference's CLI is built on this machine (``CAESAR_REFERENCE_CLI`` names its
``packages/cli/dist/bin.js``, or ``/work/ref/build`` holds it) and ``node`` runs, it is also
run for real against caesar's tasks; elsewhere that test skips, saying so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from tests.interop.conftest import REQUIREMENTS, TASK_SCHEMA
from tests.runner.conftest import caesar, git, repo

__all__ = ["repo"]

EVENT_SCHEMA = REQUIREMENTS.parent / "event.schema.json"
REFERENCE_EVENT_TYPES = {
    "started", "thinking", "message", "tool_use", "file_changed",
    "progress", "question", "answer", "error", "finished",
}  # fmt: skip
WRITER = "#!/bin/sh\necho more >> README.md\ngit add README.md\ngit commit -qm agent\n"
WRITER += "echo new > added.txt\n"
SLEEPER = "#!/bin/sh\nsleep 3600\n"
READER = "#!/bin/sh\ncat README.md\n"


def _agents(root: Path) -> None:
    config = ""
    for name, body in (("writer", WRITER), ("sleeper", SLEEPER), ("reader", READER)):
        path = root.parent / f"{name}.sh"
        path.write_text(body)
        path.chmod(0o755)
        config += f'[[agent]]\nid = "{name}"\nbin = "{path}"\nargs = "{{{{prompt}}}}"\n'
    (root / ".caesar").mkdir(exist_ok=True)
    (root / ".caesar" / "config.toml").write_text(config)


def _run(root: Path, *args: str) -> str:
    done = caesar(root, "run", *args, "--json")
    assert done.stdout, done.stderr
    return str(json.loads(done.stdout)["task_id"])


def _caesar_tasks(root: Path) -> dict[str, str]:
    """A worktree task with committed and uncommitted work, an in-place one, one timed out."""
    _agents(root)
    tasks = {
        "worktree": _run(root, "change it", "--agent", "writer", "--isolation", "worktree"),
        "inplace": _run(
            root, "look", "--agent", "reader", "--isolation", "inplace", "--mode", "read-only"
        ),
    }
    tasks["timed_out"] = _run(
        root, "wait", "--agent", "sleeper", "--isolation", "worktree", "--timeout", "1s"
    )
    return tasks


def _record(root: Path, task_id: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (root / ".caesar" / "state" / "tasks" / f"{task_id}.json").read_text()
    )
    return data


def test_caesar_records_task_files_and_events_meet_the_reference_requirements(
    repo: Path,
) -> None:
    tasks = _caesar_tasks(repo)
    requirements = json.loads(REQUIREMENTS.read_text())
    task_schema = json.loads(TASK_SCHEMA.read_text())
    event_schema = json.loads(EVENT_SCHEMA.read_text())
    for task_id in tasks.values():
        record = _record(repo, task_id)
        jsonschema.validate(record, requirements)
        assert record["task_dir"] == str(repo / ".caesar" / "tasks" / task_id)
        assert record["protocol"] == "caesar.record/v1"  # caesar's own fields are all kept
        task_dir = repo / ".caesar" / "tasks" / task_id
        jsonschema.validate(json.loads((task_dir / "task.json").read_text()), task_schema)
        for line in (task_dir / "events.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event["type"] in REFERENCE_EVENT_TYPES:
                jsonschema.validate(event, event_schema)


def test_the_requirements_refuse_what_the_reference_refuses(repo: Path) -> None:
    requirements = json.loads(REQUIREMENTS.read_text())
    task_id = _run(_with_writer(repo), "change it", "--agent", "writer", "--isolation", "worktree")
    record = _record(repo, task_id)
    for broken in (
        {k: v for k, v in record.items() if k != "report_via"},
        {k: v for k, v in record.items() if k != "task_dir"},
        {k: v for k, v in record.items() if k != "branch"},
        {**record, "role": None},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, requirements)


def _with_writer(root: Path) -> Path:
    _agents(root)
    return root


def test_a_caesar_worktree_is_locked_against_the_reference_gc(repo: Path) -> None:
    """The reference's gc removes a worktree `git status` calls clean with `git worktree
    remove --force`, blind to commits: a caesar worktree is locked, so that command refuses."""
    task_id = _run(_with_writer(repo), "change it", "--agent", "writer", "--isolation", "worktree")
    worktree = repo / ".caesar" / "wt" / task_id
    git(worktree, "add", "-A")
    git(worktree, "commit", "-qm", "all committed: `git status` is clean")
    assert git(worktree, "status", "--porcelain") == ""
    listing = git(repo, "worktree", "list", "--porcelain")
    assert f"locked caesar task {task_id}: may hold work not applied yet" in listing
    refused = subprocess.run(
        ["git", "worktree", "remove", str(worktree), "--force"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode != 0 and "locked" in refused.stderr
    assert worktree.is_dir()
    assert caesar(repo, "apply", task_id).returncode == 0
    gc = caesar(repo, "gc")
    assert gc.returncode == 0 and not worktree.exists(), gc.stdout  # caesar's gc still can


def _reference_cli() -> Path | None:
    named = os.environ.get("CAESAR_REFERENCE_CLI")
    candidate = Path(named) if named else Path("/work/ref/build/packages/cli/dist/bin.js")
    return candidate if candidate.is_file() and shutil.which("node") else None


REFERENCE_CLI = _reference_cli()


def _reference(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert REFERENCE_CLI is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    env["HOME"] = str(root.parent)
    return subprocess.run(
        ["node", str(REFERENCE_CLI), *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.mark.skipif(
    REFERENCE_CLI is None,
    reason="the reference's CLI is not built here (a clean clone has no Node build of "
    "Koumalabs/caesar): set CAESAR_REFERENCE_CLI to its packages/cli/dist/bin.js",
)
def test_the_built_reference_lists_diffs_and_keeps_caesar_tasks(repo: Path) -> None:
    tasks = _caesar_tasks(repo)
    listed = json.loads(_reference(repo, "ps", "--json").stdout)
    assert {t["id"] for t in listed["tasks"]} == set(tasks.values())
    diff = json.loads(_reference(repo, "diff", tasks["worktree"], "--json").stdout)
    assert {f["path"] for f in diff["files"]} == {"README.md", "added.txt"}
    logs = _reference(repo, "logs", tasks["worktree"])
    assert logs.returncode == 0 and "finished" in logs.stdout
    gc = json.loads(_reference(repo, "gc", "--json").stdout)
    kept = {e["id"]: e for e in gc["entries"]}
    assert kept[tasks["worktree"]]["action"] == "kept"
    assert kept[tasks["timed_out"]]["action"] == "kept"  # clean, but caesar's to remove
    assert (repo / ".caesar" / "wt" / tasks["worktree"]).is_dir()
