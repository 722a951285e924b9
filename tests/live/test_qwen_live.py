"""Qwen Code, for real: ``caesar run --agent qwen`` against the scripted server.

Qwen Code talks to it as an OpenAI-compatible provider (``tests/live/dialects/qwen.py``). The
write run plays the standard scenario (a shell command, a file written with ``write_file``,
the report written to the task directory); the read-only run plays the same steps, and Qwen
Code itself must refuse the shell and the workspace write while still letting the report
through. Skipped, with the reason, when the CLI is not installed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.live.clis import requires
from tests.live.modelserver import Say, Script, Shell, WriteFile
from tests.live.scenario import (
    SHELL_FILE,
    TOOL_CONTENT,
    TOOL_FILE,
    LiveRun,
    report,
    run_live,
    standard_script,
)
from tests.runner.conftest import caesar, git

pytestmark = requires("qwen")

CLI = "qwen"


def _tool_edges(run: LiveRun) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Every call's start and end, paired by id; the ends, in order."""
    calls = [e for e in run.events() if e["type"] == "tool_use"]
    starts = Counter(e["id"] for e in calls if e["status"] == "started")
    ends = [e for e in calls if e["status"] != "started"]
    assert starts and starts == Counter(e["id"] for e in ends), calls
    return starts, ends


def test_write_run_does_the_work_and_reports_by_file(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", standard_script("file"))
    outcome = run.outcome
    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    workspace = Path(outcome["workspace"])
    assert (workspace / SHELL_FILE).read_text() == "made by the shell\n"
    assert (workspace / TOOL_FILE).read_text() == TOOL_CONTENT

    _, ends = _tool_edges(run)
    assert [(e["tool"], e["status"]) for e in ends] == [
        ("", "succeeded"),
        ("", "succeeded"),
        ("", "succeeded"),
    ]  # a closing edge carries the id alone, as in Claude Code's stream
    starts = [
        e["tool"] for e in run.events() if e["type"] == "tool_use" and e["status"] == "started"
    ]
    assert starts == ["run_shell_command", "write_file", "write_file"]
    changed = [(e["path"], e["action"]) for e in run.events() if e["type"] == "file_changed"]
    assert changed == [(TOOL_FILE, "created")]  # the report is not a change of the work
    events = run.events()
    kinds = [e["type"] for e in events if e["type"] in ("thinking", "message")]
    assert kinds == ["thinking", "message"]
    assert [e["text"] for e in events if e["type"] == "message"] == ["Done: the report is written."]

    assert outcome["report_source"] == "file"
    assert outcome["report"]["status"] == "success"
    usage = outcome["report"]["usage"]  # the agent's report had none: the stream's totals
    assert usage["source"] == "qwen stream"
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0

    diff = caesar(repo, "diff", outcome["task_id"], "--json")
    assert diff.returncode == 0, diff.stderr
    assert {f["path"] for f in json.loads(diff.stdout)["files"]} == {SHELL_FILE, TOOL_FILE}
    requests = run.server.seen("/chat/completions")
    assert requests and all(r.headers.get("authorization") for r in requests)


def test_read_only_run_is_held_read_only_and_still_reports(repo: Path, tmp_path: Path) -> None:
    body = json.dumps({**report("Looked, changed nothing."), "changes": [], "commands_run": []})
    script = Script(
        [
            Shell("printf x > shell-made.txt"),
            WriteFile(TOOL_FILE, TOOL_CONTENT),
            WriteFile("{report_path}", body),
            Say("Done: the report is written."),
        ]
    )
    run = run_live(CLI, repo, tmp_path / "home", script, args=["--mode", "read-only"])
    outcome = run.outcome
    workspace = Path(outcome["workspace"])
    assert not (workspace / SHELL_FILE).exists()
    assert not (workspace / TOOL_FILE).exists()
    assert git(workspace, "status", "--porcelain") == ""
    assert not [e for e in run.events() if e["type"] == "file_changed"]

    _, ends = _tool_edges(run)
    assert [e["status"] for e in ends] == ["failed", "failed", "succeeded"]  # shell, file, report
    assert outcome["report_source"] == "file"
    assert outcome["report"]["summary"] == "Looked, changed nothing."
    assert outcome["status"] == "succeeded"


def test_a_refused_turn_fails_the_task_with_the_providers_reason(
    repo: Path, tmp_path: Path
) -> None:
    """The provider refuses the model caesar asked for (``--model refused``)."""
    run = run_live(
        CLI, repo, tmp_path / "home", standard_script("file"), args=["--model", "refused"]
    )
    assert run.outcome["status"] == "failed", run.outcome
    errors = [e for e in run.events() if e["type"] == "error"]
    assert (errors[0]["message"], errors[0]["fatal"]) == ("API error: 400 scripted refusal", True)
    assert not [e for e in run.events() if e["type"] == "message"]  # the error is not the model's
    assert not [e for e in run.events() if e["type"] == "tool_use"]
    assert run.outcome["report_source"] == "synthesized"
    assert run.outcome["report"]["status"] == "failed"
    asked = {r.body.get("model") for r in run.server.seen("/chat/completions") if r.body}
    assert asked == {"refused"}
