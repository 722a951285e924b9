"""Case 12: nothing an agent started survives its deadline, its cancellation or its end, however
its helper left the agent's process group (``setsid``, a double fork, ``setpgid``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from caesar_core.runner import cgroup
from caesar_core.runner.slots import pid_alive
from caesar_core.store import TaskStore
from tests.hostile.conftest import caesar, hostile_agent, run_json
from tests.runner.conftest import CAESAR, caesar_env, wait_for

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="Linux /proc")

LOOP = (
    'echo $$ > "$CAESAR_TASK_DIR/daemon.pid"; '
    'while :; do date +%s%N > "$CAESAR_TASK_DIR/heartbeat"; sleep 0.05; done'
)
ESCAPES = {
    "setsid": f"setsid sh -c '{LOOP}' </dev/null >/dev/null 2>&1 &",
    "double_fork_setsid": f"sh -c \"(setsid sh -c '{LOOP}' &)\" </dev/null >/dev/null 2>&1",
    "setpgid": (
        'python3 -c \'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c", '
        f"sys.argv[1]])' '{LOOP}' </dev/null >/dev/null 2>&1 &"
    ),
}
NO_CGROUP = {"CAESAR_CGROUP": "off"}
"""The fallback: marker sweep and subreaper only, as on a machine without a usable cgroup."""


def marked(needle: str) -> list[int]:
    """Live processes whose environment mentions ``needle`` (read here, not through caesar)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if needle.encode() in environ and state != b"Z":
            found.append(int(name))
    return found


@pytest.fixture(autouse=True)
def no_leftovers(tmp_path: Path) -> Iterator[None]:
    """Whatever a failing test leaves running is killed, not left on a shared machine."""
    yield
    for pid in marked(str(tmp_path)):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def heartbeat_stopped(task_dir: Path) -> bool:
    beat = task_dir / "heartbeat"
    before = beat.read_bytes() if beat.exists() else b""
    time.sleep(0.3)  # the loop beats every 50 ms
    return (beat.read_bytes() if beat.exists() else b"") == before


def assert_nothing_left(repo: Path, task_id: str) -> None:
    task_dir = TaskStore(repo).paths(task_id).root
    daemon = int(wait_for(lambda: (task_dir / "daemon.pid").read_text().strip(), what="pid"))
    wait_for(lambda: not marked(f"CAESAR_TASK_ID={task_id}"), timeout=15, what="no process left")
    wait_for(lambda: heartbeat_stopped(task_dir), timeout=15, what="the heartbeat to stop")
    assert not pid_alive(daemon)


def daemon_started(repo: Path) -> str:
    def found() -> str | None:
        for record in TaskStore(repo).list().records:
            if (TaskStore(repo).paths(record.id).root / "daemon.pid").exists():
                return record.id
        return None

    task_id: str = wait_for(found, what="the agent's daemon")
    return task_id


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
