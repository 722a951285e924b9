"""``caesar_comment`` through a real MCP client: the same comments as ``caesar comments``."""

from __future__ import annotations

import json
from pathlib import Path

from caesar_core.store import TaskStore
from tests.mcp.conftest import error_text, result_json, session
from tests.runner.conftest import caesar, context, run_json


async def test_comment_list_and_resolve_through_mcp(repo: Path) -> None:
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    task_id = str(out["task_id"])
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    first_line = (worktree / "DEMO_NOTES.md").read_text().splitlines()[0]
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        added = result_json(
            await client.call_tool(
                "caesar_comment",
                {"task_id": task_id, "path": "DEMO_NOTES.md", "start_line": 1, "text": "why?"},
            )
        )
        off = await client.call_tool(
            "caesar_comment",
            {"task_id": task_id, "path": "DEMO_NOTES.md", "start_line": 500, "text": "x"},
        )
        half = await client.call_tool("caesar_comment", {"task_id": task_id, "text": "x"})
        from_cli = json.loads(caesar(repo, "comments", task_id, "--json").stdout)
        resolved = result_json(
            await client.call_tool(
                "caesar_comment", {"task_id": task_id, "resolve": added["added"]}
            )
        )

    [item] = added["comments"]
    assert item["id"] == added["added"] and item["state"] == "open"
    assert item["code"] == [first_line] and item["author"] == "mcp"
    assert from_cli["comments"] == added["comments"]
    assert "not in one hunk" in error_text(off) and "DEMO_NOTES.md:1" in error_text(off)
    assert "path, start_line and text" in error_text(half)
    assert resolved["resolved"] == item["id"] and resolved["comments"][0]["state"] == "resolved"
