"""``caesar continue``: follow-up turns of a task, with the real executable on real repositories."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from caesar_core.config import load_config
from caesar_core.protocol.task import FollowUpComment
from caesar_core.runner.engine import Runner
from caesar_core.store import TaskStore
from tests.runner.conftest import (
    CAESAR,
    caesar,
    caesar_env,
    context,
    run_json,
    wait_for,
    write_config,
)


def work_task(repo: Path) -> dict[str, Any]:
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    return out


def continue_json(repo: Path, *args: str) -> dict[str, Any]:
    done = caesar(repo, "continue", *args, "--json")
    assert done.stdout, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    data["_exit"], data["_stderr"] = done.returncode, done.stderr
    return data


def rows(repo: Path) -> dict[str, dict[str, Any]]:
    listed = json.loads(caesar(repo, "ps", "--all", "--json").stdout)
    return {row["id"]: row for row in listed}


def diff_paths(repo: Path, task_id: str, *flags: str) -> list[str]:
    done = caesar(repo, "diff", task_id, "--json", *flags)
    assert done.returncode == 0, done.stderr
    return sorted(f["path"] for f in json.loads(done.stdout)["files"])


def refusal(repo: Path, *args: str) -> str:
    done = caesar(repo, "continue", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "remedy:" in done.stderr
    return done.stderr


# -- the demo agent ----------------------------------------------------------------------


def test_continue_with_the_demo_agent_works_on_in_the_same_worktree(repo: Path) -> None:
    first = work_task(repo)
    second = continue_json(repo, first["task_id"], "also note the edge cases")

    assert second["_exit"] == 0, second["_stderr"]
    assert second["status"] == "succeeded" and second["turn"] == 2
    assert second["continues"] == first["task_id"]
    assert second["workspace"] == first["workspace"]
    notes = (Path(first["workspace"]) / "DEMO_NOTES.md").read_text()
    assert notes.splitlines() == ["- note it", "- turn 2: also note the edge cases"]
    # The turn's own changes in its outcome; the whole work in caesar diff, of either turn.
    assert second["diff"]["files"] == ["DEMO_NOTES.md"]
    assert diff_paths(repo, second["task_id"]) == ["DEMO_NOTES.md", "README.md"]
    assert diff_paths(repo, first["task_id"]) == ["DEMO_NOTES.md", "README.md"]
    fresh = [f for f in second["report"]["findings"] if f["title"] == "Fresh session"]
    assert fresh and "demo cannot resume a session" in fresh[0]["detail"]

    task = json.loads((Path(second["task_dir"]) / "task.json").read_text())
    assert (
        task["base_ref"]
        == json.loads((Path(first["task_dir"]) / "task.json").read_text())["base_ref"]
    )
    assert task["followup"]["continues"] == first["task_id"]
    assert task["followup"]["previous_objective"] == "note it"
    assert task["objective"] == "also note the edge cases"


def test_since_previous_is_what_the_turn_alone_changed(repo: Path) -> None:
    first = work_task(repo)
    second = continue_json(repo, first["task_id"], "one more")
    third = continue_json(repo, second["task_id"])
    assert third["_exit"] == 0, third["_stderr"]

    # The second turn's own change, even now that a third turn has changed the file again.
    patch = json.loads(caesar(repo, "diff", second["task_id"], "--since-previous", "--json").stdout)
    assert [f["path"] for f in patch["files"]] == ["DEMO_NOTES.md"]
    assert "+- turn 2: one more" in patch["patch"] and "turn 3" not in patch["patch"]
    text = caesar(repo, "diff", third["task_id"], "--since-previous").stdout
    assert "+- turn 3: continue" in text and "+- turn 2" not in text

    first_turn = caesar(repo, "diff", first["task_id"], "--since-previous")
    assert first_turn.returncode == 2 and "first turn" in first_turn.stderr


def test_the_chain_in_ps_is_one_task_with_its_turns(repo: Path) -> None:
    first = work_task(repo)
    second = continue_json(repo, first["task_id"], "again")
    third = continue_json(repo, second["task_id"], "and again")

    listed = rows(repo)
    one, two, three = (listed[t["task_id"]] for t in (first, second, third))
    assert (one["turn"], one.get("continues"), one["continued_by"]) == (1, None, two["id"])
    assert (two["turn"], two["continues"], two["chain"]) == (2, one["id"], one["id"])
    assert (three["turn"], three["continues"], three["chain"]) == (3, two["id"], one["id"])

    table = caesar(repo, "ps").stdout.splitlines()
    shown = [line for line in table if "turn " in line]
    assert [line.split()[0] for line in shown] == [one["id"], two["id"], three["id"]]
    assert shown[0].startswith(one["id"]) and "turn 1: note it" in shown[0]
    assert shown[1].startswith("  " + two["id"]) and "turn 2: again" in shown[1]
    assert shown[2].startswith("  " + three["id"]) and "turn 3: and again" in shown[2]


def test_rejected_hunks_go_to_the_next_turn_with_their_reason(repo: Path) -> None:
    first = work_task(repo)
    task_id = first["task_id"]
    listing = json.loads(caesar(repo, "diff", task_id, "--json").stdout)
    readme = next(f for f in listing["files"] if f["path"] == "README.md")
    hunk = readme["hunks"][0]["id"]
    rejected = caesar(repo, "reject", task_id, "--hunk", hunk, "--reason", "keep the readme")
    assert rejected.returncode == 0, rejected.stderr

    second = continue_json(repo, task_id, "the readme stays as it is")
    assert second["_exit"] == 0, second["_stderr"]
    task = json.loads((Path(second["task_dir"]) / "task.json").read_text())
    [carried] = task["followup"]["rejected_hunks"]
    assert carried["path"] == "README.md" and carried["reason"] == "keep the readme"
    assert any(line.startswith("+") and "note it" in line for line in carried["lines"])
    notes = (Path(first["workspace"]) / "DEMO_NOTES.md").read_text()
    assert "- turn 2: left README.md out (keep the readme)" in notes
    # The reviewer's revert happened before this turn: it is not the turn's change.
    assert diff_paths(repo, second["task_id"], "--since-previous") == ["DEMO_NOTES.md"]
    assert diff_paths(repo, second["task_id"]) == ["DEMO_NOTES.md"]


# -- a generic [[agent]] -------------------------------------------------------------------

AGENT_SCRIPT = """#!/bin/sh
# Writes its report; says its session when asked to; records how it was called.
printf '%s\\n' "$@" > "$CAESAR_TASK_DIR/argv.txt"
printf '{"type":"init","session_id":"sess-42"}\\n'
printf '{"protocol":"caesar.report/v1","task_id":"%s","status":"success","summary":"ok"}' \\
  "$CAESAR_TASK_ID" > "$CAESAR_REPORT_PATH"
"""


def generic_agent(repo: Path, extra: str = "") -> None:
    script = repo.parent / "agent.sh"
    script.write_text(AGENT_SCRIPT)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    write_config(
        repo,
        f'[[agent]]\nid = "sh-agent"\nbin = "{script}"\nargs = "--new {{{{prompt}}}}"\n{extra}',
    )


def test_a_generic_agent_without_resume_args_starts_a_fresh_session(repo: Path) -> None:
    generic_agent(repo)
    first = run_json(repo, "do it", "--agent", "sh-agent")
    assert first["_exit"] == 0, first["_stderr"]
    second = continue_json(repo, first["task_id"], "do more")

    assert second["_exit"] == 0, second["_stderr"]
    [fresh] = [f for f in second["report"]["findings"] if f["title"] == "Fresh session"]
    assert "sh-agent cannot resume a session" in fresh["detail"]
    assert "resume_args" in fresh["detail"]
    argv = (Path(second["task_dir"]) / "argv.txt").read_text().splitlines()
    assert argv[0] == "--new" and "Your earlier session could not be resumed" in "\n".join(argv)


def test_a_generic_agent_with_resume_args_resumes_the_session_it_printed(repo: Path) -> None:
    generic_agent(
        repo,
        'session_from = "/session_id"\nresume_args = "--resume {{session}} {{prompt}}"\n',
    )
    first = run_json(repo, "do it", "--agent", "sh-agent")
    assert first["_exit"] == 0, first["_stderr"]
    assert rows(repo)[first["task_id"]]["session_id"] == "sess-42"
    second = continue_json(repo, first["task_id"], "do more")

    assert second["_exit"] == 0, second["_stderr"]
    argv = (Path(second["task_dir"]) / "argv.txt").read_text().splitlines()
    assert argv[:2] == ["--resume", "sess-42"]
    assert "This goes on in your previous session" in "\n".join(argv)
    assert rows(repo)[second["task_id"]]["resumed_session"] == "sess-42"
    assert not [f for f in second["report"]["findings"] if f["title"] == "Fresh session"]


def test_resume_args_without_a_session_pointer_is_a_located_config_error(repo: Path) -> None:
    generic_agent(repo, 'resume_args = "--resume {{session}} {{prompt}}"\n')
    done = caesar(repo, "run", "x", "--agent", "sh-agent")
    assert done.returncode == 2
    assert "config.toml" in done.stderr and "session_from" in done.stderr


# -- refusals ------------------------------------------------------------------------------


def test_continue_of_an_unknown_task_is_refused(repo: Path) -> None:
    assert "no task t_" in refusal(repo, "t_" + "0" * 32)


def test_continue_of_a_running_task_is_refused(repo: Path) -> None:
    running = subprocess.Popen(
        [CAESAR, "run", "wait", "--agent", "demo", "--context", context("hang"), "--json"],
        cwd=repo,
        env=caesar_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        task_id = wait_for(
            lambda: next((t for t, r in rows(repo).items() if r["status"] == "running"), None),
            what="the task to run",
        )
        assert "is still running" in refusal(repo, task_id, "more")
    finally:
        for task, row in rows(repo).items():
            if row["status"] == "running":
                caesar(repo, "cancel", task)
        running.wait(timeout=60)
    assert len(rows(repo)) == 1  # nothing was created


def test_continue_of_a_discarded_task_is_refused_with_a_new_task_as_remedy(repo: Path) -> None:
    task_id = work_task(repo)["task_id"]
    assert caesar(repo, "discard", task_id, "--force").returncode == 0
    stderr = refusal(repo, task_id)
    assert "its worktree was discarded" in stderr and "caesar run" in stderr


def test_continue_of_an_applied_and_removed_task_is_refused(repo: Path) -> None:
    task_id = work_task(repo)["task_id"]
    assert caesar(repo, "apply", task_id).returncode == 0
    assert caesar(repo, "gc").returncode == 0
    stderr = refusal(repo, task_id)
    assert "its work was applied and its worktree removed" in stderr and "caesar run" in stderr


def test_a_turn_is_continued_once_and_the_chain_is_discarded_from_its_latest_turn(
    repo: Path,
) -> None:
    first = work_task(repo)["task_id"]
    second = continue_json(repo, first)["task_id"]
    stderr = refusal(repo, first, "again")
    assert f"already continued by {second}" in stderr and f"caesar continue {second}" in stderr

    discard = caesar(repo, "discard", first, "--force")
    assert discard.returncode == 2 and f"caesar discard {second}" in discard.stderr
    assert caesar(repo, "discard", second, "--force").returncode == 0
    listed = rows(repo)
    assert listed[first]["discarded_at"] and listed[second]["discarded_at"]
    assert "its worktree was discarded" in refusal(repo, second)


def test_gc_leaves_a_chain_to_its_latest_turn(repo: Path) -> None:
    first = work_task(repo)["task_id"]
    assert caesar(repo, "apply", first).returncode == 0  # the first turn's work is applied...
    second = continue_json(repo, first, "more")["task_id"]  # ...and the second adds to it
    decisions = json.loads(caesar(repo, "gc", "--json").stdout)
    assert [(d["task_id"], d["decision"]) for d in decisions] == [(second, "kept")]
    assert Path(rows(repo)[second]["worktree_path"]).is_dir()


@pytest.mark.parametrize("bad", ["not-an-id", "../t_x"])
def test_continue_of_a_malformed_id_is_a_usage_error(repo: Path, bad: str) -> None:
    done = caesar(repo, "continue", bad)
    assert done.returncode == 2, done.stderr


def test_the_failed_checks_of_the_previous_turn_go_to_the_next(repo: Path) -> None:
    """The record of a turn whose ``[review] checks`` failed, as caesar's checks write it."""
    first = work_task(repo)["task_id"]
    results = [
        {"command": "ruff check", "exit_code": 0, "output_tail": ""},
        {"command": "pytest -q", "exit_code": 1, "output_tail": "FAILED test_app.py::test_x"},
        {"command": "mypy .", "exit_code": None, "timed_out": True, "output_tail": "..."},
        {"command": "slow", "exit_code": None, "cancelled": True},
    ]
    checks = {"state": "failed", "started_at": "2026-01-01T00:00:00Z", "results": results}
    TaskStore(repo).set(first, checks=checks)

    second = continue_json(repo, first, "make the tests pass")
    assert second["_exit"] == 0, second["_stderr"]
    task = json.loads((Path(second["task_dir"]) / "task.json").read_text())
    assert task["followup"]["failed_checks"] == [
        {"command": "pytest -q", "outcome": "exit 1", "output": "FAILED test_app.py::test_x"},
        {"command": "mypy .", "outcome": "timed out", "output": "..."},
    ]
    notes = (Path(second["workspace"]) / "DEMO_NOTES.md").read_text()
    assert "- turn 2: check `pytest -q` failed (exit 1)" in notes


def test_a_read_only_task_in_place_is_continued_in_place(repo: Path) -> None:
    first = run_json(
        repo,
        "look",
        "--agent",
        "demo",
        "--mode",
        "read-only",
        "--isolation",
        "inplace",
        "--context",
        context("quick"),
    )
    assert first["_exit"] == 0, first["_stderr"]
    second = continue_json(repo, first["task_id"], "look closer")
    assert second["_exit"] == 0, second["_stderr"]
    assert second["workspace"] == first["workspace"] == str(repo)
    row = rows(repo)[second["task_id"]]
    assert (row["isolation"], row["mode"]) == ("inplace", "read-only")
    assert "nothing changed" in second["report"]["summary"]
    assert diff_paths(repo, second["task_id"], "--since-previous") == []


def test_open_comments_given_to_a_follow_up_reach_the_agent(repo: Path) -> None:
    """The seam comments use: ``prepare_followup(comments=...)``, here with the demo agent
    answering a comment on ``app.py`` line 1 in the workspace: that line rewritten, the file
    still Python."""
    first = work_task(repo)
    comment = FollowUpComment(
        path="app.py", start_line=1, end_line=1, text="name the greeting", code=["def greet"]
    )
    runner = Runner(repo, load_config(repo), env=caesar_env())
    prepared = runner.prepare_followup(first["task_id"], "see my comment", comments=[comment])
    outcome = runner.execute(prepared)

    assert outcome.record.status.value == "succeeded", outcome.report
    task = json.loads((Path(outcome.paths.root) / "task.json").read_text())
    assert task["followup"]["comments"][0]["text"] == "name the greeting"
    code = (Path(first["workspace"]) / "app.py").read_text()
    assert code.splitlines() == [
        "def greet(name):  # review (turn 2): name the greeting (addressed by the demo agent)",
        "    return 'hello ' + name",
    ]
    compile(code, "app.py", "exec")
    assert diff_paths(repo, outcome.record.id, "--since-previous") == ["DEMO_NOTES.md", "app.py"]


def test_a_check_caesar_ran_and_saw_fail_goes_to_the_next_turn(repo: Path) -> None:
    """Real ``[review] checks``: caesar runs them at the end of turn 1, one fails, and the
    follow-up's brief carries its command, exit and output."""
    write_config(repo, '[review]\nchecks = ["true", "echo broken-build >&2; exit 4"]\n')
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["status"] == "failed", out["_stderr"]
    second = continue_json(repo, out["task_id"], "fix the build")
    task = json.loads((Path(second["task_dir"]) / "task.json").read_text())
    [failed] = task["followup"]["failed_checks"]
    assert failed["command"] == "echo broken-build >&2; exit 4"
    assert failed["outcome"] == "exit 4" and "broken-build" in failed["output"]
