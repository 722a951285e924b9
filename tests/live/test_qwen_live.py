"""Qwen Code, for real: ``caesar run --agent qwen`` against the scripted server.

Qwen Code talks to it as an OpenAI-compatible provider (``tests/live/dialects/qwen.py``). The
write run plays the standard scenario (a shell command, a file written with ``write_file``,
the report written to the task directory); the read-only run plays the same steps, and Qwen
Code itself must refuse the shell and the workspace write while still letting the report
through. Skipped, with the reason, when the CLI is not installed.
"""

from __future__ import annotations

from pathlib import Path

from tests.live.clis import requires
from tests.live.scenario import (
    READ_ONLY_SUMMARY,
    SHELL_FILE,
    TOOL_FILE,
    assert_did_the_work,
    assert_held_read_only,
    assert_refused_model,
    diff_paths,
    read_only_script,
    run_live,
    standard_script,
    tool_ends,
)

pytestmark = requires("qwen")

CLI = "qwen"


def test_write_run_does_the_work_and_reports_by_file(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", standard_script("file"))
    assert_did_the_work(run)
    outcome = run.outcome

    ends = tool_ends(run)
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

    assert diff_paths(repo, run) == {SHELL_FILE, TOOL_FILE}
    requests = run.server.seen("/chat/completions")
    assert requests and all(r.headers.get("authorization") for r in requests)


def test_read_only_run_is_held_read_only_and_still_reports(repo: Path, tmp_path: Path) -> None:
    run = run_live(CLI, repo, tmp_path / "home", read_only_script(), args=["--mode", "read-only"])
    assert_held_read_only(run)
    outcome = run.outcome

    ends = tool_ends(run)
    assert [e["status"] for e in ends] == ["failed", "failed", "succeeded"]  # shell, file, report
    assert outcome["report_source"] == "file"
    assert outcome["report"]["summary"] == READ_ONLY_SUMMARY
    assert outcome["status"] == "succeeded"


def test_a_refused_turn_fails_the_task_with_the_providers_reason(
    repo: Path, tmp_path: Path
) -> None:
    """The provider refuses the model caesar asked for (``--model refused``)."""
    run = run_live(
        CLI, repo, tmp_path / "home", standard_script("file"), args=["--model", "refused"]
    )
    assert_refused_model(run, "API error: 400 scripted refusal")
    assert not [e for e in run.events() if e["type"] == "message"]  # the error is not the model's
