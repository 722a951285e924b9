"""Case 12: nothing an agent started survives its deadline, its cancellation or its end, however
its helper left the agent's process group (``setsid``, a double fork, ``setpgid``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from caesar_core.runner import cgroup
from caesar_core.store import TaskStore
from tests.hostile.conftest import caesar, hostile_agent, run_json
from tests.hostile.processes import (
    ESCAPES,
    NO_CGROUP,
    assert_nothing_left,
    daemon_started,
    heartbeat_stopped,
    marked,
    no_leftovers,
)
from tests.runner.conftest import CAESAR, caesar_env, wait_for

__all__ = ["no_leftovers"]

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="Linux /proc")


@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_a_helper_that_left_the_group_dies_at_the_deadline(repo: Path, escape: str) -> None:
    hostile_agent(repo, "escaper", f"{ESCAPES[escape]}\nsleep 60\n")
    out = run_json(repo, "escape", "--agent", "escaper", "--timeout", "2s")
    assert out["status"] == "timed_out", out["_stderr"]
    assert_nothing_left(repo, out["task_id"])


def test_without_a_cgroup_the_marker_sweep_still_finds_it(repo: Path) -> None:
    hostile_agent(repo, "escaper", f"{ESCAPES['double_fork_setsid']}\nsleep 60\n")
    out = run_json(repo, "escape", "--agent", "escaper", "--timeout", "2s", env=NO_CGROUP)
    assert out["status"] == "timed_out", out["_stderr"]
    assert_nothing_left(repo, out["task_id"])


@pytest.mark.parametrize("env", [{}, NO_CGROUP], ids=["default", "no_cgroup"])
def test_a_helper_left_behind_by_an_agent_that_exits_dies_with_it(
    repo: Path, env: dict[str, str]
) -> None:
    hostile_agent(repo, "escaper", f"{ESCAPES['setsid']}\nsleep 0.3\nexit 0\n")
    out = run_json(repo, "escape", "--agent", "escaper", env=env)
    assert out["status"] == "succeeded", out["_stderr"]
    assert_nothing_left(repo, out["task_id"])


@pytest.mark.parametrize("env", [{}, NO_CGROUP], ids=["default", "no_cgroup"])
def test_cancel_from_another_terminal_kills_the_whole_tree(repo: Path, env: dict[str, str]) -> None:
    hostile_agent(repo, "escaper", f"{ESCAPES['setsid']}\nsleep 60\n")
    run = subprocess.Popen(
        [CAESAR, "run", "escape", "--agent", "escaper", "--json"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=caesar_env(env),
    )
    task_id = daemon_started(repo)
    cancelled = caesar(repo, "cancel", task_id, "--json", env=env)
    assert cancelled.returncode == 0, cancelled.stderr
    assert json.loads(cancelled.stdout)["cancelled"] is True
    run.communicate(timeout=60)
    assert TaskStore(repo).get(task_id).status.value == "cancelled"
    assert_nothing_left(repo, task_id)


def test_cancel_kills_the_tree_when_its_runner_is_gone(repo: Path) -> None:
    """``caesar cancel`` is not the agents' subreaper: it finds them by cgroup and marker."""
    hostile_agent(repo, "escaper", f"{ESCAPES['setsid']}\nsleep 60\n")
    run = subprocess.Popen(
        [CAESAR, "run", "escape", "--agent", "escaper", "--timeout", "10m", "--json"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=caesar_env(NO_CGROUP),
    )
    task_id = daemon_started(repo)
    run.kill()
    run.communicate(timeout=30)
    assert marked(f"CAESAR_TASK_ID={task_id}")  # orphaned, still running
    cancelled = caesar(repo, "cancel", task_id, "--json")
    assert cancelled.returncode == 0, cancelled.stderr
    assert_nothing_left(repo, task_id)


@pytest.mark.skipif(
    cgroup.own() is None or not os.access(cgroup.own() or "/", os.W_OK),
    reason="no cgroup v2 this user may create",
)
def test_with_a_cgroup_even_a_helper_that_clears_its_environment_dies(repo: Path) -> None:
    hostile_agent(
        repo,
        "escaper",
        f'env -i CAESAR_TASK_DIR="$CAESAR_TASK_DIR" {ESCAPES["setsid"]}\nsleep 60\n',
    )
    out = run_json(repo, "escape", "--agent", "escaper", "--timeout", "2s")
    assert out["status"] == "timed_out", out["_stderr"]
    task_dir = TaskStore(repo).paths(out["task_id"]).root
    wait_for(lambda: heartbeat_stopped(task_dir), timeout=15, what="the heartbeat to stop")
    assert not marked(str(task_dir))
