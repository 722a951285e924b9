"""``caesar_continue`` through the real MCP client: a follow-up turn started like a delegation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.mcp.conftest import error_text, result_json, session
from tests.runner.conftest import context


async def awaited(client: Client, task_id: str) -> dict[str, Any]:
    result = await client.call_tool("caesar_await", {"task_ids": [task_id], "timeout_ms": 60_000})
    view: dict[str, Any] = result_json(result)["tasks"][task_id]
    assert view["pending"] is False, view
    return view


async def test_continue_starts_the_next_turn_in_the_same_worktree(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        first = result_json(
            await client.call_tool(
                "caesar_delegate",
                {"objective": "leave notes", "agent": "demo", "context": context("work")},
            )
        )
        assert (await awaited(client, first["task_id"]))["status"] == "succeeded"

        second = result_json(
            await client.call_tool(
                "caesar_continue",
                {"task_id": first["task_id"], "message": "note the edge cases", "timeout": "2m"},
            )
        )
        assert second["status"] == "running"
        assert (second["continues"], second["chain"], second["turn"]) == (
            first["task_id"],
            first["task_id"],
            2,
        )
        assert second["workspace"] == first["workspace"]
        assert second["agent"] == "demo" and second["isolation"] == "worktree"
        assert any(note.startswith("Fresh session:") for note in second["notes"])
        done = await awaited(client, second["task_id"])
        assert done["status"] == "succeeded" and "note the edge cases" in done["report"]["summary"]

        whole = result_json(await client.call_tool("caesar_diff", {"task_id": second["task_id"]}))
        alone = result_json(
            await client.call_tool(
                "caesar_diff", {"task_id": second["task_id"], "since_previous": True}
            )
        )
        again = await client.call_tool(
            "caesar_continue", {"task_id": first["task_id"], "message": "more"}
        )
        unknown = await client.call_tool("caesar_continue", {"task_id": "t_" + "0" * 32})

    assert sorted(f["path"] for f in whole["files"]) == ["DEMO_NOTES.md", "README.md"]
    assert [f["path"] for f in alone["files"]] == ["DEMO_NOTES.md"]
    assert "+- turn 2: note the edge cases" in alone["patch"]
    assert f"already continued by {second['task_id']}" in error_text(again)
    assert "remedy" in error_text(again)
    assert "no task" in error_text(unknown)
