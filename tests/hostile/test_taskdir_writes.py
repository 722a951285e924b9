"""Issue 11, cases 1 to 3: an agent that replaces files of its task directory by links (or a
hard link, a directory, a FIFO) never makes caesar write outside the project, nor show what
is outside. caesar concludes the task all the same, keeps its own log and says what the agent
did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caesar_core.store import TaskStore
from tests.hostile.conftest import BOUND_S, digest, hostile_agent
from tests.hostile.taskdir_kit import (
    answers,
    caesars_ending,
    findings,
    kill_orchestrator,
    run,
    running_task,
    start,
)
from tests.runner.conftest import wait_for

SABOTAGE = {
    "symlink": 'ln -s "{outside}" "{entry}"',
    "hardlink": 'ln "{outside}" "{entry}"',
    "directory": 'mkdir "{entry}" && touch "{entry}/x"',
    "fifo": 'mkfifo "{entry}"',
}


@pytest.mark.parametrize("sabotage", sorted(SABOTAGE))
@pytest.mark.parametrize("victim", ["events.jsonl", ".events.lock"])
def test_the_log_and_its_lock_are_never_written_through(
    repo: Path, outside: Path, victim: str, sabotage: str
) -> None:
    before = digest(outside)
    entry = f"$CAESAR_TASK_DIR/{victim}"
    hostile_agent(
        repo,
        "saboteur",
        f'rm -f "{entry}"\n' + SABOTAGE[sabotage].format(outside=outside, entry=entry) + "\n",
    )
    out = run(repo, "saboteur")
    assert digest(outside) == before
    assert out["status"] == "succeeded"  # concluded, with caesar's own ending in its log
    assert caesars_ending(repo, out["task_id"]) == out["report"]["status"]
    said = findings(out)
    assert f"{victim} in the task directory was" in said and "moved that entry aside" in said
    logs = answers(repo, "logs", out["task_id"])
    assert f"{victim} was" in logs.stdout and "finished  " in logs.stdout


def test_a_dangling_link_creates_nothing_outside(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "created-by-caesar"
    target.parent.mkdir()
    hostile_agent(
        repo,
        "dangler",
        f"""
        rm -f "$CAESAR_TASK_DIR/events.jsonl" "$CAESAR_TASK_DIR/.events.lock"
        ln -s "{target}" "$CAESAR_TASK_DIR/events.jsonl"
        ln -s "{target}.lock" "$CAESAR_TASK_DIR/.events.lock"
        """,
    )
    out = run(repo, "dangler")
    assert list(target.parent.iterdir()) == []
    assert caesars_ending(repo, out["task_id"])


def test_a_report_through_a_link_is_neither_read_nor_shown(repo: Path, outside: Path) -> None:
    outside.write_text(
        '{"protocol":"caesar.report/v1","status":"success","summary":"SECRET=do-not-leak"}'
    )
    before = digest(outside)
    hostile_agent(repo, "linker", f'ln -s "{outside}" "$CAESAR_REPORT_PATH"\n')
    result = answers(repo, "run", "x", "--agent", "linker")
    assert "do-not-leak" not in result.stdout + result.stderr
    assert result.returncode == 1  # a report caesar refused never succeeds
    assert "report.json is a symbolic link" in result.stdout
    assert digest(outside) == before
    [task_id] = [r.id for r in TaskStore(repo).list().records]
    shown = json.loads(TaskStore(repo).paths(task_id).report.read_text())
    assert shown["status"] == "failed" and "do-not-leak" not in json.dumps(shown)


def test_raw_output_through_a_link_is_neither_read_nor_shown(repo: Path, outside: Path) -> None:
    outside.write_text(
        'SECRET=do-not-leak\n{"protocol":"caesar.report/v1","status":"success","summary":"x"}\n'
    )
    before = digest(outside)
    hostile_agent(
        repo,
        "rawlinker",
        f'rm -f "$CAESAR_TASK_DIR/raw.log"\nln -s "{outside}" "$CAESAR_TASK_DIR/raw.log"\n',
    )
    out = run(repo, "rawlinker")
    assert out["report_source"] == "synthesized"  # nothing was extracted from the outside file
    assert "do-not-leak" not in json.dumps(out)
    assert "raw.log is a symbolic link" in findings(out)
    raw = answers(repo, "logs", out["task_id"], "--raw")
    assert "do-not-leak" not in raw.stdout + raw.stderr
    assert digest(outside) == before


QUESTION = '{{"id":"q_1","question":"{text}","asked_at":"2026-01-01T00:00:00Z"}}'
APPROVAL = '{{"id":"a_1","tool":"Bash","summary":"{text}","asked_at":"2026-01-01T00:00:00Z"}}'


def test_an_answer_is_never_written_through_a_linked_answers_dir(
    repo: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hostile_agent(
        repo,
        "asker",
        f"""
        mkdir -p "$CAESAR_TASK_DIR/questions"
        echo '{QUESTION.format(text="may I?")}' > "$CAESAR_TASK_DIR/questions/q_1.json"
        rm -rf "$CAESAR_TASK_DIR/answers"
        ln -s "{elsewhere}" "$CAESAR_TASK_DIR/answers"
        exec sleep 60
        """,
    )
    process = start(repo, "asker")
    task_id = running_task(repo, process)
    answers_dir = TaskStore(repo).paths(task_id).answers
    wait_for(answers_dir.is_symlink, timeout=BOUND_S, what="the link")
    try:
        reply = answers(repo, "answer", task_id, "q_1", "yes")
        assert reply.returncode == 1
        assert "symbolic link" in reply.stderr and "remedy:" in reply.stderr
        assert list(elsewhere.iterdir()) == []
    finally:
        assert answers(repo, "cancel", task_id).returncode == 0
        process.communicate(timeout=BOUND_S)


@pytest.mark.parametrize("box", ["questions", "approvals"])
def test_a_linked_mailbox_is_never_read_nor_answered(repo: Path, tmp_path: Path, box: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if box == "questions":
        (elsewhere / "q_1.json").write_text(QUESTION.format(text="SECRET=do-not-leak"))
        answer = ("answer", "q_1", "yes")
    else:
        (elsewhere / "a_1.json").write_text(APPROVAL.format(text="SECRET=do-not-leak"))
        answer = ("approve", "a_1", "allow")
    before = sorted(p.name for p in elsewhere.iterdir())
    hostile_agent(
        repo,
        "boxer",
        f'ln -s "{elsewhere}" "$CAESAR_TASK_DIR/{box}"\nexec sleep 60\n',
    )
    process = start(repo, "boxer")
    task_id = running_task(repo, process)
    linked = TaskStore(repo).paths(task_id).root / box
    wait_for(linked.is_symlink, timeout=BOUND_S, what="the link")
    try:
        for shown in (answers(repo, "ps", "--json"), answers(repo, "watch", "--once")):
            assert shown.returncode == 0 and "do-not-leak" not in shown.stdout
        refused = answers(repo, answer[0], task_id, *answer[1:])
        assert refused.returncode == 1
        assert sorted(p.name for p in elsewhere.iterdir()) == before
    finally:
        assert answers(repo, "cancel", task_id).returncode == 0
        process.communicate(timeout=BOUND_S)


def test_the_orchestrator_gone_a_linked_log_is_still_not_written_through(
    repo: Path, outside: Path
) -> None:
    """``ps`` concludes the abandoned task: its error and finished events go to caesar's own
    new log, never to where the agent's link points."""
    before = digest(outside)
    hostile_agent(
        repo,
        "lingerer",
        f"""
        rm -f "$CAESAR_TASK_DIR/events.jsonl"
        ln -s "{outside}" "$CAESAR_TASK_DIR/events.jsonl"
        exec sleep 60
        """,
    )
    process = start(repo, "lingerer")
    task_id = running_task(repo, process)
    events = TaskStore(repo).paths(task_id).events
    wait_for(events.is_symlink, timeout=BOUND_S, what="the link")
    kill_orchestrator(process)
    assert answers(repo, "ps").returncode == 0
    assert digest(outside) == before
    assert caesars_ending(repo, task_id) == "failed"
