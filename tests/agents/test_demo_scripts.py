"""The demo agent's scripts, each run as a real process on a task directory laid out by hand.

No orchestrator here: the test plays it (task.json, the ``CAESAR_*`` variables, a git
workspace with one commit, the mailbox answer, the signals), so what is checked is the agent's
side of the contract alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.demo import SCRIPTS, options_of
from caesar_core.events import read_events
from caesar_core.protocol import (
    REPORT_ADAPTER,
    ChangeAction,
    Event,
    Isolation,
    Mode,
    Report,
    ReportStatus,
    Task,
    TaskPaths,
    ToolStatus,
    parse,
    read_report,
    task_environment,
)
from caesar_core.protocol.task import FollowUp
from caesar_core.protocol.versions import TASK_V1
from caesar_core.store.mailbox import answer, questions

AGENT = [sys.executable, "-m", "caesar_core.agents.demo"]
GIT_ID = [
    "-c",
    "user.name=test",
    "-c",
    "user.email=test@caesar.invalid",
    "-c",
    "commit.gpgsign=false",
]
TASK_ID = "t_" + "0" * 31 + "1"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A real git repository with one commit, made with the git CLI."""
    root = tmp_path / "workspace"
    root.mkdir()
    git(root, "init", "-q")
    (root / "README.md").write_text("# project\n")
    (root / "app.py").write_text("print('hello')\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial commit")
    return root


class Agent:
    """One task directory and the demo agent run on it."""

    def __init__(
        self,
        tmp_path: Path,
        workspace: Path,
        context: dict[str, Any],
        *,
        mode: Mode = Mode.WRITE,
        deadline_ms: int = 60_000,
        followup: FollowUp | None = None,
    ) -> None:
        self.paths = TaskPaths(tmp_path / "task")
        self.paths.root.mkdir()
        self.workspace = workspace
        self.task = Task(
            protocol=TASK_V1,
            id=TASK_ID,
            created_at=datetime.now(UTC),
            agent="demo",
            objective="Fix the parser regression on empty inputs",
            context=json.dumps({"delay": 0, **context}),
            mode=mode,
            isolation=Isolation.INPLACE,
            workspace=str(workspace),
            deadline_ms=deadline_ms,
            report_path=str(self.paths.report),
            events_path=str(self.paths.events),
            followup=followup,
        )
        self.paths.task_file.write_text(json.dumps(self.task.to_json_dict()))
        base = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
        self.env = {**base, **task_environment(self.paths, self.task.id, "demo", 0)}
        self.spawned: list[subprocess.Popen[bytes]] = []

    def run(self, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            AGENT,
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def start(self) -> subprocess.Popen[bytes]:
        """Spawn the agent in its own session and process group, as the orchestrator does."""
        with (self.paths.root / "stdout.log").open("wb") as out:
            agent = subprocess.Popen(
                AGENT,
                cwd=self.workspace,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.spawned.append(agent)
        return agent

    def events(self) -> list[Event]:
        """The agent's events: all valid, seqs 0.., none of the orchestrator's own."""
        events, bad = read_events(self.paths.events)
        assert not bad
        assert [e.seq for e in events] == list(range(len(events)))
        assert all(e.task_id == TASK_ID for e in events)
        assert not {"started", "finished"} & {e.type for e in events}
        return events

    def report(self) -> Report:
        return read_report(self.paths.report)


@pytest.fixture
def agent_of(tmp_path: Path, workspace: Path) -> Iterator[Callable[..., Agent]]:
    made: list[Agent] = []

    def make(context: dict[str, Any], **kwargs: Any) -> Agent:
        agent = Agent(tmp_path, kwargs.pop("workspace", workspace), context, **kwargs)
        made.append(agent)
        return agent

    yield make
    for agent in made:
        for process in agent.spawned:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


POLL_S = 0.02
"""How often a condition is looked at again: a poll with a deadline, never a fixed wait."""


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL_S)


def tool_calls_paired(events: list[Event]) -> dict[str, list[ToolStatus]]:
    """Every call id's edges, in order: one start, then one end."""
    calls: dict[str, list[ToolStatus]] = {}
    for event in events:
        if event.type == "tool_use":
            calls.setdefault(event.id, []).append(event.status)
    for edges in calls.values():
        assert len(edges) == 2 and edges[0] is ToolStatus.STARTED
        assert edges[1] is not ToolStatus.STARTED
    return calls


def status_of(workspace: Path) -> list[str]:
    return git(workspace, "status", "--porcelain", "--untracked-files=all").splitlines()


def commits(workspace: Path) -> int:
    return int(git(workspace, "rev-list", "--count", "HEAD"))


def alive(pid: int) -> bool:
    """Alive and not a zombie (a reaped-late zombie is as dead as it gets)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


# -- quick ------------------------------------------------------------------------------


def test_quick_thinks_calls_one_tool_says_and_succeeds(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "quick"})
    result = agent.run()
    assert result.returncode == 0, result.stderr
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS and report.task_id == TASK_ID
    assert report.usage is not None and report.usage.duration_ms is not None
    assert report.usage.duration_ms < 1000
    events = agent.events()
    assert [e.type for e in events] == ["thinking", "tool_use", "tool_use", "message"]
    assert list(tool_calls_paired(events).values()) == [[ToolStatus.STARTED, ToolStatus.SUCCEEDED]]
    assert status_of(agent.workspace) == []
    assert result.stdout.strip() == report.summary


# -- work -------------------------------------------------------------------------------


def test_work_commits_one_file_and_leaves_another_uncommitted(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "work"})
    result = agent.run()
    assert result.returncode == 0, result.stderr

    workspace = agent.workspace
    assert commits(workspace) == 2
    assert git(workspace, "log", "-1", "--format=%s").strip() == (
        "demo: note the objective in README.md"
    )
    assert git(workspace, "show", "--name-only", "--format=", "HEAD").split() == ["README.md"]
    assert status_of(workspace) == ["?? DEMO_NOTES.md"]
    assert agent.task.objective in (workspace / "README.md").read_text()
    assert (workspace / "DEMO_NOTES.md").read_text() == f"- {agent.task.objective}\n"

    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    assert [(c.path, c.action) for c in report.changes] == [
        ("README.md", ChangeAction.MODIFIED),
        ("DEMO_NOTES.md", ChangeAction.CREATED),
    ]
    ran = {c.command: c.exit_code for c in report.commands_run}
    assert ran["git add -- README.md"] == 0
    commit = next(c for c in report.commands_run if " commit " in f" {c.command} ")
    assert commit.exit_code == 0
    assert ran["git status --short"] == 0
    assert [(f.severity.value, f.title) for f in report.findings] == [("info", "Demo agent")]
    assert report.next_steps
    assert report.usage is not None and report.usage.duration_ms is not None

    events = agent.events()
    changed = [(e.path, e.action) for e in events if e.type == "file_changed"]
    assert changed == [
        ("README.md", ChangeAction.MODIFIED),
        ("DEMO_NOTES.md", ChangeAction.CREATED),
    ]
    calls = tool_calls_paired(events)
    assert all(edges[1] is ToolStatus.SUCCEEDED for edges in calls.values())
    assert len(calls) >= 6
    assert events[-1].type == "message" and events[-1].text == report.summary


def test_work_in_a_read_only_task_modifies_nothing(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "work"}, mode=Mode.READ_ONLY)
    result = agent.run()
    assert result.returncode == 0, result.stderr
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    assert "modified nothing" in report.summary
    assert report.changes == []
    assert commits(agent.workspace) == 1 and status_of(agent.workspace) == []
    assert not [e for e in agent.events() if e.type == "file_changed"]


def test_work_outside_git_creates_its_files_and_commits_nothing(
    tmp_path: Path, agent_of: Callable[..., Agent]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    agent = agent_of({"script": "work"}, workspace=plain)
    result = agent.run()
    assert result.returncode == 0, result.stderr
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    assert "not a git repository" in report.summary
    assert [(c.path, c.action) for c in report.changes] == [
        ("NOTES.md", ChangeAction.CREATED),
        ("DEMO_NOTES.md", ChangeAction.CREATED),
    ]
    assert sorted(p.name for p in plain.iterdir()) == ["DEMO_NOTES.md", "NOTES.md"]
    assert not any("commit" in c.command for c in report.commands_run)


# -- ask --------------------------------------------------------------------------------


def test_ask_waits_for_the_answer_and_reports_it(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "ask"})
    process = agent.start()
    wait_for(lambda: bool(questions(agent.paths)), "the question file")
    [(asked, none)] = questions(agent.paths)
    assert none is None
    assert asked.question == "Should the old behavior be kept?"
    assert asked.options == ["yes", "no"]
    answer(agent.paths, asked.id, "yes", by="test")
    assert process.wait(timeout=30) == 0

    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    assert "The answer was: yes" in report.summary
    events = agent.events()
    [question] = [e for e in events if e.type == "question"]
    assert (question.id, question.question, question.options) == (
        asked.id,
        asked.question,
        ["yes", "no"],
    )
    assert any(e.type == "tool_use" and e.tool == "ask_orchestrator" for e in events)
    tool_calls_paired(events)


def test_ask_without_an_answer_is_blocked_before_the_deadline(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "ask"}, deadline_ms=1500)
    result = agent.run(timeout=30)
    ended = datetime.now(UTC)
    assert result.returncode == 0, result.stderr
    report = agent.report()
    assert report.status is ReportStatus.BLOCKED
    [(asked, none)] = questions(agent.paths)
    assert none is None
    assert [(q.id, q.question, q.options) for q in report.questions] == [
        (asked.id, "Should the old behavior be kept?", ["yes", "no"])
    ]
    # It stopped waiting on its own, the wait closed as an ordinary call, and wrote its report
    # (a blocked one, above) instead of being cut off at the deadline. How close to the
    # deadline its clock read is the machine's pace, not a property: never asserted.
    [wait_ended] = [
        e
        for e in agent.events()
        if e.type == "tool_use" and e.tool == "ask_orchestrator" and e.status != "started"
    ]
    assert wait_ended.status is ToolStatus.SUCCEEDED
    assert wait_ended.at < ended


# -- delegate ---------------------------------------------------------------------------


def fake_caesar(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "caesar"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n{body}\n")
    script.chmod(0o755)
    return script


def test_delegate_fails_cleanly_when_caesar_is_unavailable(
    tmp_path: Path, agent_of: Callable[..., Agent]
) -> None:
    agent = agent_of({"script": "delegate"})
    agent.env["CAESAR_DEMO_CAESAR"] = str(tmp_path / "nowhere" / "caesar")
    result = agent.run()
    assert result.returncode == 1
    report = agent.report()
    assert report.status is ReportStatus.FAILED
    assert "exited with 127" in report.summary
    assert "command not found" in report.details
    [run] = report.commands_run
    assert run.exit_code == 127 and " run " in run.command
    events = agent.events()
    assert [e.fatal for e in events if e.type == "error"] == [True]
    assert [edges[1] for edges in tool_calls_paired(events).values()] == [ToolStatus.FAILED]


def test_delegate_reports_the_child_commands_stderr_when_it_fails(
    tmp_path: Path, agent_of: Callable[..., Agent]
) -> None:
    fake = fake_caesar(
        tmp_path / "bin",
        "print('starting', file=sys.stderr)\n"
        "print(\"caesar: no such command 'run'\", file=sys.stderr)\n"
        "sys.exit(2)",
    )
    agent = agent_of({"script": "delegate"})
    agent.env["CAESAR_DEMO_CAESAR"] = str(fake)
    result = agent.run()
    assert result.returncode == 1
    report = agent.report()
    assert report.status is ReportStatus.FAILED
    assert "exited with 2" in report.summary
    assert "caesar: no such command 'run'" in report.details
    assert [c.exit_code for c in report.commands_run] == [2]
    agent.events()


def test_delegate_names_the_child_task_from_the_json_result(
    tmp_path: Path, agent_of: Callable[..., Agent]
) -> None:
    seen = tmp_path / "seen.json"
    child_id = "t_" + "c" * 32
    result_json = {
        "task_id": child_id,
        "status": "succeeded",
        "report": {"protocol": "caesar.report/v1", "status": "success", "summary": "looked"},
    }
    fake = fake_caesar(
        tmp_path / "bin",
        f"json.dump({{'argv': sys.argv[1:], 'env': dict(os.environ)}}, open({str(seen)!r}, 'w'))\n"
        f"print(json.dumps({result_json!r}))",
    )
    agent = agent_of({"script": "delegate"})
    agent.env["CAESAR_DEMO_CAESAR"] = str(fake)
    result = agent.run()
    assert result.returncode == 0, result.stderr

    call = json.loads(seen.read_text())
    objective = call["argv"][1]
    assert call["argv"] == [
        "run",
        objective,
        "--agent",
        "demo",
        "--context",
        '{"script":"quick"}',
        "--json",
    ]
    assert agent.task.objective in objective
    assert call["env"]["CAESAR_TASK_ID"] == TASK_ID and call["env"]["CAESAR_DEPTH"] == "0"
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    assert child_id in report.summary and child_id in report.details
    assert any(child_id in f.title for f in report.findings)
    assert [c.exit_code for c in report.commands_run] == [0]
    events = agent.events()
    assert [edges[1] for edges in tool_calls_paired(events).values()] == [ToolStatus.SUCCEEDED]


# -- fail -------------------------------------------------------------------------------


def test_fail_reports_failed_with_a_fatal_error_and_exit_1(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "fail"})
    result = agent.run()
    assert result.returncode == 1
    report = agent.report()
    assert report.status is ReportStatus.FAILED
    assert [c.exit_code for c in report.commands_run] == [1]
    events = agent.events()
    assert len(events) >= 3
    errors = [e for e in events if e.type == "error"]
    assert len(errors) == 1 and errors[0].fatal
    assert ToolStatus.FAILED in [edges[1] for edges in tool_calls_paired(events).values()]
    assert status_of(agent.workspace) == []


# -- hang -------------------------------------------------------------------------------


def pids_of(agent: Agent) -> dict[str, int]:
    path = agent.paths.root / "hang.pids"
    wait_for(path.exists, "hang.pids")
    pids: dict[str, int] = json.loads(path.read_text())
    return pids


def test_hang_emits_one_event_and_dies_on_sigterm(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "hang"})
    process = agent.start()
    pids = pids_of(agent)
    assert pids == {"agent": process.pid}
    assert len(agent.events()) == 1
    assert process.poll() is None
    os.killpg(process.pid, signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGTERM
    assert not agent.paths.report.exists()


def test_hang_ignoring_sigterm_takes_a_group_sigkill_with_its_grandchild(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "hang", "ignore_sigterm": True})
    process = agent.start()
    pids = pids_of(agent)
    grandchild = pids["grandchild"]
    assert pids["agent"] == process.pid
    assert os.getpgid(grandchild) == os.getpgid(process.pid) == process.pid
    assert len(agent.events()) == 1

    os.killpg(process.pid, signal.SIGTERM)
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=1.0)
    assert alive(grandchild)

    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL
    wait_for(lambda: not alive(grandchild), "the grandchild to die")
    assert not agent.paths.report.exists()


# -- lie --------------------------------------------------------------------------------


def test_lie_declares_a_change_it_did_not_make_and_hides_the_one_it_did(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "lie"})
    result = agent.run()
    assert result.returncode == 0, result.stderr
    report = agent.report()
    assert report.status is ReportStatus.SUCCESS
    declared = {c.path for c in report.changes}
    actual = {line[3:] for line in status_of(agent.workspace)}
    assert declared == {"src/parser.py"}
    assert actual == {"UNDECLARED.txt"}
    assert not (agent.workspace / "src" / "parser.py").exists()
    events = agent.events()
    assert [e.path for e in events if e.type == "file_changed"] == ["src/parser.py"]


# -- silent -----------------------------------------------------------------------------

FENCE = re.compile(r"```json caesar:report\n(.*?)\n```", re.DOTALL)


def test_silent_writes_no_report_and_only_speaks(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "silent"})
    result = agent.run()
    assert result.returncode == 0, result.stderr
    assert not agent.paths.report.exists()
    assert agent.task.objective in result.stdout
    assert "caesar:report" not in result.stdout
    assert status_of(agent.workspace) == ["?? SILENT_NOTES.md"]
    assert [e.path for e in agent.events() if e.type == "file_changed"] == ["SILENT_NOTES.md"]


def test_silent_says_its_report_in_a_fenced_block_when_asked(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "silent", "say_report": True})
    result = agent.run()
    assert result.returncode == 0, result.stderr
    assert not agent.paths.report.exists()
    [block] = FENCE.findall(result.stdout)
    report = parse(REPORT_ADAPTER, block)
    assert report.status is ReportStatus.SUCCESS and report.task_id == TASK_ID
    assert [c.path for c in report.changes] == ["SILENT_NOTES.md"]
    agent.events()


# -- usage errors and options ------------------------------------------------------------


def test_an_unknown_script_is_a_usage_error_naming_the_scripts(
    agent_of: Callable[..., Agent],
) -> None:
    agent = agent_of({"script": "dance"})
    result = agent.run()
    assert result.returncode == 2
    assert "'dance'" in result.stderr
    names = {"followup", "quick", "work", "ask", "delegate", "fail", "hang", "lie", "silent"}
    for name in names:
        assert name in result.stderr
    assert set(SCRIPTS) == names
    assert not agent.paths.report.exists()
    assert not agent.paths.events.exists()


def test_an_unreadable_task_file_is_a_usage_error(agent_of: Callable[..., Agent]) -> None:
    agent = agent_of({"script": "quick"})
    agent.paths.task_file.write_text("{not json")
    result = agent.run()
    assert result.returncode == 2
    assert "cannot read the task" in result.stderr


def test_options_read_the_context_and_the_delay_override(
    agent_of: Callable[..., Agent], monkeypatch: pytest.MonkeyPatch
) -> None:
    task = agent_of({"script": "ask", "delay": 0.5, "x": 1}).task
    monkeypatch.delenv("CAESAR_DEMO_DELAY", raising=False)
    options = options_of(task)
    assert (options.script, options.delay, options.raw["x"]) == ("ask", 0.5, 1)
    monkeypatch.setenv("CAESAR_DEMO_DELAY", "0")
    assert options_of(task).delay == 0.0
    monkeypatch.setenv("CAESAR_DEMO_DELAY", "soon")
    assert options_of(task).delay == 0.0
    monkeypatch.delenv("CAESAR_DEMO_DELAY")
    for context in ("", "not json", "[1, 2]", '{"delay": -3}', '{"delay": "x"}'):
        options = options_of(task.model_copy(update={"context": context}))
        assert (options.script, options.delay) == ("work", 0.0)
