"""The real Qwen Code reporting through the task's MCP return channel.

``caesar run --channel --agent qwen``: the adapter passes the channel server as inline JSON to
``--mcp-config`` (no file) and keeps the user's other servers out of the task. Qwen Code defers
MCP tools: they are not in the request's tool list, a model finds them with ``tool_search``
and calls them through ``tool_call {name, arguments}``, which the stream shows as the MCP tool
itself. The server is trusted, so its calls run without asking in a read-only task too. The
report must come from the channel.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Shell
from tests.live.scenario import (
    SHELL_COMMAND,
    assert_reported_through_channel,
    channel_report,
    run_live,
)

pytestmark = requires("qwen")


def _call(tool: str, arguments: dict[str, Any]) -> CallTool:
    return CallTool("tool_call", {"name": f"mcp__caesar__{tool}", "arguments": arguments})


def test_qwen_submits_its_report_through_the_channel(repo: Path, tmp_path: Path) -> None:
    script = Script(
        [
            Shell(SHELL_COMMAND),
            CallTool("tool_search", {"query": "caesar submit report progress"}),
            _call("report_progress", {"message": "shell done", "pct": 50}),
            _call("submit_report", channel_report()),
            Say("Reported through the channel."),
        ]
    )

    run = run_live("qwen", repo, tmp_path / "home", script, args=["--channel"])

    assert_reported_through_channel(run, progress=["shell done"])
    tools = [e["tool"] for e in run.events() if e["type"] == "tool_use" and e["tool"]]
    assert tools[-2:] == ["mcp__caesar__report_progress", "mcp__caesar__submit_report"]
    found = [  # what tool_search answered: the channel's tools, by their deferred names
        message.get("content")
        for seen in run.server.requests
        if isinstance(seen.body, dict)
        for message in seen.body.get("messages") or []
        if isinstance(message, dict) and message.get("role") == "tool"
    ]
    assert any("mcp__caesar__submit_report" in json.dumps(text) for text in found)


def test_a_read_only_task_may_still_use_its_channel(repo: Path, tmp_path: Path) -> None:
    fields = {**channel_report("Looked, changed nothing."), "changes": [], "commands_run": []}
    script = Script([_call("submit_report", fields), Say("Reported.")])

    run = run_live(
        "qwen", repo, tmp_path / "home", script, args=["--channel", "--mode", "read-only"]
    )

    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    assert run.outcome["report_source"] == "channel"
    assert run.outcome["report"]["summary"] == "Looked, changed nothing."
    ends = [e for e in run.events() if e["type"] == "tool_use" and e["status"] != "started"]
    assert [e["status"] for e in ends] == ["succeeded"]
