"""Claude Code's stream, replayed from a real capture: what a user watching the task sees.

The capture (``tests/fixtures/streams/claude-2.1.332.jsonl``) is claude 2.1.332 playing the
standard scenario against the scripted server: a Bash command, a Write in the workspace, the
report written to the task directory, a last message. The plan-mode and failure lines below
are that same version's output too (trimmed to the fields the translator reads).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import Invocation, NetworkControl
from caesar_core.agents.claude import NETWORK_OFF_SETTINGS, ClaudeAdapter, ClaudeTranslator
from caesar_core.protocol import Mode
from caesar_core.protocol.event import (
    Error,
    FileChanged,
    Message,
    Thinking,
    ToolStatus,
)
from tests.agents.replay import STREAMS, WORKSPACE, calls, invocation_for, replay_into

CAPTURE = STREAMS / "claude-2.1.332.jsonl"
REPORT = "/capture/task/report.json"


def replay(lines: list[str], report_path: str = REPORT) -> tuple[ClaudeTranslator, list[Any]]:
    return replay_into(ClaudeTranslator(WORKSPACE, report_path), lines)


def capture() -> list[str]:
    return CAPTURE.read_text().splitlines()


def line(obj: dict[str, Any]) -> str:
    return json.dumps(obj)


def assistant(*blocks: dict[str, Any], parent: str | None = None) -> str:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": list(blocks)}
    return line({"type": "assistant", "message": message, "parent_tool_use_id": parent})


def result_of(call_id: str, *, error: bool = False, raw: object = None) -> str:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": "x", "is_error": error}
    obj: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]}}
    if raw is not None:
        obj["tool_use_result"] = raw
    return line(obj)


# -- the capture ---------------------------------------------------------------------------


def test_every_call_in_the_capture_opens_and_closes_with_the_same_id() -> None:
    translator, events = replay(capture())
    edges = calls(events)
    starts = [e for e in edges if e.status is ToolStatus.STARTED]
    ends = [e for e in edges if e.status is not ToolStatus.STARTED]
    assert [e.tool for e in starts] == ["Bash", "Write", "Write"]
    assert all(e.id.startswith("toolu_") for e in edges)
    assert [e.id for e in starts] == [e.id for e in ends]
    assert all(e.status is ToolStatus.SUCCEEDED for e in ends)
    # Claude's closing edge carries the id only: readers borrow the name from the opening.
    assert all(e.tool == "" for e in ends)
    assert translator.skipped == 0


def test_capture_summaries_name_the_command_and_the_file() -> None:
    _, events = replay(capture())
    starts = [e for e in calls(events) if e.status is ToolStatus.STARTED]
    assert starts[0].input_summary == "printf 'made by the shell\\n' > shell-made.txt"
    assert starts[1].input_summary == "notes.md"
    assert starts[2].input_summary == REPORT  # outside the workspace: left absolute
    assert all(len(e.input_summary) <= 200 for e in starts)


def test_the_file_tool_change_is_workspace_relative_and_the_report_is_not_a_change() -> None:
    _, events = replay(capture())
    changes = [e for e in events if isinstance(e, FileChanged)]
    assert changes == [FileChanged(path="notes.md", action="created")]


def test_capture_thinking_messages_and_final_text() -> None:
    translator, events = replay(capture())
    thoughts = [e.text for e in events if isinstance(e, Thinking)]
    assert thoughts == ["Next: Bash.", "Next: Write.", "Next: Write."]
    assert [e.text for e in events if isinstance(e, Message)] == ["Done: the report is written."]
    assert translator.final_text == "Done: the report is written."
    assert translator.failure is None
    assert not any(isinstance(e, Error) for e in events)


def test_usage_and_cost_come_from_the_result_line_not_the_assistant_lines() -> None:
    translator, _ = replay(capture())
    result = json.loads(capture()[-1])
    usage = translator.usage
    assert usage is not None
    assert usage.source == "claude stream"
    assert usage.input_tokens == result["usage"]["input_tokens"]  # no cached tokens here
    assert usage.output_tokens == result["usage"]["output_tokens"]
    assert usage.cost_usd == pytest.approx(result["total_cost_usd"])
    per_line = sum(
        json.loads(text)["message"]["usage"]["output_tokens"]
        for text in capture()
        if json.loads(text)["type"] == "assistant"
    )
    assert usage.output_tokens != per_line


def test_cached_prompt_tokens_count_as_input() -> None:
    translator, _ = replay(
        [
            line(
                {
                    "type": "result",
                    "subtype": "success",
                    "is_error": False,
                    "result": "ok",
                    "total_cost_usd": 0.5,
                    "usage": {
                        "input_tokens": 2,
                        "cache_creation_input_tokens": 6354,
                        "cache_read_input_tokens": 15934,
                        "output_tokens": 4,
                    },
                }
            )
        ]
    )
    assert translator.usage is not None
    assert translator.usage.input_tokens == 22290
    assert translator.usage.output_tokens == 4


def test_structured_output_is_the_final_text() -> None:
    report = {"protocol": "caesar.report/v1", "status": "success", "summary": "ok"}
    result = {"type": "result", "subtype": "success", "is_error": False, "result": ""}
    translator, _ = replay([line({**result, "structured_output": report})])
    assert translator.final_text is not None
    assert json.loads(translator.final_text) == report


# -- plan mode (read-only): every write refused, the report too ----------------------------

PLAN_REPORT = "/capture/workspace/.caesar/tasks/t_1/report.json"
PLAN_REPORT_BODY = '{"protocol": "caesar.report/v1", "status": "success", "summary": "Done."}'
PLAN_LINES = [
    assistant(
        {
            "type": "tool_use",
            "id": "toolu_0b39",
            "name": "Bash",
            "input": {"command": "printf 'made by the shell\\n' > shell-made.txt"},
        }
    ),
    line(
        {
            "type": "system",
            "subtype": "permission_denied",
            "tool_name": "Bash",
            "tool_use_id": "toolu_0b39",
            "decision_reason_type": "classifier",
        }
    ),
    result_of("toolu_0b39", error=True, raw="Error: Auto mode is unavailable"),
    assistant(
        {
            "type": "tool_use",
            "id": "toolu_5776",
            "name": "Write",
            "input": {"file_path": f"{WORKSPACE}/notes.md", "content": "# Notes\n"},
        }
    ),
    result_of("toolu_5776", error=True, raw="Error: Cannot write to notes.md while in plan mode."),
    assistant(
        {
            "type": "tool_use",
            "id": "toolu_f142",
            "name": "Write",
            "input": {"file_path": PLAN_REPORT, "content": PLAN_REPORT_BODY},
        }
    ),
    result_of("toolu_f142", error=True, raw="Error: Cannot write to report.json in plan mode."),
    assistant({"type": "text", "text": "Done: the report is written."}),
    line({"type": "result", "subtype": "success", "is_error": False, "result": "Done."}),
]


def test_plan_mode_refusals_end_the_calls_failed_and_change_nothing() -> None:
    translator, events = replay(PLAN_LINES, PLAN_REPORT)
    ends = [e for e in calls(events) if e.status is not ToolStatus.STARTED]
    assert [e.id for e in ends] == ["toolu_0b39", "toolu_5776", "toolu_f142"]
    assert all(e.status is ToolStatus.FAILED for e in ends)
    assert not any(isinstance(e, FileChanged) for e in events)
    assert translator.failure is None  # refused calls are not a failed run
    assert translator.skipped == 0


def test_a_refused_report_write_is_the_final_text() -> None:
    translator, _ = replay(PLAN_LINES, PLAN_REPORT)
    assert translator.final_text == PLAN_REPORT_BODY


def test_a_report_written_after_a_refusal_clears_it() -> None:
    ok_again = [
        assistant(
            {
                "type": "tool_use",
                "id": "toolu_again",
                "name": "Write",
                "input": {"file_path": PLAN_REPORT, "content": PLAN_REPORT_BODY},
            }
        ),
        result_of("toolu_again", raw={"type": "create", "filePath": PLAN_REPORT}),
    ]
    translator, events = replay(PLAN_LINES[:-2] + ok_again + PLAN_LINES[-2:], PLAN_REPORT)
    assert translator.final_text == "Done."
    assert not any(isinstance(e, FileChanged) for e in events)


# -- other shapes --------------------------------------------------------------------------


def test_edit_and_update_are_modifications_and_subagent_lines_still_count() -> None:
    lines = [
        assistant(
            {
                "type": "tool_use",
                "id": "toolu_e",
                "name": "Edit",
                "input": {"file_path": f"{WORKSPACE}/src/app.py", "old_string": "a"},
            },
            parent="toolu_task",
        ),
        result_of("toolu_e", raw={"filePath": f"{WORKSPACE}/src/app.py", "oldString": "a"}),
        assistant(
            {
                "type": "tool_use",
                "id": "toolu_w",
                "name": "Write",
                "input": {"file_path": f"{WORKSPACE}/notes.md", "content": "x"},
            }
        ),
        result_of("toolu_w", raw={"type": "update", "filePath": f"{WORKSPACE}/notes.md"}),
    ]
    _, events = replay(lines)
    changes = [e for e in events if isinstance(e, FileChanged)]
    assert changes == [
        FileChanged(path="src/app.py", action="modified"),
        FileChanged(path="notes.md", action="modified"),
    ]
    assert len(calls(events)) == 4


def test_a_failed_edit_changes_nothing() -> None:
    lines = [
        assistant(
            {
                "type": "tool_use",
                "id": "toolu_e",
                "name": "Edit",
                "input": {"file_path": f"{WORKSPACE}/a.py"},
            }
        ),
        result_of("toolu_e", error=True, raw="Error: String to replace not found"),
    ]
    _, events = replay(lines)
    assert not any(isinstance(e, FileChanged) for e in events)
    assert calls(events)[-1].status is ToolStatus.FAILED


def test_a_result_for_an_unseen_call_still_yields_both_edges() -> None:
    _, events = replay([result_of("toolu_orphan")])
    assert [(e.id, e.status) for e in calls(events)] == [
        ("toolu_orphan", ToolStatus.STARTED),
        ("toolu_orphan", ToolStatus.SUCCEEDED),
    ]


# -- bad input -----------------------------------------------------------------------------


def test_banners_non_json_and_a_truncated_last_line_are_counted_not_raised() -> None:
    lines = ["Claude Code starting…", "", "[1, 2]", *capture()]
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # the result line, cut mid-write
    translator, events = replay(lines)
    assert translator.skipped == 3  # banner, array, truncated result
    assert translator.usage is None  # it was on the lost line
    assert translator.final_text == "Done: the report is written."
    assert len([e for e in calls(events) if e.status is ToolStatus.STARTED]) == 3


def test_unknown_types_are_counted_and_known_noise_is_not() -> None:
    lines = [
        line({"type": "brand_new_event", "x": 1}),
        line({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}}),
        line({"type": "system", "subtype": "thinking_tokens", "estimated_tokens": 6}),
        line({"type": "system", "subtype": "some_future_notice"}),
        line({"type": "assistant", "message": "not an object"}),
    ]
    translator, events = replay(lines)
    assert events == []
    assert translator.skipped == 2


def test_a_stream_that_dies_mid_call_closes_it_failed() -> None:
    lines = capture()
    cut = next(i for i, text in enumerate(lines) if '"name":"Write"' in text)
    translator, events = replay(lines[: cut + 1])
    last = calls(events)[-1]
    assert last.status is ToolStatus.FAILED
    assert last.tool == "Write"
    assert translator.failure is None


def test_an_api_error_result_fails_the_run() -> None:
    """claude 2.1.332 with its API unreachable: a synthetic assistant message, then a
    ``result`` with ``subtype: success`` and ``is_error: true``."""
    text = "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"
    lines = [
        line(
            {
                "type": "assistant",
                "message": {"model": "<synthetic>", "content": [{"type": "text", "text": text}]},
                "error": "server_error",
                "parent_tool_use_id": None,
            }
        ),
        line(
            {
                "type": "result",
                "subtype": "success",
                "is_error": True,
                "api_error_status": None,
                "result": text,
                "total_cost_usd": 0,
                "terminal_reason": "api_error",
            }
        ),
    ]
    translator, events = replay(lines)
    assert translator.failure == text
    assert events[-1] == Error(message=text, fatal=True)
    assert [e for e in events if isinstance(e, Error)] == [events[-1]]


def test_a_startup_failure_names_its_reason() -> None:
    """claude 2.1.332 asked for a required sandbox on a machine without bubblewrap."""
    reason = "Sandbox required but unavailable: bubblewrap (bwrap) not installed"
    translator, events = replay(
        [
            line(
                {
                    "type": "result",
                    "subtype": "error_during_execution",
                    "is_error": True,
                    "num_turns": 0,
                    "total_cost_usd": 0,
                    "usage": {"input_tokens": 0, "output_tokens": 0},
                    "errors": [reason],
                    "startup_failure_reason": "sandbox_required_unavailable",
                }
            )
        ]
    )
    assert translator.failure == reason
    assert events == [Error(message=reason, fatal=True)]
    assert translator.final_text == reason


# -- the command line ----------------------------------------------------------------------


def make_invocation(tmp_path: Path, **overrides: Any) -> Invocation:
    mode = overrides.pop("mode", Mode.WRITE)
    network = overrides.pop("network", True)
    prompt = overrides.pop("prompt", "the brief")
    task_fields = {"objective": "o", "network": network, "deadline_ms": 60_000}
    return invocation_for(
        "claude",
        tmp_path / "task",
        tmp_path / "ws",
        mode=mode,
        tier="file",
        prompt=prompt,
        task_fields=task_fields,
        **overrides,
    )


def test_write_mode_accepts_edits_allows_bash_and_may_write_the_task_dir(tmp_path: Path) -> None:
    launch = ClaudeAdapter().launch(make_invocation(tmp_path))
    argv = launch.argv
    assert argv[:6] == ["claude", "-p", "the brief", "--output-format", "stream-json", "--verbose"]
    assert argv[argv.index("--permission-mode") + 1] == "acceptEdits"
    assert argv[argv.index("--allowedTools") + 1] == "Bash"
    assert argv[argv.index("--add-dir") + 1] == str(tmp_path / "task")
    assert "--disallowedTools" not in argv
    assert "--settings" not in argv
    assert "--model" not in argv
    assert launch.cwd == tmp_path / "ws"


def test_read_only_is_plan_mode_without_bash(tmp_path: Path) -> None:
    argv = ClaudeAdapter().launch(make_invocation(tmp_path, mode=Mode.READ_ONLY)).argv
    assert argv[argv.index("--permission-mode") + 1] == "plan"
    assert "--allowedTools" not in argv
    assert "--add-dir" in argv


def test_network_off_denies_web_tools_and_requires_the_sandbox(tmp_path: Path) -> None:
    argv = ClaudeAdapter().launch(make_invocation(tmp_path, network_off=True)).argv
    at = argv.index("--disallowedTools")
    assert argv[at + 1 : at + 3] == ["WebFetch", "WebSearch"]
    settings = json.loads(argv[argv.index("--settings") + 1])
    assert settings == NETWORK_OFF_SETTINGS
    assert settings["sandbox"]["failIfUnavailable"] is True
    assert ClaudeAdapter().capabilities.network is NetworkControl.TOGGLE


def test_model_and_extra_args_come_last(tmp_path: Path) -> None:
    invocation = make_invocation(tmp_path, model="opus", extra_args=("--max-turns", "3"))
    argv = ClaudeAdapter().launch(invocation).argv
    assert argv[argv.index("--model") + 1] == "opus"
    assert argv[-2:] == ["--max-turns", "3"]


def test_a_prompt_that_looks_like_an_option_is_not_read_as_one(tmp_path: Path) -> None:
    argv = ClaudeAdapter().launch(make_invocation(tmp_path, prompt="- be terse")).argv
    assert argv[2] == "\n- be terse"


def test_file_tier_unless_a_channel_is_asked_for() -> None:
    adapter = ClaudeAdapter()
    assert adapter.preferred_tier(False) == "file"
    assert adapter.preferred_tier(True) == "channel"
    assert adapter.capabilities.native_read_only
    assert not adapter.capabilities.output_schema


def test_the_translator_knows_the_report_path(tmp_path: Path) -> None:
    translator = ClaudeAdapter().translator(make_invocation(tmp_path))
    assert translator.report_path == str(tmp_path / "task" / "report.json")
    assert translator.workspace == tmp_path / "ws"
