"""The real codex CLI, run by ``caesar run --agent codex`` against the scripted server.

Skipped (with the reason) only when codex is not installed in ``.cache/clis``.
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.live.clis import requires
from tests.live.modelserver import Say, Script, Shell
from tests.live.scenario import (
    SHELL_FILE,
    TOOL_FILE,
    LiveRun,
    assert_did_the_work,
    report,
    run_live,
    standard_script,
)
from tests.runner.conftest import caesar

pytestmark = requires("codex")


def tool_outputs(run: LiveRun) -> list[str]:
    """What codex told the model each tool returned, from the last request's history."""
    last = run.server.seen("/responses")[-1].body
    return [
        str(item.get("output"))
        for item in last["input"]
        if isinstance(item, dict) and str(item.get("type")).endswith("_call_output")
    ]


def assert_calls_paired(events: list[dict[str, Any]]) -> None:
    calls = [e for e in events if e["type"] == "tool_use"]
    starts = Counter(e["id"] for e in calls if e["status"] == "started")
    ends = Counter(e["id"] for e in calls if e["status"] != "started")
    assert starts == ends, calls


def test_codex_runs_the_shell_and_its_patch_tool_and_reports_by_schema(
    repo: Path, tmp_path: Path
) -> None:
    run = run_live("codex", repo, tmp_path / "home", standard_script("schema"))
    assert_did_the_work(run)
    assert Path(run.outcome["workspace"]).is_relative_to(repo / ".caesar" / "wt")

    events = run.events()
    assert_calls_paired(events)
    shell = [e for e in events if e["type"] == "tool_use" and e["tool"] == "shell"]
    assert [e["status"] for e in shell] == ["started", "succeeded"]
    assert "shell-made.txt" in shell[0]["input_summary"]
    changed = [(e["path"], e["action"]) for e in events if e["type"] == "file_changed"]
    assert changed == [(TOOL_FILE, "created")]
    assert any(e["type"] == "thinking" for e in events)

    assert run.outcome["report_source"] == "schema"
    got = run.outcome["report"]
    assert got["status"] == "success" and got["task_id"] == run.outcome["task_id"]
    assert got["usage"]["source"] == "codex stream"
    assert got["usage"]["input_tokens"] > 0 and got["usage"]["output_tokens"] > 0
    final = json.loads((run.task_dir / "final-message.txt").read_text())
    assert final["summary"] == got["summary"]
    sent = run.server.seen("/responses")[0].body["text"]["format"]
    assert sent["type"] == "json_schema" and sent["strict"] is True

    diff = json.loads(caesar(repo, "diff", run.outcome["task_id"], "--json").stdout)
    assert sorted(f["path"] for f in diff["files"]) == sorted([SHELL_FILE, TOOL_FILE])
    assert not diff["is_empty"] and f"+++ b/{TOOL_FILE}" in diff["patch"]


def test_codex_read_only_sandbox_refuses_writes_and_still_reports(
    repo: Path, tmp_path: Path
) -> None:
    run = run_live(
        "codex", repo, tmp_path / "home", standard_script("schema"), args=["--mode", "read-only"]
    )
    assert run.exit_code == 0, run.stderr
    workspace = Path(run.outcome["workspace"])
    assert not (workspace / SHELL_FILE).exists() and not (workspace / TOOL_FILE).exists()
    shell_out, patch_out = tool_outputs(run)
    assert "Read-only file system" in shell_out
    assert "blocked by read-only sandbox" in patch_out
    assert "-s read-only" in run.events()[0]["command"]
    assert_calls_paired(run.events())
    assert run.outcome["report_source"] == "schema"
    assert run.outcome["diff"]["is_empty"] is True
    declared = [f["title"] for f in run.outcome["report"]["findings"]]
    assert "Change declared but not found in the diff" in declared


@pytest.mark.parametrize(("network", "seen"), [("off", "blocked"), ("on", "reachable")])
def test_codex_write_mode_network_follows_the_task(
    repo: Path, tmp_path: Path, network: str, seen: str
) -> None:
    """codex's sandbox cuts a command's network unless caesar opens it (write mode only)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        probe = (
            f"if (echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null; "
            "then echo reachable > net.txt; else echo blocked > net.txt; fi"
        )
        said = {
            **report("Probed the network."),
            "changes": [{"path": "net.txt", "action": "created"}],
            "commands_run": [{"command": probe, "exit_code": 0}],
        }
        script = Script([Shell(probe), Say(json.dumps(said))])
        run = run_live("codex", repo, tmp_path / "home", script, args=["--network", network])
    assert run.exit_code == 0, run.stderr
    assert run.outcome["report_source"] == "schema"
    assert (Path(run.outcome["workspace"]) / "net.txt").read_text() == f"{seen}\n"
