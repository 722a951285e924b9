"""``caesar demo`` end to end: the real runner, a real agent process, a real repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from caesar_core.events import read_events
from caesar_core.protocol import read_report
from caesar_core.store import TaskStatus, TaskStore
from tests.cli.test_protocol_cli import caesar


def test_demo_runs_the_demo_agent_to_a_verified_report(tmp_path: Path) -> None:
    workspace = tmp_path / "demo"
    result = caesar("demo", "--dir", str(workspace), "--delay", "0")
    assert result.returncode == 0, result.stderr
    assert "finished  success (exit 0)" in result.stdout
    assert "files changed (according to git):" in result.stdout

    store = TaskStore(workspace)
    [record] = store.list().records
    assert record.status is TaskStatus.SUCCEEDED and record.exit_code == 0
    assert record.worktree_path and record.base_ref
    paths = store.paths(record.id)
    report = read_report(paths.report)
    assert sorted(c.path for c in report.changes) == ["DEMO_NOTES.md", "README.md"]
    assert record.changes_verified_by is not None and record.changes_verified_by.value == "git"

    events, bad = read_events(paths.events)
    assert not bad
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[0].type == "started" and events[-1].type == "finished"
    documents = (paths.task_file, paths.report, paths.events)
    check = caesar("protocol", "validate", *map(str, documents))
    assert check.returncode == 0, check.stderr


def test_the_demo_agent_refuses_to_run_outside_caesar(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "caesar_core.agents.demo"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "CAESAR_TASK_FILE" in result.stderr
