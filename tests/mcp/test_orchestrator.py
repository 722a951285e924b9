"""``caesar mcp serve`` driven by a real MCP client over stdio, as a main agent would."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from caesar_core.mcp.orchestrator import TOOLS
from tests.mcp.conftest import error_text, result_json, run_caesar, session
from tests.runner.conftest import POLL_S, context, run_json

DEADLINE_S = 60.0


async def pending_question(client: Client, task_id: str) -> dict[str, Any]:
    """Await (briefly, repeatedly) until the task shows the question it waits on."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        result = await client.call_tool(
            "caesar_await", {"task_ids": [task_id], "timeout_ms": int(POLL_S * 10_000)}
        )
        view = result_json(result)["tasks"][task_id]
        assert view["pending"] is True, view
        if view["pending_questions"]:
            return dict(view["pending_questions"][0])
    raise AssertionError("the task never asked its question")


async def test_the_fourteen_tools_are_listed(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        listed = await client.list_tools()

    assert sorted(tool.name for tool in listed.tools) == sorted(TOOLS)
    assert len(TOOLS) == 14
    delegate = next(t for t in listed.tools if t.name == "caesar_delegate")
    assert "objective" in delegate.input_schema["required"]


async def test_delegate_await_answer_await_round_trip(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        started = result_json(
            await client.call_tool(
                "caesar_delegate",
                {
                    "objective": "decide with me",
                    "agent": "demo",
                    "context": context("ask"),
                    "timeout": "2m",
                },
            )
        )
        task_id = started["task_id"]
        assert started["status"] == "running"
        assert started["agent"] == "demo"

        question = await pending_question(client, task_id)
        assert question["question"]
        answered = result_json(
            await client.call_tool(
                "caesar_answer",
                {"task_id": task_id, "question_id": question["id"], "answer": "yes"},
            )
        )
        assert answered == {"task_id": task_id, "question_id": question["id"], "answered": True}

        again = await client.call_tool(
            "caesar_answer", {"task_id": task_id, "question_id": question["id"], "answer": "no"}
        )
        assert "already answered" in error_text(again)
        unknown = await client.call_tool(
            "caesar_answer", {"task_id": task_id, "question_id": "q_nope", "answer": "x"}
        )
        assert "q_nope" in error_text(unknown)

        done = result_json(
            await client.call_tool(
                "caesar_await", {"task_ids": [task_id], "timeout_ms": int(DEADLINE_S * 1000)}
            )
        )["tasks"][task_id]

    assert done["pending"] is False
    assert done["status"] == "succeeded"
    assert done["report"]["status"] == "success"
    assert "yes" in done["report"]["summary"]
    assert set(done["report"]) == {
        "status",
        "summary",
        "changes",
        "changes_verified_by",
        "findings",
        "questions",
        "next_steps",
    }


async def test_review_tools_on_a_worktree_task(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        started = result_json(
            await client.call_tool(
                "caesar_delegate",
                {
                    "objective": "leave notes",
                    "agent": "demo",
                    "mode": "write",
                    "isolation": "worktree",
                    "context": context("work"),
                },
            )
        )
        task_id = started["task_id"]
        assert started["isolation"] == "worktree"
        awaited = result_json(
            await client.call_tool("caesar_await", {"task_ids": [task_id], "timeout_ms": 60_000})
        )
        assert awaited["tasks"][task_id]["report"]["changes_verified_by"] == "git"

        status = result_json(await client.call_tool("caesar_status", {"task_id": task_id}))
        assert status["status"] == "succeeded"
        assert status["last_event"]["type"] == "finished"
        logs = result_json(await client.call_tool("caesar_logs", {"task_id": task_id, "limit": 3}))
        assert len(logs["events"]) == 3
        assert logs["total_events"] >= 3
        raw = result_json(await client.call_tool("caesar_logs", {"task_id": task_id, "raw": True}))
        assert raw["truncated"] is False

        diff = result_json(await client.call_tool("caesar_diff", {"task_id": task_id}))
        assert not diff["is_empty"]
        assert "+++ " in diff["patch"]
        changed = [f["path"] for f in diff["files"]]
        applied = result_json(await client.call_tool("caesar_apply", {"task_id": task_id}))

    assert applied["applied"] is True
    assert applied["conflicts"] == []
    for path in changed:
        assert (repo / path).exists()


async def test_refusals_carry_the_core_reason(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        unknown_agent = await client.call_tool(
            "caesar_delegate", {"objective": "x", "agent": "nobody"}
        )
        bad_timeout = await client.call_tool(
            "caesar_delegate", {"objective": "x", "agent": "demo", "timeout": "soon"}
        )
        unknown_task = await client.call_tool("caesar_status", {"task_id": "t_" + "0" * 32})
        awaited = result_json(
            await client.call_tool(
                "caesar_await", {"task_ids": ["t_" + "1" * 32], "timeout_ms": 100}
            )
        )

    assert "unknown agent 'nobody'" in error_text(unknown_agent)
    assert "remedy" in error_text(unknown_agent)
    assert "timeout" in error_text(bad_timeout)
    assert "t_000" in error_text(unknown_task)
    assert awaited["tasks"]["t_" + "1" * 32]["status"] == "unknown"


async def test_tasks_started_elsewhere_are_visible_and_listings_answer(repo: Path) -> None:
    outside = run_json(repo, "look around", "--agent", "demo", "--context", context("quick"))

    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        awaited = result_json(
            await client.call_tool(
                "caesar_await", {"task_ids": [outside["task_id"]], "timeout_ms": 1000}
            )
        )
        agents = result_json(await client.call_tool("caesar_list_agents", {}))
        roles = result_json(await client.call_tool("caesar_list_roles", {}))

    view = awaited["tasks"][outside["task_id"]]
    assert view["pending"] is False
    assert view["report"]["summary"] == outside["report"]["summary"]
    ids = [row["id"] for row in agents["agents"]]
    assert ids[:1] == ["demo"] and {"codex", "claude", "opencode", "gemini"} <= set(ids)
    assert isinstance(roles["roles"], list)


async def test_cancel_stops_a_running_task(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        started = result_json(
            await client.call_tool(
                "caesar_delegate",
                {"objective": "hang", "agent": "demo", "context": context("hang")},
            )
        )
        cancelled = result_json(
            await client.call_tool("caesar_cancel", {"task_id": started["task_id"]})
        )

    assert cancelled["cancelled"] is True
    assert cancelled["status"] == "cancelled"


def test_the_server_prints_nothing_but_the_protocol(repo: Path) -> None:
    """stdin closed at once: a clean exit, and not one byte of stdout outside the protocol."""
    done = run_caesar("mcp", "serve", "--root", str(repo), stdin="")

    assert done.stdout == ""
    assert done.returncode == 0, done.stderr


def test_install_merges_and_never_clobbers(repo: Path, tmp_path: Path) -> None:
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "npx"\n'
    )
    env = {"CODEX_HOME": str(codex_home)}

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return run_caesar("mcp", "install", *args, "--root", str(repo), env=env)

    dry = install("claude", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would write" in dry.stdout
    assert "caesar" not in json.loads((repo / ".mcp.json").read_text())["mcpServers"]

    assert install("claude").returncode == 0
    servers = json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    assert servers["other"] == {"command": "x"}
    assert servers["caesar"]["args"][-3:] == ["serve", "--root", str(repo.resolve())]
    assert "already up to date" in install("claude").stdout

    assert install("codex").returncode == 0
    toml = (codex_home / "config.toml").read_text()
    assert toml.startswith('# mine\nmodel = "o3"')
    assert "[mcp_servers.docs]" in toml and "[mcp_servers.caesar]" in toml

    for client, path in (("opencode", "opencode.json"), ("gemini", ".gemini/settings.json")):
        assert install(client).returncode == 0
        assert "caesar" in (repo / path).read_text()

    (repo / ".gemini" / "settings.json").write_text("{ not json")
    broken = install("gemini")
    assert broken.returncode == 2
    assert "cannot be read" in broken.stderr and "remedy" in broken.stderr
    assert (repo / ".gemini" / "settings.json").read_text() == "{ not json"


async def test_tool_inputs_out_of_range_are_refused_by_the_schema(repo: Path) -> None:
    """``limit: -5`` used to be accepted (and quietly read as 1)."""
    task_id = run_json(repo, "quick", "--agent", "demo")["task_id"]
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        negative = await client.call_tool("caesar_logs", {"task_id": task_id, "limit": -5})
        huge = await client.call_tool("caesar_logs", {"task_id": task_id, "limit": 10**9})
        backwards = await client.call_tool(
            "caesar_await", {"task_ids": [task_id], "timeout_ms": -1}
        )
        fine = result_json(await client.call_tool("caesar_logs", {"task_id": task_id, "limit": 1}))

    limit = listed["caesar_logs"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 1000)
    assert "limit" in error_text(negative)
    assert "limit" in error_text(huge)
    assert "timeout_ms" in error_text(backwards)
    assert len(fine["events"]) == 1


async def test_a_huge_invalid_id_is_not_echoed_back_whole(repo: Path) -> None:
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        refused = await client.call_tool("caesar_status", {"task_id": "x" * 100_000})

    text = error_text(refused)
    assert "invalid task id" in text and "100,000 characters" in text
    assert len(text) < 1_000
