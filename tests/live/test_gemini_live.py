"""Gemini CLI, for real: ``caesar run --agent gemini`` against the scripted Gemini API server.

The write run plays the standard scenario (a shell command, a file written with
``write_file``, the report written to the task directory); the read-only run plays the
same script, and the CLI itself must refuse the shell and the workspace write while still
letting the report file through.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from tests.live.clis import requires
from tests.live.scenario import (
    READ_ONLY_SUMMARY,
    SHELL_FILE,
    TOOL_FILE,
    LiveRun,
    assert_did_the_work,
    assert_held_read_only,
    diff_paths,
    read_only_script,
    run_live,
    standard_script,
)

pytestmark = requires("gemini")

CLI = "gemini"


def _tool_edges(run: LiveRun) -> tuple[Counter[str], Counter[str], list[dict[str, Any]]]:
    calls = [e for e in run.events() if e["type"] == "tool_use"]
    starts = Counter(e["id"] for e in calls if e["status"] == "started")
    ends = Counter(e["id"] for e in calls if e["status"] != "started")
    return starts, ends, calls


def test_write_run_does_the_work_and_reports_by_file(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", standard_script("file"))
    assert_did_the_work(run)
    outcome = run.outcome

    starts, ends, calls = _tool_edges(run)
    assert starts and starts == ends, calls
    tools = {e["tool"] for e in calls}
    assert {"run_shell_command", "write_file"} <= tools
    assert all(e["status"] != "failed" for e in calls), calls

    changed = [e["path"] for e in run.events() if e["type"] == "file_changed"]
    assert changed == [TOOL_FILE]  # the report file lies outside the workspace
    messages = [e["text"] for e in run.events() if e["type"] == "message"]
    assert messages[-1] == "Done: the report is written."

    assert outcome["report_source"] == "file"
    assert outcome["report"]["status"] == "success"
    usage = outcome["report"]["usage"]  # the agent's report had none: the stream's totals
    assert usage["source"] == "gemini stream"
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage.get("cost_usd") is None

    assert {SHELL_FILE, TOOL_FILE} <= diff_paths(repo, run)


def test_read_only_run_is_held_read_only_and_still_reports(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", read_only_script(), args=["--mode", "read-only"])
    assert_held_read_only(run)
    outcome = run.outcome

    starts, ends, calls = _tool_edges(run)
    assert starts and starts == ends, calls
    by_id = {e["id"]: e for e in calls if e["status"] != "started"}
    statuses = [by_id[i]["status"] for i in starts]
    assert statuses == ["failed", "failed", "succeeded"], calls  # shell, workspace, report

    assert outcome["report_source"] == "file"
    assert outcome["report"]["summary"] == READ_ONLY_SUMMARY
    assert outcome["report"]["usage"]["source"] == "gemini stream"
    assert not (run.task_dir / "gemini-policy.toml").exists()  # laid down for the run only


def test_a_refused_api_key_fails_the_task_with_the_apis_reason(repo: Path, tmp_path: Path) -> None:
    run = run_live(
        CLI, repo, tmp_path / "home", standard_script("file"), env={"GEMINI_API_KEY": "bad-key"}
    )
    assert run.outcome["status"] == "failed", run.outcome  # gemini exits 144: HTTP 400 % 256
    errors = [e for e in run.events() if e["type"] == "error"]
    assert errors and errors[0]["fatal"], run.events()
    assert errors[0]["message"] == "API error: API key not valid. Please pass a valid API key."
    assert not [e for e in run.events() if e["type"] == "tool_use"]
    assert run.outcome["report_source"] == "synthesized"
    assert run.outcome["report"]["status"] == "failed"
