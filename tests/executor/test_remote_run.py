"""``caesar run --on``: the spec's bash+jq agent on a worker, its work back here as git objects,
reviewed and applied as if it had run here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.executor.conftest import JQ_AGENT, Cluster, agent, on, record_of
from tests.runner.conftest import caesar, git

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the spec's agent uses jq")


def test_the_spec_agent_runs_on_a_worker_and_its_work_is_reviewed_and_applied_here(
    cluster: Cluster, project: Path
) -> None:
    agent(cluster, project, "jqagent", JQ_AGENT)
    out = on(cluster, project, "Fix the parser", "--agent", "jqagent")
    assert out["_exit"] == 0, out["_stderr"]
    assert out["status"] == "succeeded"
    assert out["report"]["summary"] == "Handled: Fix the parser"
    assert out["report_source"] == "file"
    assert sorted(out["diff"]["files"]) == ["NEW.txt", "app.py"]
    task = out["task_id"]
    record = record_of(project, task)
    assert record["executor"]["worker"] in cluster.workers
    assert record["executor"]["settled"] is True
    # The work came back as refs/caesar/<id>, and a worktree here holds it.
    assert git(project, "rev-parse", f"refs/caesar/{task}").strip()
    assert Path(record["worktree_path"]).is_dir()

    shown = caesar(project, "diff", task)
    assert shown.returncode == 0, shown.stderr
    assert "+changed on a worker" in shown.stdout and "+fresh" in shown.stdout

    listed = caesar(project, "ps")
    assert f"on {record['executor']['worker'].split('://')[1]}" in listed.stdout

    applied = caesar(project, "apply", task)
    assert applied.returncode == 0, applied.stderr
    assert (project / "app.py").read_text().endswith("changed on a worker\n")
    assert (project / "NEW.txt").read_text() == "fresh\n"
    # The events came back whole: caesar's own ending, as the record names it.
    events = [
        json.loads(line)
        for line in (project / ".caesar" / "tasks" / task / "events.jsonl").read_text().splitlines()
    ]
    finished = [e for e in events if e["type"] == "finished"]
    assert [e["seq"] for e in finished] == [record["finished_seq"]]


def test_nothing_on_the_worker_sees_the_clients_repository(cluster: Cluster, project: Path) -> None:
    """The agent works in a repository of the worker's own, never in the client's; and where
    the machine allows a mount namespace (``cluster.isolated``), the client's repository is not
    even visible to it, so nothing can rely on a shared file system."""
    agent(
        cluster,
        project,
        "peeker",
        f'#!/bin/sh\npwd > where.txt\nif [ -e "{project}/app.py" ]; then echo seen >> where.txt; '
        "else echo hidden >> where.txt; fi\n",
    )
    out = on(cluster, project, "Look around", "--agent", "peeker")
    assert out["status"] == "succeeded", out["_stderr"]
    worked_in, seen = (
        (Path(record_of(project, out["task_id"])["worktree_path"]) / "where.txt")
        .read_text()
        .splitlines()
    )
    assert not Path(worked_in).is_relative_to(cluster.clients)
    assert seen == ("hidden" if cluster.isolated else "seen"), cluster.why_not_isolated


def test_doctor_lists_the_workers_their_slots_and_agents(cluster: Cluster, project: Path) -> None:
    agent(cluster, project, "jqagent", JQ_AGENT)
    out = caesar(project, "doctor", "--on", cluster.address, "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["workers"]
    assert {r["worker"] for r in rows} == set(cluster.workers)
    assert all(r["slots"] == 2 for r in rows)
    assert all({"jqagent", "demo"} <= set(r["can_run"]) for r in rows)
    shown = caesar(project, "doctor", "--on", cluster.address)
    assert "SLOTS" in shown.stdout and "jqagent" in shown.stdout


def test_a_scheduler_that_is_not_there_fails_the_task_with_the_reason(project: Path) -> None:
    out = caesar(project, "run", "x", "--agent", "demo", "--on", "tcp://127.0.0.1:9", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1
    assert data["status"] == "failed"
    assert "could not be reached" in data["report"]["summary"]
