"""The process tree of a task (``proctree``, ``cgroup``), the watchdog's imports, and the output
pump on a full disk (``supervise``), with real processes and faults injected at ``os.write``."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from caesar_core.agents.base import Launch, SilentTranslator
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.taskdir import ENV_TASK_ID
from caesar_core.runner import cgroup, proctree
from caesar_core.runner.slots import pid_alive
from caesar_core.runner.supervise import run_agent
from tests.runner.conftest import wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

TASK = "t_" + "ab" * 16


@pytest.fixture
def spawned() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts; whatever is left of them is killed afterwards."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start(spawned: list[subprocess.Popen[bytes]], script: str, **env: str) -> int:
    process = subprocess.Popen(
        ["sh", "-c", script], env={**os.environ, **env}, start_new_session=True
    )
    spawned.append(process)
    return process.pid


def pid_of(path: Path) -> int:
    return int(wait_for(lambda: path.exists() and path.read_text().strip(), what=str(path)))


def test_the_marker_is_the_contract_variable() -> None:
    assert proctree.MARKER_VARIABLE == ENV_TASK_ID


def test_a_setsid_grandchild_is_found_by_its_marker_and_stopped(
    tmp_path: Path, spawned: list[subprocess.Popen[bytes]]
) -> None:
    pidfile = tmp_path / "escaped"
    leader = start(
        spawned,
        f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 60' & sleep 60",
        **{ENV_TASK_ID: TASK},
    )
    escaped = pid_of(pidfile)
    found = {p.pid for p in proctree.members(TASK, leader=leader)}
    assert {leader, escaped} <= found
    assert proctree.stop(TASK, leader=leader, grace_s=2) == 0
    assert not pid_alive(escaped)


def test_a_longer_task_id_is_not_the_same_marker(
    tmp_path: Path, spawned: list[subprocess.Popen[bytes]]
) -> None:
    start(spawned, "sleep 60", **{ENV_TASK_ID: TASK + "cd"})
    start(spawned, "sleep 60", **{ENV_TASK_ID: TASK[:-2]})
    assert proctree.members(TASK) == []


def test_a_child_that_cleared_its_environment_is_found_through_its_session(
    tmp_path: Path, spawned: list[subprocess.Popen[bytes]]
) -> None:
    pidfile = tmp_path / "clean"
    leader = start(
        spawned,
        f"env -i sh -c 'echo $$ > {pidfile}; exec sleep 60' & sleep 60",
        **{ENV_TASK_ID: TASK},
    )
    clean = pid_of(pidfile)
    assert clean in {p.pid for p in proctree.members(TASK, leader=leader)}


def test_a_leader_pid_without_the_marker_is_someone_else(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    """A recorded agent pid reused by an unrelated process: neither it nor its group is taken."""
    stranger = start(spawned, "sleep 60 & sleep 60")
    assert proctree.members(TASK, leader=stranger) == []
    assert proctree.stop(TASK, leader=stranger, grace_s=0) == 0
    assert pid_alive(stranger)


def test_the_sweep_never_takes_its_own_process() -> None:
    os.environ[ENV_TASK_ID] = TASK
    try:
        # This interpreter was not started with the marker; a child of it is.
        assert os.getpid() not in {p.pid for p in proctree.members(TASK)}
    finally:
        del os.environ[ENV_TASK_ID]


def test_a_cgroup_from_a_record_must_be_the_one_caesar_makes_for_that_task() -> None:
    assert cgroup.checked(None, TASK) is None
    assert cgroup.checked("/tmp/caesar." + TASK, TASK) is None  # not a cgroup v2 mount
    assert cgroup.checked("relative/caesar." + TASK, TASK) is None
    mount = cgroup.own()
    if mount is not None:
        assert cgroup.checked(str(mount / "caesar.t_other"), TASK) is None
        assert cgroup.checked(str(mount / "x" / ".." / f"caesar.{TASK}"), TASK) is None
        assert cgroup.checked(str(mount / f"caesar.{TASK}"), TASK) == mount / f"caesar.{TASK}"


def test_cgroup_off_in_the_environment_means_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroup.ENV_SWITCH, "off")
    assert cgroup.create(TASK) is None


def test_the_watchdog_imports_no_heavy_library() -> None:
    """It starts beside every agent: pydantic, pygit2, click stay out until it must conclude."""
    probe = (
        "import sys, caesar_core.runner.watchdog; "
        "print(sorted(m for m in ('pydantic', 'pygit2', 'click', 'rich', 'textual', 'mcp') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_a_full_disk_under_raw_log_never_stops_the_pump(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every write to raw.log fails with ENOSPC: the agent's 500 KB still drain (it would block
    on a full pipe otherwise), it ends by itself, and the loss is said with its cause."""
    real_write = os.write
    raw_log = tmp_path / "raw.log"

    def full_disk(fd: int, data: bytes | memoryview) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target == str(raw_log):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    monkeypatch.setenv(cgroup.ENV_SWITCH, "off")
    line = "line $i " + "." * 90
    script = f"i=0; while [ $i -lt 5000 ]; do echo {line}; i=$((i+1)); done"
    with EventWriter(tmp_path / "events.jsonl", TASK) as events:
        ended = run_agent(
            Launch(argv=["sh", "-c", script], cwd=tmp_path),
            task_id=TASK,
            env={**os.environ, ENV_TASK_ID: TASK},
            raw_log=raw_log,
            translator=SilentTranslator(),
            events=events,
            timeout_s=60,
            cancel_requested=lambda: False,
            on_spawn=lambda pid, group: None,
        )
    assert ended.exit_code == 0 and not ended.timed_out
    assert ended.output_lost is not None
    assert "the disk is full" in ended.output_lost and "raw.log stopped" in ended.output_lost
    assert raw_log.stat().st_size == 0


REAPER = """
import os, signal, subprocess, sys, time
from caesar_core.runner import proctree

assert proctree.become_subreaper()
# Each exit of a child (ours, or an orphan handed to us) is a SIGCHLD: waited for, never slept on.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
with proctree.spawn_lock:
    own = subprocess.Popen(["sh", "-c", "exit 7"], start_new_session=True)
    proctree.started(own.pid)
with proctree.spawn_lock:
    agent = subprocess.Popen(
        ["sh", "-c", "setsid sh -c 'sleep 0.1' & sh -c 'sleep 0.1' &"], start_new_session=True
    )
    proctree.started(agent.pid)
agent.wait()
proctree.forget(agent.pid)
def zombies():
    return sorted(p.pid for p in proctree._children_zombies(os.getpid()))

deadline = time.monotonic() + 20
while len(zombies()) < 3 and time.monotonic() < deadline:
    # the orphans exit: zombies of this subreaper, and so is `own`
    signal.sigtimedwait([signal.SIGCHLD], max(0.0, deadline - time.monotonic()))
before = zombies()
proctree.reap(agent.pid)
after = zombies()
print(len(before), after == [own.pid], own.wait())
"""


def test_reaping_takes_the_agents_orphans_never_a_child_caesar_waits_for() -> None:
    """As a subreaper, caesar collects the zombies its agents' orphans leave, and only those:
    a ``Popen`` of its own keeps its exit status."""
    done = subprocess.run(
        [sys.executable, "-c", REAPER], capture_output=True, text=True, check=False, timeout=30
    )
    assert done.stdout.split() == ["3", "True", "7"], done.stderr


def test_the_watchdog_waits_with_the_standard_library_alone(tmp_path: Path) -> None:
    """Its first wait (the whole life of a watchdog whose task ends in time) runs without
    ``site`` and loads neither ``pathlib``, ``json``, ``typing`` nor the watchdog's own module:
    it starts beside the agent and would take the processor from it."""
    from caesar_core.runner.watchstart import boot_argv

    probe = tmp_path / "modules.txt"
    *interpreter, code = boot_argv()
    assert interpreter[1:] == ["-S", "-c"]
    code = code.replace(
        "exited = first_wait(sys.argv[1:])\n",
        "assert first_wait(sys.argv[1:-1]) is False\n"
        "open(sys.argv[-1], 'w').write(' '.join(sorted(sys.modules)))\n"
        "sys.exit(0)\n",
    )
    # The orchestrator (this process) lives; its deadline is long past: the wait ends at once.
    args = ["--deadline", "1", "--orchestrator", str(os.getpid()), str(probe)]
    subprocess.run([*interpreter, code, *args], check=True, timeout=30)
    loaded = set(probe.read_text().split())
    assert "caesar_core.runner.watchstart" in loaded
    assert not {"site", "pathlib", "json", "typing", "caesar_core.runner.watchdog"} & loaded
