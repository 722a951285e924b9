"""A remote task while it runs: its events here as they are written, a question asked there
answered here, a cancel here stopping it there, a follow-up turn, and faults (a worker killed,
the shepherd gone)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.executor.conftest import (
    BIN,
    JQ_AGENT,
    Cluster,
    agent,
    cluster_env,
    on,
    only_task,
    record_of,
    start,
)
from tests.runner.conftest import caesar, context, wait_for


def events_of(root: Path, task: str) -> list[dict[str, Any]]:
    log = root / ".caesar" / "tasks" / task / "events.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def settled(root: Path, task: str) -> bool:
    return bool(record_of(root, task)["executor"].get("settled"))


def marked(task: str) -> list[int]:
    """Processes on this machine carrying the task's marker (its agent, on a loopback worker)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if f"CAESAR_TASK_ID={task}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def outcome(process: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    stdout, stderr = process.communicate(timeout=timeout)
    assert stdout, stderr
    data: dict[str, Any] = json.loads(stdout)
    data["_exit"] = process.returncode
    return data


def test_events_come_back_live_and_the_work_script_commits_and_leaves_work(
    cluster: Cluster, project: Path
) -> None:
    run = start(
        cluster, project, "Note it", "--agent", "demo", "--context", context("work", delay=0.4)
    )
    task = only_task(project)
    # While the task still runs on its worker, its events are already here.
    wait_for(
        lambda: (
            any(e["type"] == "progress" for e in events_of(project, task))
            and not settled(project, task)
        ),
        timeout=60,
        what="a progress event before the end",
    )
    assert record_of(project, task)["status"] == "running"
    out = outcome(run)
    assert out["_exit"] == 0 and out["status"] == "succeeded"
    assert out["diff"]["files"], "the committed and the uncommitted notes came back"
    seqs = [e["seq"] for e in events_of(project, task)]
    assert seqs == sorted(set(seqs)), "each event once, in order"


def test_a_question_asked_on_the_worker_is_answered_here(cluster: Cluster, project: Path) -> None:
    run = start(cluster, project, "Decide", "--agent", "demo", "--context", context("ask"))
    task = only_task(project)
    questions = project / ".caesar" / "tasks" / task / "questions"
    asked = wait_for(lambda: sorted(questions.glob("*.json")), timeout=60, what="the question")
    question = asked[0].stem
    listed = caesar(project, "ps")
    assert "?" in listed.stdout
    answered = caesar(project, "answer", task, question, "yes")
    assert answered.returncode == 0, answered.stderr
    out = outcome(run)
    assert out["status"] == "succeeded", out
    assert "yes" in out["report"]["details"]
    assert any(e["type"] == "answer" for e in events_of(project, task))


def test_a_cancel_here_stops_the_agent_on_its_worker(cluster: Cluster, project: Path) -> None:
    run = start(cluster, project, "Wait", "--agent", "demo", "--context", context("hang"))
    task = only_task(project)
    wait_for(
        lambda: (
            record_of(project, task)["status"] == "running"
            and any(e["type"] == "started" for e in events_of(project, task))
        ),
        timeout=60,
        what="the agent started on its worker",
    )
    assert marked(task), "the agent runs (on a loopback worker)"
    cancelled = caesar(project, "cancel", task)
    assert cancelled.returncode == 0 and "cancelled" in cancelled.stdout
    out = outcome(run)
    assert out["status"] == "cancelled"
    wait_for(lambda: not marked(task), timeout=30, what="the agent's processes gone")
    record = record_of(project, task)
    finished = [e for e in events_of(project, task) if e["type"] == "finished"]
    assert [e["seq"] for e in finished] == [record["finished_seq"]], "the worker's ending"


@pytest.mark.slow
def test_six_tasks_over_two_workers_of_two_slots_run_four_at_most(
    cluster: Cluster, project: Path
) -> None:
    times = cluster.tools / "times.log"
    times.unlink(missing_ok=True)
    agent(
        cluster,
        project,
        "sleeper",
        f'#!/bin/sh\necho "start $(date +%s.%N)" >> "{times}"\nsleep 2\n'
        f'echo "end $(date +%s.%N)" >> "{times}"\n',
    )
    runs = [start(cluster, project, f"Task {n}", "--agent", "sleeper") for n in range(6)]
    outs = [outcome(r, timeout=180) for r in runs]
    assert all(o["status"] == "succeeded" for o in outs), outs
    marks = sorted(
        (float(stamp), +1 if kind == "start" else -1)
        for kind, stamp in (line.split() for line in times.read_text().splitlines())
    )
    running = most = 0
    for _, change in marks:
        running += change
        most = max(most, running)
    assert len(marks) == 12
    assert most <= 4, f"{most} agents ran at once"
    workers = {record_of(project, o["task_id"])["executor"]["worker"] for o in outs}
    assert workers == set(cluster.workers), "both workers took tasks"


def test_a_follow_up_turn_of_a_remote_task_runs_remotely_from_its_work(
    cluster: Cluster, project: Path
) -> None:
    agent(
        cluster,
        project,
        "noter",
        '#!/bin/sh\necho "turn of: $(jq -r .objective "$CAESAR_TASK_FILE")" >> notes.txt\n'
        'echo \'{"protocol":"caesar.report/v1","status":"success","summary":"noted"}\''
        ' > "$CAESAR_REPORT_PATH"\n',
    )
    first = on(cluster, project, "first", "--agent", "noter")
    assert first["status"] == "succeeded", first["_stderr"]
    more = caesar(project, "continue", first["task_id"], "second", "--json")
    assert more.returncode == 0, more.stderr
    second = json.loads(more.stdout)
    record = record_of(project, second["task_id"])
    assert record["executor"]["worker"] in cluster.workers
    assert record["continues"] == first["task_id"] and record["turn"] == 2
    notes = Path(record["worktree_path"]) / "notes.txt"
    assert notes.read_text() == "turn of: first\nturn of: second\n"
    shown = caesar(project, "diff", second["task_id"])
    assert "+turn of: first" in shown.stdout and "+turn of: second" in shown.stdout


@pytest.mark.slow
def test_a_worker_killed_mid_task_fails_it_and_keeps_what_came_back(
    cluster: Cluster, project: Path
) -> None:
    run = start(
        cluster,
        project,
        "Wait",
        "--agent",
        "demo",
        "--timeout",
        "40s",
        "--context",
        context("hang"),
    )
    task = only_task(project)
    worker = wait_for(
        lambda: (
            record_of(project, task)["executor"].get("worker")
            if any(e["type"] == "started" for e in events_of(project, task))
            else None
        ),
        timeout=60,
        what="the task started on a worker",
    )
    cluster.kill(worker)
    try:
        out = outcome(run)
        assert out["status"] == "failed"
        record = record_of(project, task)
        assert "died or left the cluster" in record["ended_reason"]
        assert "Worker lost" in json.dumps(out["report"]["findings"])
        kinds = [e["type"] for e in events_of(project, task)]
        assert "started" in kinds and kinds[-1] == "finished", "what came back is kept"
    finally:
        for pid in marked(task):  # the orphaned agent of the dead worker
            os.kill(pid, signal.SIGKILL)
        cluster.restart(worker)


@pytest.mark.slow
def test_a_task_goes_on_when_its_client_goes_away_and_ps_reattaches(
    cluster: Cluster, project: Path
) -> None:
    run = start(
        cluster, project, "Note it", "--agent", "demo", "--context", context("work", delay=0.5)
    )
    task = only_task(project)
    shepherd = wait_for(
        lambda: (
            record_of(project, task).get("orchestrator_pid")
            if record_of(project, task)["status"] == "running"
            else None
        ),
        timeout=60,
        what="the task running",
    )
    run.kill()
    run.communicate()
    os.kill(shepherd, signal.SIGKILL)
    listed = caesar(project, "ps")
    assert task in listed.stdout
    wait_for(lambda: settled(project, task), timeout=90, what="a new shepherd landing it")
    record = record_of(project, task)
    assert record["status"] == "succeeded"
    assert record["orchestrator_pid"] != shepherd
    before = datetime.fromisoformat(record["ended_at"])
    again = caesar(project, "ps")  # nothing more to do: nothing changes
    assert again.returncode == 0
    assert datetime.fromisoformat(record_of(project, task)["ended_at"]) == before


@pytest.mark.slow
def test_a_task_lands_by_itself_when_its_client_is_killed(cluster: Cluster, project: Path) -> None:
    """``caesar run --on`` forks its shepherd: no child of the client, it follows the task to
    its landing when the client is killed, with no caesar command run here meanwhile."""
    run = start(
        cluster, project, "Note it", "--agent", "demo", "--context", context("work", delay=0.5)
    )
    task = only_task(project)
    shepherd = wait_for(
        lambda: record_of(project, task).get("orchestrator_pid"), timeout=60, what="a shepherd"
    )
    assert shepherd != run.pid
    run.kill()
    run.communicate()
    wait_for(lambda: settled(project, task), timeout=90, what="the result landing")
    record = record_of(project, task)
    assert record["status"] == "succeeded"
    assert record["orchestrator_pid"] == shepherd


def test_a_task_started_inside_a_task_has_a_shepherd_without_that_tasks_marker(
    cluster: Cluster, project: Path
) -> None:
    """A ``caesar run --on`` that carries a task's marker (an agent delegating) starts its
    shepherd afresh, without the marker: a cancel of that task does not end the shepherd."""
    agent(cluster, project, "jqmarked", JQ_AGENT)
    env = {**cluster_env(), "CAESAR_TASK_ID": "t_" + "e" * 32}
    run = subprocess.Popen(
        [BIN / "caesar", "run", "Do it", "--agent", "jqmarked", "--on", cluster.address, "--json"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    task = only_task(project)
    shepherd = wait_for(
        lambda: record_of(project, task).get("orchestrator_pid"), timeout=60, what="a shepherd"
    )
    try:
        started_with = Path(f"/proc/{shepherd}/environ").read_bytes()
    except OSError:
        started_with = b""  # it has landed the task already: nothing left to look at
    assert b"CAESAR_TASK" not in started_with
    assert outcome(run)["status"] == "succeeded"
