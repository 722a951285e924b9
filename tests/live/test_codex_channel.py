"""The real codex CLI reporting through the task's MCP return channel.

``caesar run --channel --agent codex``: caesar passes the channel server as ``-c
mcp_servers.caesar.*`` (pre-approved: ``codex exec`` never asks, so an unapproved MCP call is
refused). codex 0.171.0 does not list MCP tools in the request; the scripted model finds
them with ``tool_search`` first, as a real model does, then calls them by namespace
(``mcp__caesar`` + ``submit_report``; see the codex dialect). The report must come from the
channel.
"""

from __future__ import annotations

from pathlib import Path

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Shell
from tests.live.scenario import (
    SHELL_COMMAND,
    assert_reported_through_channel,
    channel_report,
    run_live,
)

pytestmark = requires("codex")


def test_codex_submits_its_report_through_the_channel(repo: Path, tmp_path: Path) -> None:
    script = Script(
        [
            Shell(SHELL_COMMAND),
            CallTool("tool_search", {"query": "caesar submit report progress"}),
            CallTool("mcp__caesar__report_progress", {"message": "shell done", "pct": 50}),
            CallTool("mcp__caesar__submit_report", channel_report()),
            Say("Reported through the channel."),
        ]
    )

    run = run_live("codex", repo, tmp_path / "home", script, args=["--channel"])

    assert_reported_through_channel(run, progress=["shell done"])
    # the search found the channel's tools under codex's namespace for them
    searched = [
        item
        for seen in run.server.requests
        if isinstance(seen.body, dict)
        for item in seen.body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "tool_search_output"
    ]
    assert searched, "codex never answered the tool search"
    namespaces = {tool.get("name") for tool in searched[-1]["tools"]}
    assert "mcp__caesar" in namespaces
