"""The real Claude Code reporting through the task's MCP return channel.

``caesar run --channel --agent claude``: caesar lays down ``mcp.json`` in the task directory,
claude starts ``caesar channel serve`` from it, and the scripted model calls the channel's
tools as claude exposes them (``mcp__caesar__*``). The report must come from the channel.
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

pytestmark = requires("claude")


def test_claude_submits_its_report_through_the_channel(repo: Path, tmp_path: Path) -> None:
    script = Script(
        [
            Shell(SHELL_COMMAND),
            CallTool("mcp__caesar__report_progress", {"message": "shell done", "pct": 50}),
            CallTool("mcp__caesar__submit_report", channel_report()),
            Say("Reported through the channel."),
        ]
    )

    run = run_live("claude", repo, tmp_path / "home", script, args=["--channel"])

    assert_reported_through_channel(run, progress=["shell done"])
    # the channel's configuration was caesar's plumbing, put back after the run
    assert not (run.task_dir / "mcp.json").exists()
