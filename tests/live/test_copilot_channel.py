"""The real GitHub Copilot CLI reporting through the task's MCP return channel.

``caesar run --channel --agent copilot``: the adapter passes the channel server as JSON to
``--additional-mcp-config`` (no file), and Copilot offers its tools as ``caesar-<tool>``. A
read-only task allows them by server name (``--allow-tool=caesar``): headless, a tool that
would ask is refused. The report must come from the channel.
"""

from __future__ import annotations

from pathlib import Path

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Seen, Shell
from tests.live.scenario import (
    SHELL_COMMAND,
    assert_reported_through_channel,
    channel_report,
    run_live,
)

pytestmark = requires("copilot")


def _offered(requests: list[Seen]) -> set[str]:
    """The tool names the CLI offered the model."""
    bodies = [seen.body for seen in requests if isinstance(seen.body, dict)]
    return {str(tool["function"]["name"]) for body in bodies for tool in body.get("tools") or []}


def test_copilot_submits_its_report_through_the_channel(repo: Path, tmp_path: Path) -> None:
    script = Script(
        [
            Shell(SHELL_COMMAND),
            CallTool("caesar-report_progress", {"message": "shell done", "pct": 50}),
            CallTool("caesar-submit_report", channel_report()),
            Say("Reported through the channel."),
        ]
    )

    run = run_live("copilot", repo, tmp_path / "home", script, args=["--channel"])

    assert_reported_through_channel(run, progress=["shell done"])
    assert {"caesar-submit_report", "caesar-report_progress"} <= _offered(run.server.requests)


def test_a_read_only_task_may_still_use_its_channel(repo: Path, tmp_path: Path) -> None:
    fields = {**channel_report("Looked, changed nothing."), "changes": [], "commands_run": []}
    script = Script([CallTool("caesar-submit_report", fields), Say("Reported.")])

    run = run_live(
        "copilot", repo, tmp_path / "home", script, args=["--channel", "--mode", "read-only"]
    )

    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    assert run.outcome["report_source"] == "channel"
    assert run.outcome["report"]["summary"] == "Looked, changed nothing."
    ends = [e for e in run.events() if e["type"] == "tool_use" and e["status"] != "started"]
    assert [(e["tool"], e["status"]) for e in ends] == [("caesar-submit_report", "succeeded")]
