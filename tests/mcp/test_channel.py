"""``caesar channel serve``: one task's return channel, driven by a real MCP client."""

from __future__ import annotations

import json
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio

from caesar_core.config import load_config
from caesar_core.protocol.documents import read_report
from caesar_core.runner.delegation import Request
from caesar_core.runner.engine import Runner
from caesar_core.store import mailbox
from caesar_core.store.store import TaskStore
from tests.mcp.conftest import error_text, result_json, run_caesar, session
from tests.runner.conftest import wait_for


def prepared_task(repo: Path, timeout_ms: int = 120_000) -> Path:
    """A task laid down by the real runner (its agent never started): the channel's home."""
    runner = Runner(repo, load_config(repo))
    prepared = runner.prepare(
        Request(
            objective="talk through the channel", agent="demo", timeout_ms=timeout_ms, channel=True
        ),
        repo,
    )
    return prepared.paths.root


def events(task_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (task_dir / "events.jsonl").read_text().splitlines()]


async def test_get_task_and_progress(repo: Path) -> None:
    task_dir = prepared_task(repo)
    async with session("channel", "serve", "--task-dir", str(task_dir), cwd=repo) as client:
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        task = result_json(await client.call_tool("get_task", {}))
        progress = result_json(
            await client.call_tool("report_progress", {"message": "half way", "pct": 50})
        )
        out_of_range = await client.call_tool("report_progress", {"message": "x", "pct": 150})

    assert tools == ["ask_orchestrator", "get_task", "report_progress", "submit_report"]
    assert task == json.loads((task_dir / "task.json").read_text())
    assert progress["recorded"] is True
    assert next(e for e in events(task_dir) if e["type"] == "progress")["message"] == "half way"
    assert "between 0 and 100" in error_text(out_of_range)


async def test_an_invalid_report_is_refused_then_a_fixed_one_accepted(repo: Path) -> None:
    task_dir = prepared_task(repo)
    async with session("channel", "serve", "--task-dir", str(task_dir), cwd=repo) as client:
        refused = await client.call_tool(
            "submit_report",
            {"status": "success", "summary": "", "changes": [{"path": "a.py", "action": "made"}]},
        )
        assert not (task_dir / "report.json").exists()
        accepted = result_json(
            await client.call_tool(
                "submit_report",
                {
                    "status": "success",
                    "summary": "Done.",
                    "changes": [{"path": "a.py", "action": "created"}],
                    "details": None,
                },
            )
        )

    problems = error_text(refused)
    assert "summary" in problems and "changes.0.action" in problems
    assert accepted["accepted"] is True
    report = read_report(task_dir / "report.json")
    assert report.summary == "Done."
    assert report.task_id == task_dir.name
    assert report.changes[0].path == "a.py"


async def test_ask_returns_normally_when_the_deadline_comes_first(repo: Path) -> None:
    task_dir = prepared_task(repo, timeout_ms=3_000)
    started = time.monotonic()
    async with session("channel", "serve", "--task-dir", str(task_dir), cwd=repo) as client:
        reply = result_json(
            await client.call_tool(
                "ask_orchestrator", {"question": "Which way?", "options": ["a", "b"]}
            )
        )
    waited = time.monotonic() - started

    assert reply["answered"] is False
    assert "best judgment" in reply["message"]
    assert waited < 30  # bounded by the task's 3 s deadline, not the 5 minute cap
    asked = [e for e in events(task_dir) if e["type"] == "question"]
    assert asked[0]["options"] == ["a", "b"]
    assert (
        mailbox.pending_questions(TaskStore(repo).paths(task_dir.name))[0].question == "Which way?"
    )


async def test_ask_returns_the_answer_written_by_caesar_answer(repo: Path) -> None:
    task_dir = prepared_task(repo)
    task_id = task_dir.name
    paths = TaskStore(repo).paths(task_id)

    def answer_when_asked() -> subprocess.CompletedProcess[str]:
        question = wait_for(lambda: mailbox.pending_questions(paths), what="the question")[0]
        return run_caesar("answer", task_id, question.id, "b", "--root", str(repo))

    answered: list[subprocess.CompletedProcess[str]] = []

    async def answer() -> None:
        answered.append(await anyio.to_thread.run_sync(answer_when_asked))

    async with (
        session("channel", "serve", "--task-dir", str(task_dir), cwd=repo) as client,
        anyio.create_task_group() as group,
    ):
        group.start_soon(answer)
        reply = result_json(
            await client.call_tool(
                "ask_orchestrator", {"question": "a or b?", "options": ["a", "b"]}
            )
        )

    assert answered[0].returncode == 0, answered[0].stderr
    assert reply["answered"] is True
    assert reply["answer"] == "b"


def test_two_concurrent_answers_exactly_one_wins(repo: Path) -> None:
    task_dir = prepared_task(repo)
    paths = TaskStore(repo).paths(task_dir.name)
    asked = mailbox.ask(paths, "Ship it?", ["yes", "no"])

    def answer(text: str) -> subprocess.CompletedProcess[str]:
        return run_caesar("answer", task_dir.name, asked.id, text, "--root", str(repo))

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(answer, ["yes", "no"]))

    codes = sorted(r.returncode for r in results)
    assert codes == [0, 1], [r.stderr for r in results]
    winner = results[[r.returncode for r in results].index(0)]
    stored = mailbox.read_answer(paths, asked.id)
    assert stored is not None
    assert stored.answer == ("yes" if winner is results[0] else "no")
    loser = results[[r.returncode for r in results].index(1)]
    assert "already answered" in loser.stderr


def test_serving_a_directory_that_is_not_a_task_is_refused(tmp_path: Path) -> None:
    done = run_caesar("channel", "serve", "--task-dir", str(tmp_path), stdin="")
    assert done.returncode == 2
    assert "not a task directory" in done.stderr
    assert done.stdout == ""


def test_an_agent_that_cannot_load_the_channel_reports_by_file(repo: Path) -> None:
    """``--channel`` for an agent with no way to load MCP servers: no channel in task.json,
    the brief asks for the report file, and the task still ends with the agent's report."""
    brief = ["look", "--agent", "demo", "--channel", "--context", '{"script": "quick"}']
    done = run_caesar("run", *brief, "--json", "--root", str(repo), cwd=repo, timeout=120)

    outcome = json.loads(done.stdout)
    assert outcome["report_source"] == "file"
    task = json.loads((Path(outcome["task_dir"]) / "task.json").read_text())
    assert "channel" not in task
