"""``caesar_check`` and the checks ``caesar_await`` carries, through the SDK's real client."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import error_text, result_json, session
from tests.runner.conftest import context, git, write_config

CHECKS = '[review]\nchecks = ["test -f DEMO_NOTES.md", "grep -q \\"note it\\" README.md"]\n'


async def test_await_carries_the_checks_and_caesar_check_runs_them(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        started = result_json(
            await client.call_tool(
                "caesar_delegate",
                {
                    "objective": "note it",
                    "agent": "demo",
                    "isolation": "worktree",
                    "context": context("work"),
                },
            )
        )
        task_id = started["task_id"]
        awaited = result_json(
            await client.call_tool("caesar_await", {"task_ids": [task_id], "timeout_ms": 60_000})
        )["tasks"][task_id]
        # No checks configured when it ran: said so, and caesar_check says where to add them.
        assert awaited["checks"]["mark"] == "not run"
        refused = await client.call_tool("caesar_check", {"task_id": task_id})
        assert "no checks are configured" in error_text(refused)
        assert "[review] checks" in error_text(refused)

        write_config(repo, CHECKS)
        whole = result_json(await client.call_tool("caesar_check", {"task_id": task_id}))
        assert whole["task_id"] == task_id and whole["mark"] == "passed"
        assert [r["command"] for r in whole["results"]] == [
            "test -f DEMO_NOTES.md",
            'grep -q "note it" README.md',
        ]
        assert all(r["passed"] and r["exit_code"] == 0 for r in whole["results"])
        status = result_json(await client.call_tool("caesar_status", {"task_id": task_id}))
        assert status["checks"]["mark"] == "passed"

        diff = result_json(await client.call_tool("caesar_diff", {"task_id": task_id}))
        [notes] = next(f["hunks"] for f in diff["files"] if f["path"] == "DEMO_NOTES.md")
        alone = result_json(
            await client.call_tool("caesar_check", {"task_id": task_id, "hunks": [notes["id"]]})
        )
        assert alone["mark"] == "failed" and alone["hunks"] == [notes["id"]]
        assert [r["passed"] for r in alone["results"]] == [True, False]
        unknown = await client.call_tool(
            "caesar_check", {"task_id": task_id, "hunks": ["h_000000000000"]}
        )
        assert "no such hunk" in error_text(unknown)
        again = result_json(
            await client.call_tool("caesar_await", {"task_ids": [task_id], "timeout_ms": 1000})
        )["tasks"][task_id]

    assert again["checks"]["mark"] == "passed"  # the whole task's run; a selection is apart
    assert git(repo, "worktree", "list").count("\n") == 2
