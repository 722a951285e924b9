"""Deadlines, cancellation from another process, abandoned tasks, and the question mailbox."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from caesar_core.events import read_events
from caesar_core.runner.slots import pid_alive
from caesar_core.store import TaskStatus, TaskStore, pending_questions
from tests.runner.conftest import CAESAR, caesar, caesar_env, context, run_json, wait_for


def start_run(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CAESAR, "run", *args, "--json"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=caesar_env(),
    )


def only_task(root: Path) -> str:
    def found() -> str | None:
        records = TaskStore(root).list().records
        return records[0].id if records else None

    task_id: str = wait_for(found, what="the task record")
    return task_id


def hang_pids(root: Path, task_id: str) -> dict[str, int]:
    path = TaskStore(root).paths(task_id).root / "hang.pids"
    pids: dict[str, int] = wait_for(
        lambda: (
            path.exists()
            and json.loads(path.read_text() or "{}").get("grandchild")
            and json.loads(path.read_text())
        ),
        what="hang.pids",
    )
    return pids


def test_deadline_kills_an_agent_that_ignores_sigterm_and_its_grandchild(repo: Path) -> None:
    out = run_json(
        repo,
        "hang",
        "--agent",
        "demo",
        "--timeout",
        "2s",
        "--context",
        context("hang", ignore_sigterm=True),
    )
    assert out["_exit"] == 1
    assert out["status"] == "timed_out" and out["report"]["status"] == "failed"
    pids = json.loads((TaskStore(repo).paths(out["task_id"]).root / "hang.pids").read_text())
    assert not pid_alive(pids["agent"]) and not pid_alive(pids["grandchild"])
    titles = [f["title"] for f in out["report"]["findings"]]
    assert "Deadline reached" in titles
    events, _ = read_events(TaskStore(repo).paths(out["task_id"]).events)
    assert [e.type for e in events][-2:] == ["error", "finished"]


def test_cancel_from_another_process_sticks(repo: Path) -> None:
    run = start_run(
        repo, "hang", "--agent", "demo", "--context", context("hang", ignore_sigterm=True)
    )
    task_id = only_task(repo)
    pids = hang_pids(repo, task_id)
    cancelled = caesar(repo, "cancel", task_id, "--json")
    assert cancelled.returncode == 0, cancelled.stderr
    assert json.loads(cancelled.stdout)["cancelled"] is True
    stdout, _ = run.communicate(timeout=60)
    assert run.returncode == 1
    out = json.loads(stdout)
    assert out["status"] == "cancelled"
    record = TaskStore(repo).get(task_id)
    assert record.status is TaskStatus.CANCELLED and record.report_source is not None
    assert not pid_alive(pids["agent"]) and not pid_alive(pids["grandchild"])
    again = caesar(repo, "cancel", task_id)
    assert again.returncode == 0 and "already ended" in again.stdout


def test_an_abandoned_task_is_concluded_by_ps(repo: Path) -> None:
    run = start_run(repo, "hang", "--agent", "demo", "--context", context("hang"))
    task_id = only_task(repo)
    wait_for(lambda: TaskStore(repo).get(task_id).pid, what="the agent's pid")
    agent_pid = TaskStore(repo).get(task_id).pid
    assert agent_pid is not None
    run.send_signal(signal.SIGKILL)  # the orchestrator vanishes, its agent lives on
    run.communicate(timeout=30)
    listing = caesar(repo, "ps", "--json")
    [row] = json.loads(listing.stdout)
    assert row["status"] == "failed"
    assert "is gone" in row["ended_reason"]
    assert not pid_alive(agent_pid)
    report = json.loads(TaskStore(repo).paths(task_id).report.read_text())
    assert report["status"] == "failed"


def test_an_abandoned_task_keeps_the_report_the_agent_wrote(repo: Path) -> None:
    run = start_run(repo, "hang", "--agent", "demo", "--context", context("hang"))
    task_id = only_task(repo)
    wait_for(lambda: TaskStore(repo).get(task_id).pid, what="the agent's pid")
    paths = TaskStore(repo).paths(task_id)
    paths.report.write_text('{"protocol":"caesar.report/v1","status":"partial","summary":"half"}')
    os.kill(run.pid, signal.SIGKILL)
    run.communicate(timeout=30)
    caesar(repo, "ps")
    record = TaskStore(repo).get(task_id)
    assert record.status is TaskStatus.FAILED and record.report_status is not None
    assert record.report_status.value == "partial"
    assert json.loads(paths.report.read_text())["summary"] == "half"


def test_question_round_trip_and_a_double_answer(repo: Path) -> None:
    run = start_run(repo, "ask", "--agent", "demo", "--context", context("ask"))
    task_id = only_task(repo)
    paths = TaskStore(repo).paths(task_id)
    [question] = wait_for(lambda: pending_questions(paths), what="the question")
    assert question.options == ["yes", "no"]
    listing = json.loads(caesar(repo, "ps", "--json").stdout)
    assert listing[0]["pending_questions"][0]["id"] == question.id
    first = caesar(repo, "answer", task_id, question.id, "yes")
    assert first.returncode == 0, first.stderr
    second = caesar(repo, "answer", task_id, question.id, "no")
    assert second.returncode == 1 and "already answered" in second.stderr
    unknown = caesar(repo, "answer", task_id, "q_nope", "yes")
    assert unknown.returncode == 1 and "q_nope" in unknown.stderr
    stdout, _ = run.communicate(timeout=60)
    out = json.loads(stdout)
    assert "yes" in out["report"]["summary"]
    events, _ = read_events(paths.events)
    kinds = [e.type for e in events]
    assert "question" in kinds and kinds.count("answer") == 1
