"""What the task-directory attacks share: running a hostile agent, killing its orchestrator,
and asking every reader (``ps``, ``gc``, ``watch``, ``logs``) whether it still answers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from caesar_core.events import read_events
from caesar_core.protocol.event import FinishedEvent
from caesar_core.store import TaskRecord, TaskStore
from tests.hostile.conftest import BOUND_S
from tests.runner.conftest import CAESAR, caesar, caesar_env, context, wait_for


def run(repo: Path, agent: str, *args: str) -> dict[str, Any]:
    """``caesar run --json`` to its end, within the bound."""
    result = caesar(repo, "run", "x", "--agent", agent, *args, "--json", timeout=BOUND_S)
    assert result.stdout, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    data["_exit"] = result.returncode
    return data


def start(repo: Path, agent: str) -> subprocess.Popen[str]:
    """``caesar run`` in the background, for an agent that waits."""
    return subprocess.Popen(
        [CAESAR, "run", "x", "--agent", agent, "--json"],
        cwd=repo,
        env=caesar_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def other_task(repo: Path) -> str:
    """A well-behaved task next to the hostile one: it must stay listed, unaffected."""
    out = run(repo, "demo", "--context", context("quick"))
    assert out["status"] == "succeeded", out
    return str(out["task_id"])


def running_task(repo: Path, process: subprocess.Popen[str]) -> str:
    """The id of the task ``process`` runs, once its agent is up."""

    def agent_up() -> str | None:
        for record in TaskStore(repo).list().records:
            if record.pid is not None and not record.status.terminal:
                return record.id
        return None

    found: str = wait_for(agent_up, timeout=BOUND_S, what="the agent to start")
    return found


def kill_orchestrator(process: subprocess.Popen[str]) -> None:
    """The ``caesar run`` vanishes (SIGKILL); its agent lives on, orphaned."""
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=BOUND_S)


def answers(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A reader that must answer, within the bound, without a traceback."""
    result = caesar(repo, *args, timeout=BOUND_S)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def listed(repo: Path) -> dict[str, dict[str, Any]]:
    """``caesar ps --all --json`` by task id."""
    result = answers(repo, "ps", "--all", "--json")
    assert result.returncode == 0, result.stderr
    return {row["id"]: row for row in json.loads(result.stdout)}


def every_reader_answers(repo: Path, *task_ids: str) -> str:
    """``ps``, ``ps --all``, ``gc --dry-run``, ``gc`` and ``watch --once`` answer and name
    every task; returns the ``watch --once`` frame."""
    readers = (
        ("ps",),
        ("ps", "--all"),
        ("gc", "--dry-run"),
        ("gc", "--dry-run", "--json"),
        ("gc",),
    )
    for args in readers:
        result = answers(repo, *args)
        assert result.returncode == 0, (args, result.stderr)
    ps = answers(repo, "ps", "--all").stdout
    frame = answers(repo, "watch", "--once")
    assert frame.returncode == 0, frame.stderr
    for task_id in task_ids:
        assert task_id in ps, ps
        assert task_id in frame.stdout, frame.stdout
    return frame.stdout


def record(repo: Path, task_id: str) -> TaskRecord:
    return TaskStore(repo).get(task_id)


def caesars_ending(repo: Path, task_id: str) -> str:
    """The status of the ``finished`` event caesar's record names; it must exist."""
    rec = record(repo, task_id)
    assert rec.ending_seq is not None, rec
    events, _ = read_events(TaskStore(repo).paths(task_id).events)
    [ending] = [e for e in events if isinstance(e, FinishedEvent) and e.seq == rec.ending_seq]
    return str(ending.status.value)


def findings(out: dict[str, Any]) -> str:
    """Every finding of the report, as one text."""
    return "\n".join(f"{f['title']}: {f['detail']}" for f in out["report"]["findings"])
