"""Issue 11, cases 4 to 6: a report that is a FIFO, a directory or nested thousands of levels
deep, a log that is a directory, a record that is garbage. ``run`` returns; ``ps``, ``gc``,
``watch`` and ``cancel`` answer for every task, show the broken one as broken with the
reason, and never block or print a traceback."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from caesar_core.mcp.session import Session
from caesar_core.store import TaskStore
from tests.hostile.conftest import BOUND_S, hostile_agent
from tests.hostile.taskdir_kit import (
    answers,
    caesars_ending,
    every_reader_answers,
    findings,
    kill_orchestrator,
    listed,
    other_task,
    run,
    running_task,
    start,
)
from tests.runner.conftest import wait_for

DEEP = "python3 -c \"print('{\\\"a\\\":' * 3000 + '1' + '}' * 3000)\""
REPORTS = {
    "fifo": ('mkfifo "$CAESAR_REPORT_PATH"', "is a FIFO"),
    "directory": ('mkdir "$CAESAR_REPORT_PATH"', "is a directory"),
    "deep": (f'{DEEP} > "$CAESAR_REPORT_PATH"', "is JSON nested 3000 levels deep"),
}


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_a_hostile_report_fails_the_task_and_breaks_nothing(repo: Path, kind: str) -> None:
    other = other_task(repo)
    make, why = REPORTS[kind]
    hostile_agent(repo, "breaker", make + "\n")
    out = run(repo, "breaker")
    assert out["status"] == "failed" and out["_exit"] == 1
    assert f"report.json {why}" in findings(out)
    assert caesars_ending(repo, out["task_id"]) == "failed"
    every_reader_answers(repo, other, out["task_id"])
    assert answers(repo, "cancel", out["task_id"]).returncode == 0  # already ended: says so
    rows = listed(repo)
    assert rows[other]["status"] == "succeeded" and rows[out["task_id"]]["status"] == "failed"


@pytest.mark.parametrize("first", ["ps", "cancel"])
@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_a_hostile_report_of_an_abandoned_task_blocks_no_reader(
    repo: Path, kind: str, first: str
) -> None:
    """The orchestrator is gone: the first reader (``ps``) or ``cancel`` concludes the task,
    reading its report the safe way."""
    other = other_task(repo)
    make, _ = REPORTS[kind]
    hostile_agent(repo, "breaker", make + '\ntouch "$CAESAR_TASK_DIR/ready"\nexec sleep 60\n')
    process = start(repo, "breaker")
    task_id = running_task(repo, process)
    ready = TaskStore(repo).paths(task_id).root / "ready"
    wait_for(ready.exists, timeout=BOUND_S, what="the hostile report")
    kill_orchestrator(process)
    if first == "cancel":
        cancelled = answers(repo, "cancel", task_id)
        assert cancelled.returncode == 0 and "cancelled" in cancelled.stdout
    every_reader_answers(repo, other, task_id)
    rows = listed(repo)
    assert rows[other]["status"] == "succeeded"
    assert rows[task_id]["status"] == ("cancelled" if first == "cancel" else "failed")
    assert caesars_ending(repo, task_id) == "failed"


def test_a_log_that_is_a_directory_is_shown_broken_not_fatal(repo: Path) -> None:
    """An orphan (or the agent, before caesar writes again) leaves a directory where the log
    was: readers say so for that task and show the others."""
    other = other_task(repo)
    hostile_agent(repo, "quiet", "exit 0\n")
    out = run(repo, "quiet")
    events = TaskStore(repo).paths(out["task_id"]).events
    events.unlink()
    events.mkdir()
    (events / "x").write_text("not a log")
    frame = every_reader_answers(repo, other, out["task_id"])
    [line] = [line for line in frame.splitlines() if out["task_id"] in line]
    assert "broken:" in line and "is a directory" in line
    logs = answers(repo, "logs", out["task_id"])
    assert logs.returncode == 0 and "is a directory" in logs.stderr
    assert "failed" not in answers(repo, "logs", other).stdout


def test_a_garbage_record_is_listed_as_broken_and_hides_nothing(repo: Path) -> None:
    other = other_task(repo)
    victim = other_task(repo)
    TaskStore(repo).record_path(victim).write_bytes(b"\x00garbage{" + b"[" * 5000)
    rows = listed(repo)
    assert rows[other]["status"] == "succeeded"
    assert rows[victim]["status"] == "broken" and "unreadable" in rows[victim]["problem"]
    ps = answers(repo, "ps")
    assert ps.returncode == 0
    [line] = [line for line in ps.stdout.splitlines() if victim in line]
    assert "broken" in line
    frame = answers(repo, "watch", "--once")
    assert frame.returncode == 0 and other in frame.stdout
    assert any(victim in line and "broken" in line for line in frame.stdout.splitlines())
    collected = answers(repo, "gc", "--dry-run", "--json")
    assert collected.returncode == 0
    decided = {row["task_id"]: row for row in json.loads(collected.stdout)}
    assert decided[other]["decision"] == "would remove"
    assert decided[victim]["decision"] == "kept"
    shutil.rmtree(TaskStore(repo).paths(victim).root)  # no task dir either: still no crash
    assert answers(repo, "ps", "--all").returncode == 0


def test_the_mcp_server_answers_for_every_task_and_the_broken_one(repo: Path) -> None:
    other = other_task(repo)
    hostile_agent(repo, "breaker", REPORTS["fifo"][0] + "\nexec sleep 60\n")
    process = start(repo, "breaker")
    task_id = running_task(repo, process)
    kill_orchestrator(process)
    events = TaskStore(repo).paths(task_id).events
    events.unlink()
    events.mkdir()  # and its log is a directory
    session = Session(repo)

    def ask() -> dict[str, Any]:
        return {
            "awaited": session.await_tasks([other, task_id], timeout_ms=0)["tasks"],
            "status": session.status(task_id),
            "logs": session.logs(task_id, raw=False, limit=5),
            "raw": session.logs(task_id, raw=True, limit=5),
            "cancel": session.cancel(task_id),
        }

    shown = within_bound(ask)
    assert shown["awaited"][other]["status"] == "succeeded"
    assert shown["awaited"][task_id]["status"] == "failed"
    assert shown["awaited"][task_id]["report"]["status"] == "failed"
    assert shown["status"]["status"] == "failed" and shown["logs"]["status"] == "failed"
    assert shown["raw"]["task_id"] == task_id
    assert shown["cancel"]["cancelled"] is False  # already concluded, and says so


def within_bound(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``work()`` in a daemon thread: a call that blocks fails the test instead of hanging it."""
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(work()), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert not thread.is_alive(), "the MCP session blocked"
    return result
