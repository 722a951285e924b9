"""The real Gemini CLI reporting through the task's MCP return channel.

caesar puts the channel in the workspace's ``.gemini/settings.json`` for the run (the only
place gemini reads MCP servers from that a task can use) and puts the file back afterwards:
the report comes from the channel and the file never reaches the task's diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Shell
from tests.live.scenario import SHELL_COMMAND, SHELL_FILE, channel_report, run_live
from tests.runner.conftest import caesar, git

pytestmark = requires("gemini")


def test_gemini_submits_its_report_through_the_channel(repo: Path, tmp_path: Path) -> None:
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text('{"mine": true}\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "project settings")
    fields = channel_report()
    script = Script(
        [
            Shell(SHELL_COMMAND),
            CallTool("mcp_caesar_submit_report", fields),
            Say("Reported through the channel."),
        ]
    )

    run = run_live("gemini", repo, tmp_path / "home", script, args=["--channel"])

    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    assert run.outcome["report_source"] == "channel"
    assert run.outcome["report"]["summary"] == "Reported through the channel."
    workspace = Path(run.outcome["workspace"])
    assert (workspace / ".gemini" / "settings.json").read_text() == '{"mine": true}\n'
    diff = json.loads(caesar(repo, "diff", run.outcome["task_id"], "--json").stdout)
    assert [f["path"] if isinstance(f, dict) else f for f in diff["files"]] == [SHELL_FILE]
