"""``caesar cancel`` of a task the reference implementation runs: its recorded pid leads no
process group (it shares its runner's), so the pid and its descendants are stopped, checked
dead, and the record and log are left as one ending, never two."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from caesar_core.runner import proctree
from tests.interop.conftest import ReferenceProject
from tests.runner.conftest import caesar, wait_for

STANDIN = Path(__file__).with_name("standin_runner.py")
AGENT = "#!/bin/bash\necho working\nsleep 3600 &\nwait $!\n"


def _alive(pid: int) -> bool:
    found = proctree.stat(pid)
    return found is not None and not found.zombie


class Runner:
    """The stand-in runner, its agent and the agent's helper, once they are all up."""

    def __init__(self, project: ReferenceProject, *, silent: bool) -> None:
        self.task_id = project.ids["running"]
        agent = project.root.parent / "agent.sh"
        agent.write_text(AGENT)
        agent.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
        args = [sys.executable, str(STANDIN), str(project.root), self.task_id, str(agent)]
        self.process = subprocess.Popen(
            [*args, *(["--silent"] if silent else [])],
            env=env,
            stdin=subprocess.PIPE,  # a silent runner lives until this closes
            start_new_session=True,
        )
        self.agent = int(wait_for(lambda: project.record(self.task_id).get("pid"), what="pid"))
        self.helper = int(wait_for(lambda: self._child_of(self.agent), what="the helper"))

    @staticmethod
    def _child_of(pid: int) -> int | None:
        kids = Path(f"/proc/{pid}/task/{pid}/children")
        text = kids.read_text().split() if kids.exists() else []
        return int(text[0]) if text else None

    def close(self) -> None:
        for pid in (self.helper, self.agent):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.process.stdin is not None:
            self.process.stdin.close()  # a silent runner's cue to end
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture
def runner(request: pytest.FixtureRequest, reference_project: ReferenceProject) -> Iterator[Runner]:
    started = Runner(reference_project, silent=request.param == "silent")
    yield started
    started.close()


def _events(project: ReferenceProject, task_id: str) -> list[dict[str, object]]:
    log = project.root / ".caesar" / "tasks" / task_id / "events.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("runner", ["reference"], indirect=True)
def test_a_live_reference_runner_concludes_then_caesar_names_it_cancelled(
    reference_project: ReferenceProject, runner: Runner
) -> None:
    assert os.getpgid(runner.agent) != runner.agent  # the agent leads no group
    done = caesar(reference_project.root, "cancel", runner.task_id, "--json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["cancelled"] is True and said["status"] == "cancelled"
    assert set(said["signalled"]) == {runner.agent, runner.helper} and said["alive"] == []
    assert said["concluded_by"] == f"the reference's runner (pid {runner.process.pid})"
    assert "concluded it failed" in said["notes"][0]
    assert not _alive(runner.agent) and not _alive(runner.helper)
    assert runner.process.wait(timeout=10) == 0  # the runner was not signalled: it concluded
    record = reference_project.record(runner.task_id)
    assert record["status"] == "cancelled" and "pid" not in record
    assert record["report_status"] == "failed" and record["task_dir"]
    events = _events(reference_project, runner.task_id)
    assert [e["type"] for e in events].count("finished") == 1  # the runner's, not a second
    assert len({e["seq"] for e in events}) == len(events)
    ps = caesar(reference_project.root, "ps")
    assert runner.task_id in ps.stdout and "cancelled" in ps.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("runner", ["silent"], indirect=True)
def test_without_a_runner_caesar_stops_the_pid_and_its_descendants_and_concludes(
    reference_project: ReferenceProject, runner: Runner
) -> None:
    assert os.getpgid(runner.agent) == runner.process.pid != runner.agent
    done = caesar(reference_project.root, "cancel", runner.task_id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"cancelled {runner.task_id}: stopped 2 processes (pid ")
    assert str(runner.agent) in done.stdout and str(runner.helper) in done.stdout
    assert "none left alive" in done.stdout
    assert not _alive(runner.agent) and not _alive(runner.helper)
    assert runner.process.poll() is None  # the group's leader is not the task's: left alone
    record = reference_project.record(runner.task_id)
    assert record["status"] == "cancelled" and "pid" not in record
    events = _events(reference_project, runner.task_id)
    assert [e["type"] for e in events].count("finished") == 1  # caesar's: nobody else wrote one
    assert len({e["seq"] for e in events}) == len(events)
    again = caesar(reference_project.root, "cancel", runner.task_id)
    assert "had already ended: cancelled" in again.stdout
