"""Qwen Code's stream as a user sees it: replayed from a real capture, then from bad input.

The capture (``tests/fixtures/streams/qwen-0.24.4.jsonl``) is @qwen-code/qwen-code 0.24.4
running the standard scenario against the scripted server through its OpenAI-compatible
provider (``tests/live/dialects/qwen.py``); paths are normalized to ``/capture/...``. What it
shares with Claude Code's stream is tested there; these are Qwen Code's own shapes.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import McpInjection, NetworkControl
from caesar_core.agents.qwen import QwenAdapter, QwenTranslator, path_rule
from caesar_core.protocol import Mode
from caesar_core.protocol.event import Error, FileChanged, Message, Thinking, ToolStatus
from tests.agents.replay import (
    STREAMS,
    WORKSPACE,
    assert_paired,
    calls,
    replay_into,
    worktree_invocation,
)

CAPTURE = STREAMS / "qwen-0.24.4.jsonl"
REPORT = "/capture/task/report.json"

REFUSED = [  # as qwen 0.24.4 printed them when the provider refused the turn (then exit 1)
    '{"type":"assistant","uuid":"0ab17aed-89d8-4f9e-aab8-713bd325e355","session_id":'
    '"c1197905-6660-47fe-bdac-9bb4adc5595c","parent_tool_use_id":null,"message":{"id":'
    '"0ab17aed-89d8-4f9e-aab8-713bd325e355","type":"message","role":"assistant","model":'
    '"refused","content":[{"type":"text","text":"[API Error: 400 scripted refusal]"}],'
    '"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
    '{"type":"result","subtype":"error_during_execution","uuid":'
    '"10e31f34-a9aa-4b37-a080-20ba0fc94f7b","session_id":"c1197905-6660-47fe-bdac-9bb4adc5595c",'
    '"is_error":true,"duration_ms":485,"duration_api_ms":0,"num_turns":1,"usage":{'
    '"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0},"permission_denials":[],'
    '"error":{"message":"[API Error: 400 scripted refusal]"}}',
]


def replay(lines: list[str], report: str | None = REPORT) -> tuple[QwenTranslator, list[Any]]:
    return replay_into(QwenTranslator(WORKSPACE, report), lines)


def assistant(*blocks: dict[str, Any]) -> str:
    message = {"role": "assistant", "content": list(blocks)}
    return json.dumps({"type": "assistant", "session_id": "s1", "message": message})


def use(call_id: str, tool: str, **arguments: Any) -> str:
    return assistant({"type": "tool_use", "id": call_id, "name": tool, "input": arguments})


def result(call_id: str, content: str, is_error: bool = False) -> str:
    block = {"type": "tool_result", "tool_use_id": call_id, "is_error": is_error}
    message = {"role": "user", "content": [{**block, "content": content}]}
    return json.dumps({"type": "user", "session_id": "s1", "message": message})


# -- the capture -----------------------------------------------------------------------------


def test_capture_replays_what_a_user_would_see() -> None:
    lines = CAPTURE.read_text().splitlines()
    translator, events = replay(lines)
    assert_paired(events)
    starts = [(e.tool, e.input_summary) for e in calls(events) if e.status is ToolStatus.STARTED]
    shell = "printf 'made by the shell\\n' > shell-made.txt"
    assert starts == [
        ("run_shell_command", shell),
        ("write_file", "notes.md"),
        ("write_file", REPORT),
    ]
    ends = [e.status for e in calls(events) if e.status is not ToolStatus.STARTED]
    assert ends == [ToolStatus.SUCCEEDED] * 3
    changed = [(e.path, e.action.value) for e in events if isinstance(e, FileChanged)]
    assert changed == [("notes.md", "created")]  # the report is caesar's, not a change
    said = [e for e in events if isinstance(e, Message | Thinking)]
    done = "Done: the report is written."
    assert said == [Thinking(text="The work is done."), Message(text=done)]
    assert translator.final_text == "Done: the report is written."
    closing = json.loads(lines[-1])
    assert translator.session == closing["session_id"]
    usage = translator.usage
    assert usage is not None and usage.source == "qwen stream"
    assert (usage.input_tokens, usage.output_tokens) == (
        closing["usage"]["input_tokens"],
        closing["usage"]["output_tokens"],
    )
    assert usage.cost_usd is None
    assert translator.skipped == 0 and translator.failure is None


def test_capture_holds_no_home_or_temporary_paths() -> None:
    text = CAPTURE.read_text()
    for forbidden in ("/home/", "/root", "/Users/", "/tmp/", "/work/", "caesar-test-key"):
        assert forbidden not in text


# -- the translation, piece by piece ----------------------------------------------------------


def test_a_refused_turn_fails_with_the_apis_sentence_said_once() -> None:
    translator, events = replay(REFUSED)
    assert events == [Error(message="API error: 400 scripted refusal", fatal=True)]
    assert translator.failure == "API error: 400 scripted refusal"


def test_cached_tokens_are_already_in_the_input_count() -> None:
    usage = {"input_tokens": 500, "output_tokens": 40, "cache_read_input_tokens": 300}
    closing = json.dumps({"type": "result", "subtype": "success", "usage": usage, "result": "x"})
    translator, _ = replay([closing])
    assert translator.usage is not None
    assert (translator.usage.input_tokens, translator.usage.output_tokens) == (500, 40)


def test_a_file_is_created_only_when_the_result_says_so() -> None:
    _, events = replay(
        [
            use("a", "write_file", file_path=f"{WORKSPACE}/new.txt", content="x"),
            result("a", f"Successfully created and wrote to new file: {WORKSPACE}/new.txt."),
            use("b", "write_file", file_path=f"{WORKSPACE}/old.txt", content="y"),
            result("b", f"Successfully overwrote file: {WORKSPACE}/old.txt."),
            use("c", "edit", file_path=f"{WORKSPACE}/old.txt", old_string="y", new_string="z"),
            result("c", "The file was updated."),
            use("d", "edit", file_path=f"{WORKSPACE}/gone.txt", old_string="y", new_string="z"),
            result("d", "File not found.", is_error=True),
            use("e", "run_shell_command", command="touch sh.txt"),
            result("e", "Exit Code: 0"),
        ]
    )
    assert_paired(events)
    changed = [(e.path, e.action.value) for e in events if isinstance(e, FileChanged)]
    assert changed == [("new.txt", "created"), ("old.txt", "modified"), ("old.txt", "modified")]


def test_a_refused_call_ends_failed() -> None:
    declined = (
        'Qwen Code requires permission to use "run_shell_command", but that permission was '
        'declined. Matching deny rule: "run_shell_command".'
    )
    _, events = replay(
        [use("a", "run_shell_command", command="rm -rf x"), result("a", declined, True)]
    )
    assert [e.status for e in calls(events)] == [ToolStatus.STARTED, ToolStatus.FAILED]


def test_an_api_error_among_other_text_is_still_dropped_alone() -> None:
    _, events = replay(
        [
            assistant(
                {"type": "text", "text": "Working."}, {"type": "text", "text": "[API Error: x]"}
            )
        ]
    )
    assert events == [Message(text="Working.")]


def test_a_deferred_tool_called_through_tool_call_is_shown_as_itself() -> None:
    report = {"status": "success", "summary": "Done."}
    called = {"name": "mcp__caesar__submit_report", "arguments": report}
    _, events = replay(
        [
            use("s", "tool_search", query="caesar report"),
            result("s", "<functions>...</functions>"),
            use("c", "tool_call", **called),
            result("c", "accepted"),
            use("x", "tool_call", name=3),  # not a name: shown as the bridge it went through
            result("x", "error", is_error=True),
        ]
    )
    assert_paired(events)
    starts = [(e.tool, e.input_summary) for e in calls(events) if e.status is ToolStatus.STARTED]
    assert [tool for tool, _ in starts] == [
        "tool_search",
        "mcp__caesar__submit_report",
        "tool_call",
    ]
    assert json.loads(starts[1][1]) == report


def test_bad_lines_are_counted_never_raised() -> None:
    translator, events = replay(
        [
            "Ripgrep not available. Falling back to built-in grep.",
            "[1, 2]",
            json.dumps({"type": "telepathy"}),
            json.dumps({"type": "assistant", "message": "not a message"}),
            json.dumps({"type": "stream_event", "event": {"type": "goal_state"}}),
            assistant({"type": "text", "text": "ok"}),
            '{"type":"result","subtype":"succ',
        ]
    )
    assert translator.skipped == 5
    assert [e.text for e in events if isinstance(e, Message)] == ["ok"]
    assert translator.session == "s1" and translator.failure is None


# -- the command line ------------------------------------------------------------------------


invocation = partial(worktree_invocation, "qwen")


def test_write_mode_approves_every_tool_and_admits_the_task_dir(tmp_path: Path) -> None:
    inv = invocation(tmp_path)
    launch = QwenAdapter().launch(inv)
    assert launch.argv == [
        "qwen", "--output-format", "stream-json", "--approval-mode", "yolo",
        f"--include-directories={inv.paths.root}", "-p", "# the brief",
    ]  # fmt: skip
    assert launch.cwd == Path("/repo/.caesar/wt/t_1")
    assert not launch.env and not launch.files


def test_read_only_mode_allows_only_the_report_and_denies_the_shell(tmp_path: Path) -> None:
    inv = invocation(tmp_path, Mode.READ_ONLY)
    argv = QwenAdapter().launch(inv).argv
    report = inv.task.report_path
    assert argv[3:9] == [
        "--approval-mode",
        "default",
        "--exclude-tools=run_shell_command",
        "--exclude-tools=monitor",
        f"--allowed-tools=edit(/{report})",
        f"--allowed-tools=write_file(/{report})",
    ]
    assert "yolo" not in argv


def test_a_path_rule_escapes_what_its_glob_would_read() -> None:
    assert path_rule("edit", "/a b/(x)/[y]/*.json") == r"edit(//a b/\(x\)/\[y\]/\*.json)"


def test_the_model_resume_and_extra_args_go_before_the_prompt(tmp_path: Path) -> None:
    inv = invocation(tmp_path, model="qwen3-coder", resume_session="s-1", extra_args=["--debug"])
    argv = QwenAdapter().launch(inv).argv
    assert argv[-6:] == ["--model", "qwen3-coder", "--resume=s-1", "--debug", "-p", "# the brief"]


@pytest.mark.parametrize("mode", [Mode.WRITE, Mode.READ_ONLY])
def test_the_channel_goes_on_the_command_line(tmp_path: Path, mode: Mode) -> None:
    command = ["/usr/bin/python3", "-m", "caesar_core", "channel", "serve"]
    inv = invocation(tmp_path, mode, tier="channel", channel_command=command)
    launch = QwenAdapter().launch(inv)
    given = next(a for a in launch.argv if a.startswith("--mcp-config="))
    server = json.loads(given.removeprefix("--mcp-config="))["mcpServers"]["caesar"]
    assert (server["command"], server["args"]) == (command[0], command[1:])
    assert server["trust"] is True  # its calls never ask: headless, asking is refusing
    assert "--allowed-mcp-server-names=caesar" in launch.argv
    assert not launch.files


@pytest.mark.parametrize("channel", [False, True])
def test_capabilities_and_tier(channel: bool) -> None:
    adapter = QwenAdapter()
    caps = adapter.capabilities
    assert caps.json_events and caps.native_read_only and caps.model and caps.resume
    assert not caps.output_schema and not caps.final_message_file
    assert caps.network is NetworkControl.OPEN
    assert caps.mcp is McpInjection.FLAG
    assert adapter.preferred_tier(channel) == ("channel" if channel else "file")
    assert adapter.min_version == "0.24.4"
