"""``[review] checks`` run by caesar: at a task's end and with ``caesar check``, on real
repositories with the real ``caesar`` executable and real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from caesar_core import safefs
from caesar_core.protocol.report import CommandRun, Report, ReportStatus, Severity
from caesar_core.protocol.versions import REPORT_V1
from caesar_core.review.checks import with_checks
from caesar_core.store import TaskStore
from caesar_core.store.record import CheckResult
from tests.runner.conftest import (
    CAESAR,
    caesar,
    caesar_env,
    context,
    git,
    run_json,
    wait_for,
    write_config,
)


def checks_config(*entries: str) -> str:
    return "[review]\nchecks = [" + ", ".join(entries) + "]\n"


def work_task(repo: Path) -> dict[str, object]:
    """The demo agent's ``work``: README.md changed (committed), DEMO_NOTES.md created."""
    return run_json(repo, "note it", "--agent", "demo", "--context", context("work"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_passing_checks_run_in_the_worktree_and_are_caesars(repo: Path) -> None:
    # DEMO_NOTES.md exists only in the task's worktree: the check proves where it ran.
    write_config(repo, checks_config('"test -f DEMO_NOTES.md"', '"echo all good; pwd"'))
    out = work_task(repo)
    assert out["_exit"] == 0, out["_stderr"]
    assert out["status"] == "succeeded"
    record = TaskStore(repo).get(str(out["task_id"]))
    assert record.checks is not None and record.checks.state == "passed"
    first, second = record.checks.results
    assert (first.command, first.exit_code, first.passed) == ("test -f DEMO_NOTES.md", 0, True)
    assert second.output_tail.splitlines() == ["all good", record.worktree_path]
    # In the normalized report, marked as caesar's, and the whole output in the task dir.
    report = out["report"]
    assert isinstance(report, dict)
    ours = [run for run in report["commands_run"] if run.get("by") == "caesar"]
    assert [run["command"] for run in ours] == ["test -f DEMO_NOTES.md", "echo all good; pwd"]
    assert ours[1]["exit_code"] == 0 and "all good" in ours[1]["output_tail"]
    assert ours[0]["timed_out"] is False and ours[0]["duration_ms"] >= 0
    task_dir = TaskStore(repo).paths(record.id).root
    assert safefs.read_bytes(task_dir, "checks/2.log").startswith(b"all good\n")
    assert checks_json_of(out)["mark"] == "passed"


def checks_json_of(out: dict[str, object]) -> dict[str, object]:
    checks = out["checks"]
    assert isinstance(checks, dict)
    return checks


def test_a_failing_check_while_the_agent_claims_success_fails_the_task(repo: Path) -> None:
    write_config(repo, checks_config('"test -f DEMO_NOTES.md"', '"exit 3"'))
    out = work_task(repo)
    assert out["_exit"] == 1
    # caesar's verdict: failed; the agent's claim stays what it said, next to a high finding.
    assert out["status"] == "failed"
    report = out["report"]
    assert isinstance(report, dict)
    assert report["status"] == "success"
    high = [f for f in report["findings"] if f["severity"] == "high"]
    assert [f["detail"] for f in high] == ["the agent reported success; `exit 3` exits 3"]
    record = TaskStore(repo).get(str(out["task_id"]))
    assert record.ended_reason == "check `exit 3` exits 3"
    assert record.report_status == ReportStatus.SUCCESS
    assert record.checks is not None and record.checks.state == "failed"
    assert [r.passed for r in record.checks.results] == [True, False]
    shown = caesar(repo, "logs", record.id)
    assert shown.returncode == 0


def test_a_hanging_check_is_stopped_at_its_timeout_with_every_process_it_started(
    repo: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    # A child in the check's group, and one that left it for a session of its own.
    hang = (
        f"sleep 300 & echo $! >> {pids}; "
        f"setsid sh -c 'echo $$ >> {pids}; exec sleep 300' & "
        f"echo $$ >> {pids}; sleep 300"
    )
    write_config(repo, checks_config(f'{{ command = {json.dumps(hang)}, timeout = "1s" }}'))
    out = work_task(repo)
    assert out["status"] == "failed"
    record = TaskStore(repo).get(str(out["task_id"]))
    assert record.checks is not None
    [result] = record.checks.results
    assert result.timed_out and result.exit_code is None and not result.passed
    assert 1000 <= result.duration_ms < 30_000
    assert record.ended_reason is not None and "timed out after" in record.ended_reason
    started = [int(word) for word in pids.read_text().split()]
    assert len(started) == 3
    wait_for(lambda: not any(alive(pid) for pid in started), what="the check's processes gone")


def test_a_command_not_found_fails_with_the_shells_message(repo: Path) -> None:
    write_config(repo, checks_config('"no-such-command-for-caesar --version"'))
    out = work_task(repo)
    assert out["status"] == "failed"
    [result] = TaskStore(repo).get(str(out["task_id"])).checks.results  # type: ignore[union-attr]
    assert result.exit_code == 127 and not result.passed
    assert "no-such-command-for-caesar" in result.output_tail
    assert "not found" in result.output_tail


def test_read_only_tasks_are_checked_too(repo: Path) -> None:
    write_config(repo, checks_config('"pwd"'))
    out = run_json(
        repo, "look", "--agent", "demo", "--mode", "read-only", "--context", context("quick")
    )
    assert out["_exit"] == 0, out["_stderr"]
    record = TaskStore(repo).get(str(out["task_id"]))
    assert record.checks is not None and record.checks.state == "passed"
    [result] = record.checks.results
    where = Path(record.worktree_path) if record.worktree_path else repo
    assert Path(result.output_tail.strip()).resolve() == where.resolve()


def test_cancel_stops_a_check_that_runs(repo: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "check.pid"
    write_config(repo, checks_config(json.dumps(f"echo $$ > {pid_file}; exec sleep 300")))
    run = subprocess.Popen(
        [CAESAR, "run", "note it", "--agent", "demo", "--context", context("work"), "--json"],
        cwd=repo,
        env=caesar_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), 60))
        task_id = TaskStore(repo).list().records[0].id
        assert TaskStore(repo).get(task_id).checks.state == "running"  # type: ignore[union-attr]
        assert caesar(repo, "ps").stdout.count("running") >= 2  # the task and its checks
        cancelled = caesar(repo, "cancel", task_id)
        assert cancelled.returncode == 0, cancelled.stderr
        run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    wait_for(lambda: not alive(pid), what="the check stopped")
    record = TaskStore(repo).get(task_id)
    assert record.status == "cancelled"
    assert record.checks is not None and record.checks.state == "interrupted"


def test_caesar_check_on_demand(repo: Path) -> None:
    out = work_task(repo)
    task_id = str(out["task_id"])
    assert TaskStore(repo).get(task_id).checks is None
    refused = caesar(repo, "check", task_id)
    assert refused.returncode == 2
    assert "no checks are configured" in refused.stderr and "[review] checks" in refused.stderr

    write_config(
        repo, checks_config('"test -f DEMO_NOTES.md"', '"grep -q nothing-like-it README.md"')
    )
    failed = caesar(repo, "check", task_id)
    assert failed.returncode == 1, failed.stderr
    lines = failed.stdout.splitlines()
    assert lines[0] == f"checks of {task_id} on the whole task:"
    assert lines[1].startswith("  ✓ test -f DEMO_NOTES.md  ") and lines[1].endswith("  exit 0")
    assert lines[2].startswith("  ✗ grep -q nothing-like-it README.md  ")
    assert lines[2].endswith("  exit 1")
    record = TaskStore(repo).get(task_id)
    assert record.checks is not None and record.checks.state == "failed"
    assert record.status == "succeeded"  # the task's conclusion is its own; the run is recorded

    write_config(repo, checks_config('"test -f DEMO_NOTES.md"'))
    passed = caesar(repo, "check", task_id, "--json")
    assert passed.returncode == 0, passed.stderr
    data = json.loads(passed.stdout)
    assert data["task_id"] == task_id and data["mark"] == "passed" and data["hunks"] == []
    assert data["results"][0]["command"] == "test -f DEMO_NOTES.md"
    assert data["results"][0]["passed"] is True and data["results"][0]["exit_code"] == 0
    assert TaskStore(repo).get(task_id).checks.state == "passed"  # type: ignore[union-attr]


def test_caesar_check_refuses_a_running_task_and_an_unknown_one(repo: Path) -> None:
    write_config(repo, checks_config('"true"'))
    unknown = caesar(repo, "check", "t_" + "0" * 32)
    assert unknown.returncode == 2 and unknown.stdout == ""
    run = subprocess.Popen(
        [CAESAR, "run", "wait", "--agent", "demo", "--context", context("hang"), "--json"],
        cwd=repo,
        env=caesar_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        task_id = wait_for(
            lambda: (
                (records := TaskStore(repo).list().records) and records[0].pid and records[0].id
            ),
            60,
        )
        refused = caesar(repo, "check", task_id)
        assert refused.returncode == 2
        assert "is still running" in refused.stderr and "caesar logs" in refused.stderr
        assert TaskStore(repo).get(task_id).checks is None
        caesar(repo, "cancel", task_id)
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()


def test_an_agents_claim_of_caesars_checks_is_relabelled() -> None:
    report = Report(
        protocol=REPORT_V1,
        status=ReportStatus.SUCCESS,
        summary="done",
        commands_run=[
            CommandRun.model_validate({"command": "pytest -q", "exit_code": 0, "by": "caesar"})
        ],
    )
    checked = with_checks(report, [CheckResult(command="pytest -q", exit_code=1)])
    runs = checked.to_json_dict()["commands_run"]
    assert [(run["by"], run["exit_code"]) for run in runs] == [("agent", 0), ("caesar", 1)]
    titles = {(f.severity, f.title) for f in checked.findings}
    assert (Severity.MEDIUM, "Commands claimed as caesar's") in titles
    assert (Severity.HIGH, "Check failed") in titles


def hunk_ids(repo: Path, task_id: str) -> dict[str, list[str]]:
    """Each changed file's hunk ids, as ``caesar diff --json`` gives them."""
    data = json.loads(caesar(repo, "diff", task_id, "--json").stdout)
    return {f["path"]: [h["id"] for h in f["hunks"]] for f in data["files"]}


def git_worktrees(repo: Path) -> list[str]:
    return [
        line.split(" ", 1)[1]
        for line in git(repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def test_checks_on_a_selection_run_in_a_scratch_worktree_that_is_gone_afterwards(
    repo: Path, tmp_path: Path
) -> None:
    out = work_task(repo)
    task_id = str(out["task_id"])
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    ids = hunk_ids(repo, task_id)
    [notes], [readme] = ids["DEMO_NOTES.md"], ids["README.md"]
    where = tmp_path / "where"
    write_config(
        repo,
        checks_config(
            json.dumps(f"pwd > {where}; git status --short >> {where}"),
            '"test -f DEMO_NOTES.md"',
            '"grep -q \\"note it\\" README.md"',
        ),
    )
    before = git_worktrees(repo), git(repo, "branch", "--list"), git(repo, "status", "--short")

    # The notes alone: the file is there, README.md is as at base_ref.
    alone = caesar(repo, "check", task_id, "--hunk", notes, "--json")
    assert alone.returncode == 1, alone.stderr
    data = json.loads(alone.stdout)
    assert data["hunks"] == [notes]
    assert [r["passed"] for r in data["results"]] == [True, True, False]
    scratch, *status = where.read_text().splitlines()
    assert Path(scratch).parent == repo / ".caesar" / "state" / "scratch"
    assert status == ["?? DEMO_NOTES.md"]  # at base_ref, with only the selected hunk
    assert not Path(scratch).exists()
    assert (git_worktrees(repo), git(repo, "branch", "--list"), git(repo, "status", "--short")) == (
        before
    )

    both = caesar(repo, "check", task_id, "--hunk", notes, "--hunk", readme)
    assert both.returncode == 0, both.stderr
    assert both.stdout.splitlines()[0] == (f"checks of {task_id} on hunks {notes}, {readme} alone:")
    record = TaskStore(repo).get(task_id)
    assert record.selection_checks is not None and record.selection_checks.state == "passed"
    assert record.selection_checks.hunks == [notes, readme]
    assert record.checks is None  # the whole task's checks are another run
    assert list((repo / ".caesar" / "state" / "scratch").iterdir()) == []
    # The task's worktree and the user's tree are as they were.
    assert (worktree / "DEMO_NOTES.md").exists() and not (repo / "DEMO_NOTES.md").exists()


def test_an_unknown_hunk_is_refused_with_the_current_ids_and_nothing_made(repo: Path) -> None:
    out = work_task(repo)
    task_id = str(out["task_id"])
    write_config(repo, checks_config('"true"'))
    refused = caesar(repo, "check", task_id, "--hunk", "h_000000000000")
    assert refused.returncode == 2
    assert "no such hunk" in refused.stderr and "current hunks: h_" in refused.stderr
    assert not (repo / ".caesar" / "state" / "scratch").exists()
    assert TaskStore(repo).get(task_id).selection_checks is None
    bad = caesar(repo, "check", task_id, "--hunk", "nonsense")
    assert bad.returncode == 2 and "not a hunk selection" in bad.stderr


def test_ctrl_c_stops_the_check_and_removes_the_scratch_worktree(
    repo: Path, tmp_path: Path
) -> None:
    out = work_task(repo)
    task_id = str(out["task_id"])
    [hunk] = hunk_ids(repo, task_id)["DEMO_NOTES.md"]
    pid_file = tmp_path / "check.pid"
    write_config(repo, checks_config(json.dumps(f"echo $$ > {pid_file}; exec sleep 300")))
    check = subprocess.Popen(
        [CAESAR, "check", task_id, "--hunk", hunk],
        cwd=repo,
        env=caesar_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), 60))
        scratch = repo / ".caesar" / "state" / "scratch"
        assert len(list(scratch.iterdir())) == 1
        second = caesar(repo, "check", task_id, "--hunk", hunk)
        assert second.returncode == 2 and "already running" in second.stderr
        check.send_signal(signal.SIGINT)
        check.communicate(timeout=60)
    finally:
        if check.poll() is None:
            check.kill()
    assert check.returncode != 0
    wait_for(lambda: not alive(pid), what="the check stopped")
    assert list(scratch.iterdir()) == []
    assert len(git_worktrees(repo)) == 2  # the project and the task's worktree
    record = TaskStore(repo).get(task_id)
    assert record.selection_checks is not None and record.selection_checks.state == "interrupted"


def test_a_selection_keeps_modes_and_links_in_the_scratch_worktree(
    repo: Path, tmp_path: Path
) -> None:
    agent = tmp_path / "agent.sh"
    agent.write_text(
        "#!/bin/sh\nprintf '#!/bin/sh\\necho ran\\n' > run.sh\nchmod +x run.sh\n"
        "ln -s README.md readme-link\necho extra >> app.py\n"
    )
    agent.chmod(0o755)
    checks = checks_config('"./run.sh"', '"test -L readme-link"', '"! grep -q extra app.py"')
    write_config(repo, f'[[agent]]\nid = "maker"\nbin = "{agent}"\nargs = "{{{{prompt}}}}"\n')
    out = run_json(repo, "make a script", "--agent", "maker", "--isolation", "worktree")
    assert out["status"] == "succeeded", out["_stderr"]
    task_id = str(out["task_id"])
    ids = hunk_ids(repo, task_id)
    write_config(repo, checks)
    picked = [*ids["run.sh"], *ids["readme-link"]]
    result = caesar(repo, "check", task_id, *(f"--hunk={hunk}" for hunk in picked), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert [r["passed"] for r in data["results"]] == [True, True, True]
    assert data["results"][0]["output_tail"] == "ran\n"
