"""The real Claude Code reporting through the task's MCP return channel.

``caesar run --channel --agent claude``: caesar lays down ``mcp.json`` in the task directory,
claude starts ``caesar channel serve`` from it, and the scripted model calls the channel's
tools as claude exposes them (``mcp__caesar__*``). The report must come from the channel.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Shell
from tests.live.scenario import SHELL_COMMAND, SHELL_FILE, channel_report, run_live

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

    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    assert run.outcome["report_source"] == "channel"
    assert run.outcome["report"]["summary"] == "Reported through the channel."
    task = json.loads((run.task_dir / "task.json").read_text())
    assert task["channel"]["server_name"] == "caesar"
    progress = [e for e in run.events() if e["type"] == "progress"]
    assert [p["message"] for p in progress] == ["shell done"]
    calls = [e for e in run.events() if e["type"] == "tool_use" and e["status"] != "started"]
    assert all(c["status"] == "succeeded" for c in calls), calls
    assert (Path(run.outcome["workspace"]) / SHELL_FILE).exists()
    # the channel's configuration was caesar's plumbing, put back after the run
    assert not (run.task_dir / "mcp.json").exists()
