"""Case 13, the process side: an agent whose ``caesar run`` was killed (or stopped) does not run
past its deadline, and its task is concluded without anyone running ``caesar ps``."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from caesar_core.store import TaskStore
from tests.hostile.conftest import hostile_agent
from tests.hostile.processes import (
    ESCAPES,
    assert_nothing_left,
    daemon_started,
    heartbeat_goes_on,
    heartbeat_stopped,
    no_leftovers,
)
from tests.runner.conftest import CAESAR, caesar_env, wait_for

__all__ = ["no_leftovers"]

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="Linux /proc")


def start_run(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CAESAR, "run", "orphan", "--agent", "orphan", "--json", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=caesar_env(),
    )


def concluded(repo: Path, task_id: str) -> str | None:
    """The record's status once terminal, read without sweeping (no ``caesar`` command runs)."""
    status = TaskStore(repo).get(task_id).status
    return status.value if status.terminal else None


def test_an_orphaned_agent_is_stopped_at_its_deadline_and_concluded(repo: Path) -> None:
    hostile_agent(repo, "orphan", f"{ESCAPES['setsid']}\nsleep 60\n")
    run = start_run(repo, "--timeout", "6s")
    task_id = daemon_started(repo)
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=30)
    task_dir = TaskStore(repo).paths(task_id).root
    heartbeat_goes_on(task_dir)  # orphaned, the agent goes on until its deadline
    assert wait_for(lambda: concluded(repo, task_id), timeout=30, what="the task concluded")
    record = TaskStore(repo).get(task_id)
    assert record.status.value == "failed" and "is gone" in (record.ended_reason or "")
    assert_nothing_left(repo, task_id)


def test_an_orphaned_agent_that_finishes_is_concluded_at_once(repo: Path) -> None:
    hostile_agent(
        repo,
        "orphan",
        """
        until [ -e "$CAESAR_TASK_DIR/go" ]; do sleep 0.05; done
        printf '{"protocol":"caesar.report/v1","status":"success","summary":"done alone"}' \\
            > "$CAESAR_REPORT_PATH"
        """,
    )
    run = start_run(repo, "--timeout", "10m")
    task_id = wait_for(lambda: [r.id for r in TaskStore(repo).list().records if r.pid], what="pid")[
        0
    ]
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=30)
    (TaskStore(repo).paths(task_id).root / "go").touch()
    assert wait_for(lambda: concluded(repo, task_id), timeout=30, what="the task concluded")
    record = TaskStore(repo).get(task_id)
    assert record.status.value == "failed" and record.report_status is not None
    assert record.report_status.value == "success"  # the agent's word kept, as the sweep does


def test_a_stopped_runner_does_not_stretch_the_deadline(repo: Path) -> None:
    """Ctrl-Z on ``caesar run``: the agent (in its own session) is still stopped in time, and
    the runner, once continued, concludes the task ``timed_out``."""
    hostile_agent(repo, "orphan", f"{ESCAPES['setsid']}\nsleep 60\n")
    run = start_run(repo, "--timeout", "1s")
    task_id = daemon_started(repo)
    run.send_signal(signal.SIGSTOP)
    try:
        task_dir = TaskStore(repo).paths(task_id).root
        wait_for(lambda: heartbeat_stopped(task_dir), timeout=40, what="the heartbeat to stop")
    finally:
        run.send_signal(signal.SIGCONT)
    run.communicate(timeout=60)
    assert TaskStore(repo).get(task_id).status.value == "timed_out"
    assert_nothing_left(repo, task_id)
