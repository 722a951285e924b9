"""The MCP tools answer in the reference implementation's shapes where its shape is the
contract's, caesar's own fields kept beside them; a real client over stdio, as elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from caesar_core.protocol.documents import read_report
from caesar_core.store import mailbox
from caesar_core.store.store import TaskStore
from tests.mcp.conftest import result_json, run_caesar, session
from tests.mcp.test_channel import prepared_task
from tests.runner.conftest import context, run_json, wait_for


async def test_logs_counts_the_events_not_the_agent_s_seq(repo: Path) -> None:
    """An agent numbers its own lines anyhow: ``total_events`` is how many events there are."""
    done = run_json(repo, "look around", "--agent", "demo", "--context", context("quick"))
    log = repo / ".caesar" / "tasks" / done["task_id"] / "events.jsonl"
    before = sum(1 for line in log.read_text().splitlines() if line.strip())
    line = {
        "protocol": "caesar.event/v1",
        "at": "2026-08-09T10:00:20.000Z",
        "task_id": done["task_id"],
        "type": "message",
        "text": "mine",
    }
    with log.open("a") as out:
        out.write(json.dumps({**line, "seq": 100}) + "\n")
        out.write("{not an event\n")
        out.write(json.dumps({**line, "seq": 103}) + "\n")

    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        logs = result_json(
            await client.call_tool("caesar_logs", {"task_id": done["task_id"], "limit": 2})
        )
        raw = result_json(
            await client.call_tool("caesar_logs", {"task_id": done["task_id"], "raw": True})
        )

    assert logs["raw"] is False
    assert logs["total_events"] == before + 2
    assert logs["unreadable_lines"] == 1
    assert [event["seq"] for event in logs["events"]] == [100, 103]
    assert raw["raw"] is True and isinstance(raw["text"], str) and raw["truncated"] is False


async def test_list_agents_names_the_policy_as_the_reference_does(repo: Path) -> None:
    config = repo / ".caesar" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[policy]\ndenied = ["codex"]\n\n[models]\nclaude = "sonnet"\n')
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        agents = result_json(await client.call_tool("caesar_list_agents", {}))

    rows = {row["id"]: row for row in agents["agents"]}
    assert rows["codex"]["policy"]["allowed"] is False and rows["codex"]["allowed"] is False
    assert "denied" in rows["codex"]["policy"]["reason"]
    assert rows["demo"]["policy"]["allowed"] is True
    assert rows["claude"]["default_model"] == "sonnet" and rows["claude"]["model"] == "sonnet"
    assert "default_model" not in rows["demo"]


async def test_the_channel_replies_in_the_reference_shapes(repo: Path) -> None:
    task_dir = prepared_task(repo)
    task_id = task_dir.name
    paths = TaskStore(repo).paths(task_id)

    def answer_when_asked() -> None:
        question = wait_for(lambda: mailbox.pending_questions(paths), what="the question")[0]
        done = run_caesar("answer", task_id, question.id, "b", "--root", str(repo))
        assert done.returncode == 0, done.stderr

    async with session("channel", "serve", "--task-dir", str(task_dir), cwd=repo) as client:
        progress = result_json(await client.call_tool("report_progress", {"message": "half"}))
        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, answer_when_asked)
            reply = result_json(await client.call_tool("ask_orchestrator", {"question": "a or b?"}))
        submitted = result_json(
            await client.call_tool(
                "submit_report",
                {
                    "protocol": "caesar.report/v1",
                    "task_id": "whatever the agent thought",
                    "status": "success",
                    "summary": "Done.",
                },
            )
        )

    assert progress["ok"] is True
    assert reply["answered"] is True and reply["answer"] == "b"
    assert reply["id"] == reply["question_id"] and reply["id"].startswith("q_")
    assert submitted["ok"] is True and submitted["task_id"] == task_id
    assert read_report(task_dir / "report.json").task_id == task_id
