"""The real Claude Code, run by ``caesar run --agent claude`` against the scripted server.

Skipped (with the reason) only when claude is not installed in the project's CLI cache. Each
run plays the standard scenario: a Bash command, a Write in the workspace, the report written
with Write to the task directory (``--add-dir``), a last message.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.live.clis import cli_path, cli_version, requires
from tests.live.modelserver import Say, Script, Shell, WriteFile
from tests.live.scenario import (
    SHELL_FILE,
    TOOL_FILE,
    LiveRun,
    assert_did_the_work,
    diff_paths,
    report,
    run_live,
    standard_script,
)
from tests.runner.conftest import git

pytestmark = requires("claude")

NET_FILE = "net.txt"
NET_PROBE = (
    f'curl -sS -m 5 "$ANTHROPIC_BASE_URL/v1/models?probe=net" > {NET_FILE} 2>&1; '
    f'echo "exit=$?" >> {NET_FILE}'
)
"""A Bash step that reaches the scripted server itself: proof of network, or of none."""


def tool_edges(run: LiveRun) -> list[dict[str, Any]]:
    return [event for event in run.events() if event["type"] == "tool_use"]


def assert_paired(run: LiveRun) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every opening has exactly one closing with the same id, in order; returns the pairs."""
    edges = tool_edges(run)
    starts = [e for e in edges if e["status"] == "started"]
    ends = {e["id"]: e for e in edges if e["status"] != "started"}
    assert starts, "no tool call was shown"
    assert len(ends) == len(starts) == len(edges) // 2
    assert all(e["id"].startswith("toolu_") for e in edges)
    return [(start, ends[start["id"]]) for start in starts]


def test_claude_runs_the_scenario_and_writes_the_report_file(repo: Path, tmp_path: Path) -> None:
    run = run_live("claude", repo, tmp_path / "home", standard_script("file"))
    assert_did_the_work(run)
    assert Path(run.outcome["workspace"]) != repo  # a worktree of its own

    pairs = assert_paired(run)
    assert [start["tool"] for start, _ in pairs] == ["Bash", "Write", "Write"]
    assert all(end["status"] == "succeeded" and end["tool"] == "" for _, end in pairs)
    changes = [e for e in run.events() if e["type"] == "file_changed"]
    assert changes and all(not Path(e["path"]).is_absolute() for e in changes)
    assert {"path": TOOL_FILE, "action": "created"} in [
        {"path": e["path"], "action": e["action"]} for e in changes
    ]
    assert any(e["type"] == "thinking" for e in run.events())

    assert run.outcome["report_source"] == "file"
    assert run.outcome["status"] == "succeeded"
    assert run.outcome["report"]["summary"] == report()["summary"]
    usage = run.outcome["report"]["usage"]
    assert usage["source"] == "claude stream"
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["cost_usd"] > 0

    assert diff_paths(repo, run) == {SHELL_FILE, TOOL_FILE}

    calls = [r for r in run.server.seen("/v1/messages") if isinstance(r.body, dict)]
    offered = {tool["name"] for tool in calls[0].body["tools"]}
    assert {"Bash", "Write"} <= offered
    assert all(r.headers.get("x-api-key") == "test-key" for r in calls)
    answered = {"/v1/messages", "/v1/messages/count_tokens", "/v1/models"}
    assert {r.path.split("?")[0] for r in run.server.requests} <= answered


def test_claude_read_only_is_plan_mode_and_still_reports(repo: Path, tmp_path: Path) -> None:
    """Plan mode refuses the command, the file and the report file alike (even in the
    ``--add-dir`` task directory); the report the agent tried to write is what comes back."""
    run = run_live(
        "claude", repo, tmp_path / "home", standard_script("file"), args=["--mode", "read-only"]
    )
    workspace = Path(run.outcome["workspace"])
    assert not (workspace / SHELL_FILE).exists()
    assert not (workspace / TOOL_FILE).exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    pairs = assert_paired(run)
    assert [start["tool"] for start, _ in pairs] == ["Bash", "Write", "Write"]
    assert all(end["status"] == "failed" for _, end in pairs)
    assert not [e for e in run.events() if e["type"] == "file_changed"]
    assert run.outcome["report_source"] == "extracted"
    assert run.outcome["report"]["summary"] == report()["summary"]
    assert run.outcome["report"]["usage"]["source"] == "claude stream"
    started = next(e for e in run.events() if e["type"] == "started")
    assert "--permission-mode plan" in started["command"]


def sandbox_missing() -> str | None:
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    return f"claude's sandbox needs {' and '.join(missing)}" if missing else None


SANDBOX_MISSING = sandbox_missing()


def net_script() -> Script:
    return Script([Shell(NET_PROBE), WriteFile("{report_path}", json.dumps(report())), Say("ok")])


def test_claude_bash_reaches_the_network_by_default(repo: Path, tmp_path: Path) -> None:
    run = run_live("claude", repo, tmp_path / "home", net_script())
    assert run.server.seen("probe=net"), "the Bash step never reached the server"
    assert "exit=0" in (Path(run.outcome["workspace"]) / NET_FILE).read_text()


@pytest.mark.skipif(
    SANDBOX_MISSING is not None,
    reason=f"{SANDBOX_MISSING} (apt install bubblewrap socat); without them claude refuses",
)
def test_claude_network_off_cuts_bash_off(repo: Path, tmp_path: Path) -> None:
    run = run_live("claude", repo, tmp_path / "home", net_script(), args=["--network", "off"])
    assert run.exit_code == 0, run.stderr
    assert not run.server.seen("probe=net"), "Bash reached the network with --network off"
    probe = (Path(run.outcome["workspace"]) / NET_FILE).read_text()
    assert "exit=0" not in probe  # the command ran, in the workspace, offline
    assert run.outcome["report_source"] == "file"
    started = next(e for e in run.events() if e["type"] == "started")
    assert "--disallowedTools WebFetch WebSearch" in started["command"]


def test_claude_network_off_without_the_sandbox_fails_saying_why(
    repo: Path, tmp_path: Path
) -> None:
    """No bubblewrap/socat on PATH: claude refuses to start, and the task says so."""
    claude = cli_path("claude")
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh", "bash", "env", "git"):
        found = shutil.which(tool)
        assert found
        (bare / tool).symlink_to(found)
    (bare / "claude").symlink_to(claude)
    run = run_live(
        "claude",
        repo,
        tmp_path / "home",
        net_script(),
        args=["--network", "off"],
        env={"PATH": str(bare)},
    )
    assert run.outcome["status"] == "failed"
    assert run.outcome["report"]["status"] == "failed"
    assert run.outcome["report"]["summary"].startswith("Sandbox required but unavailable")
    errors = [e for e in run.events() if e["type"] == "error"]
    assert any(e["fatal"] and "andbox" in e["message"] for e in errors), errors
    assert not run.server.seen("/v1/messages")


def test_claude_version_is_the_pinned_one() -> None:
    done = subprocess.run(
        [str(cli_path("claude")), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.startswith(cli_version("claude"))
