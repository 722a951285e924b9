"""opencode end to end: the real CLI, offline, against the scripted server, through ``caesar run``.

Skipped (with the reason) only when opencode is not installed. Each run takes a few seconds:
opencode bundles the OpenAI-compatible provider, so nothing is downloaded.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.live.clis import requires
from tests.live.modelserver import CallTool, Say, Script, Shell, WriteFile
from tests.live.scenario import (
    SHELL_COMMAND,
    SHELL_FILE,
    TOOL_FILE,
    LiveRun,
    assert_did_the_work,
    diff_paths,
    report,
    run_live,
    standard_script,
)

pytestmark = requires("opencode")

CLI = "opencode"


def _paired(events: list[dict[str, Any]]) -> None:
    """Every tool call that started ended, under the same id, and nothing ended unopened."""
    tools = [e for e in events if e["type"] == "tool_use"]
    starts = Counter(e["id"] for e in tools if e["status"] == "started")
    ends = Counter(e["id"] for e in tools if e["status"] != "started")
    assert starts, "no tool call at all"
    assert starts == ends, (starts, ends)


def _workspace(run: LiveRun) -> Path:
    return Path(run.outcome["workspace"])


def test_write_task_runs_both_tools_and_reports_by_file(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", standard_script("file"))
    assert_did_the_work(run)

    events = run.events()
    _paired(events)
    tools = {e["tool"] for e in events if e["type"] == "tool_use"}
    assert {"bash", "write"} <= tools
    changed = [e for e in events if e["type"] == "file_changed"]
    assert {(e["path"], e["action"]) for e in changed} == {(TOOL_FILE, "created")}
    assert any(e["type"] == "thinking" for e in events)
    messages = [e["text"] for e in events if e["type"] == "message"]
    assert messages[-1] == "Done: the report is written."

    assert run.outcome["report_source"] == "file"
    saved = json.loads((run.task_dir / "report.json").read_text())
    assert saved["status"] == "success"
    assert saved["summary"] == report()["summary"]
    usage = saved["usage"]
    assert usage["source"] == "opencode stream"
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["cost_usd"] > 0

    assert {SHELL_FILE, TOOL_FILE} <= diff_paths(repo, run)


def test_read_only_task_refuses_shell_and_edits_but_writes_the_report(
    repo: Path, tmp_path: Path
) -> None:
    run = run_live(
        CLI, repo, tmp_path / "home", standard_script("file"), args=["--mode", "read-only"]
    )
    workspace = _workspace(run)
    assert not (workspace / SHELL_FILE).exists()
    assert not (workspace / TOOL_FILE).exists()
    events = run.events()
    _paired(events)
    ends = [
        (e["tool"], e["status"])
        for e in events
        if e["type"] == "tool_use" and e["status"] != "started"
    ]
    # the shell is not even offered; the file tool is refused; the report is allowed
    assert ends == [("bash", "failed"), ("write", "failed"), ("write", "succeeded")]
    assert not [e for e in events if e["type"] == "file_changed"]
    assert run.outcome["report_source"] == "file"
    assert json.loads((run.task_dir / "report.json").read_text())["status"] == "success"
    offered = {
        tool["function"]["name"]
        for request in run.server.seen("/chat/completions")
        for tool in (request.body or {}).get("tools") or []
    }
    assert "write" in offered and "bash" not in offered


def test_read_only_holds_against_a_users_own_allow_rules(repo: Path, tmp_path: Path) -> None:
    """A user config that allows edits under ``docs/`` (and a shell command): the read-only
    task's rules replace the user's patterns instead of merging under them."""
    user = tmp_path / "user-opencode.json"
    allow = {"edit": {"*": "ask", "docs/*": "allow"}, "bash": {"*": "ask", "printf *": "allow"}}
    user.write_text(json.dumps({"permission": allow}))
    script = Script(
        [
            WriteFile("docs/guide.md", "# Guide\n"),
            Shell(SHELL_COMMAND),
            WriteFile("{report_path}", json.dumps(report())),
            Say("Done."),
        ]
    )
    run = run_live(
        CLI,
        repo,
        tmp_path / "home",
        script,
        args=["--mode", "read-only"],
        env={"OPENCODE_CONFIG": str(user)},
    )
    workspace = _workspace(run)
    assert not (workspace / "docs").exists()
    assert not (workspace / SHELL_FILE).exists()
    _paired(run.events())
    assert run.outcome["report_source"] == "file"


def test_read_only_in_a_worktree_still_reaches_the_report(repo: Path, tmp_path: Path) -> None:
    """In a worktree the report lies outside opencode's project: allowed by name, not by
    ``external_directory`` at large, and the edit rule's relative path climbs out of it."""
    run = run_live(
        CLI,
        repo,
        tmp_path / "home",
        standard_script("file"),
        args=["--mode", "read-only", "--isolation", "worktree"],
    )
    workspace = _workspace(run)
    assert ".caesar/wt/" in workspace.as_posix()
    assert not (workspace / SHELL_FILE).exists() and not (workspace / TOOL_FILE).exists()
    _paired(run.events())
    assert run.outcome["report_source"] == "file"


def test_provider_error_fails_the_task_with_its_message(repo: Path, tmp_path: Path) -> None:
    """The provider refuses the turn: opencode prints ``error`` and exits 1; the model named
    with ``--model`` is the one asked."""
    run = run_live(
        CLI, repo, tmp_path / "home", standard_script("file"), args=["--model", "caesar/refused"]
    )
    assert run.outcome["status"] == "failed", run.outcome
    assert run.outcome["report_source"] == "synthesized"
    errors = [e for e in run.events() if e["type"] == "error"]
    assert any(e["fatal"] and "scripted refusal" in e["message"] for e in errors), errors
    asked = {r.body.get("model") for r in run.server.seen("/chat/completions") if r.body}
    assert "refused" in asked


def test_channel_server_from_the_inline_config_takes_the_report(repo: Path, tmp_path: Path) -> None:
    """``caesar run --channel``: the adapter names the channel in ``OPENCODE_CONFIG_CONTENT``
    (no file in the workspace), opencode starts ``caesar channel serve`` and offers its tools
    as ``caesar_<tool>``."""
    submitted = {"status": "success", "summary": "Reported through the channel."}
    script = Script([CallTool("caesar_submit_report", submitted), Say("Reported.")])
    run = run_live(CLI, repo, tmp_path / "home", script, args=["--channel"])
    offered = {
        tool["function"]["name"]
        for request in run.server.seen("/chat/completions")
        for tool in (request.body or {}).get("tools") or []
    }
    assert "caesar_submit_report" in offered
    events = run.events()
    _paired(events)
    assert run.outcome["report_source"] == "channel", run.outcome
    saved = json.loads((run.task_dir / "report.json").read_text())
    assert saved["summary"] == "Reported through the channel."
