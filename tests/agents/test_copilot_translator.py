"""GitHub Copilot CLI's stream as a user sees it: replayed from a real capture, then bad input.

The capture (``tests/fixtures/streams/copilot-1.0.102.jsonl``) is @github/copilot 1.0.102
running the standard scenario against the scripted server in its own-provider mode
(``tests/live/dialects/copilot.py``); paths are normalized to ``/capture/...``. No CLI is
needed to replay it.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import McpInjection, NetworkControl
from caesar_core.agents.copilot import USAGE_FILE, CopilotAdapter, CopilotTranslator
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

CAPTURE = STREAMS / "copilot-1.0.102.jsonl"
TASK_DIR = "/capture/task"

REFUSED = [  # as copilot 1.0.102 printed them when the provider refused the turn (then exit 1)
    '{"type":"session.error","data":{"errorType":"query","message":"400 scripted refusal",'
    '"statusCode":400,"originatingMessageId":"bd9347f6-1445-401b-b8a6-17bff7d684b0"},'
    '"id":"0f42da20-a5b2-45ba-a851-59ef3e04196f","timestamp":"2026-12-01T19:12:05.908Z",'
    '"parentId":"a63d8f50-24c2-487a-b6ca-da89f440c869"}',
    '{"type":"result","timestamp":"2026-12-01T19:12:05.919Z",'
    '"sessionId":"cecd9aa7-c579-40db-9b3b-a1651d67e896","exitCode":1,"usage":{'
    '"premiumRequests":0,"totalApiDurationMs":0,"sessionDurationMs":283,"codeChanges":{'
    '"linesAdded":0,"linesRemoved":0,"filesModified":[]}}}',
]


def replay(
    lines: list[str], task_dir: str | None = None, usage_file: Path | None = None
) -> tuple[CopilotTranslator, list[Any]]:
    return replay_into(CopilotTranslator(WORKSPACE, task_dir, usage_file), lines)


def event(kind: str, **data: Any) -> str:
    return json.dumps({"type": kind, "data": data, "id": "e", "timestamp": "t"})


def start(call_id: str, tool: str, **arguments: Any) -> str:
    return event("tool.execution_start", toolCallId=call_id, toolName=tool, arguments=arguments)


def complete(call_id: str, success: bool = True, **fields: Any) -> str:
    return event("tool.execution_complete", toolCallId=call_id, success=success, **fields)


# -- the capture -----------------------------------------------------------------------------


def test_capture_replays_what_a_user_would_see() -> None:
    translator, events = replay(CAPTURE.read_text().splitlines(), TASK_DIR)
    assert_paired(events)
    tools = [(e.tool, e.status.value, e.input_summary) for e in calls(events)]
    shell = "printf 'made by the shell\\n' > shell-made.txt"
    assert tools == [
        ("bash", "started", shell),
        ("bash", "succeeded", shell),
        ("create", "started", "notes.md"),
        ("create", "succeeded", "notes.md"),
        ("create", "started", f"{TASK_DIR}/report.json"),
        ("create", "succeeded", f"{TASK_DIR}/report.json"),
    ]
    assert [e.id for e in calls(events)] == ["call_0"] * 2 + ["call_1"] * 2 + ["call_2"] * 2
    changed = [(e.path, e.action.value) for e in events if isinstance(e, FileChanged)]
    assert changed == [("notes.md", "created")]  # the report is caesar's, not a change
    said = [e for e in events if isinstance(e, Message | Thinking)]
    done = "Done: the report is written."
    assert said == [Thinking(text="The work is done."), Message(text=done)]
    assert translator.final_text == "Done: the report is written."
    assert translator.session == json.loads(CAPTURE.read_text().splitlines()[-1])["sessionId"]
    assert translator.usage is None  # the stream has no token counts
    assert translator.skipped == 0 and translator.failure is None


def test_capture_holds_no_home_or_temporary_paths() -> None:
    text = CAPTURE.read_text()
    for forbidden in ("/home/", "/root", "/Users/", "/tmp/", "/work/", "caesar-test-key"):
        assert forbidden not in text


def test_the_usage_file_gives_the_runs_tokens(tmp_path: Path) -> None:
    usage = {
        "modelMetrics": {
            "scripted": {"usage": {"inputTokens": 480, "outputTokens": 48}},
            "small": {"usage": {"inputTokens": 20, "outputTokens": 2, "cacheReadTokens": 5}},
        }
    }
    (tmp_path / USAGE_FILE).write_text(json.dumps(usage))
    translator, _ = replay(CAPTURE.read_text().splitlines(), TASK_DIR, tmp_path / USAGE_FILE)
    found = translator.usage
    assert found is not None and (found.input_tokens, found.output_tokens) == (500, 50)
    assert found.source == "copilot usage file" and found.cost_usd is None


@pytest.mark.parametrize("content", ["not json", "[1]", '{"modelMetrics": 3}', ""])
def test_a_usage_file_that_says_nothing_leaves_no_usage(tmp_path: Path, content: str) -> None:
    (tmp_path / USAGE_FILE).write_text(content)
    translator, _ = replay([], usage_file=tmp_path / USAGE_FILE)
    assert translator.usage is None


def test_a_usage_file_the_agent_made_a_link_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"modelMetrics": {"m": {"usage": {"inputTokens": 1}}}}))
    (tmp_path / "task").mkdir()
    os.symlink(outside, tmp_path / "task" / USAGE_FILE)
    translator, _ = replay([], usage_file=tmp_path / "task" / USAGE_FILE)
    assert translator.usage is None
    translator, _ = replay([], usage_file=tmp_path / "missing" / USAGE_FILE)
    assert translator.usage is None


# -- the translation, piece by piece ----------------------------------------------------------


def test_a_refused_turn_fails_with_the_providers_reason() -> None:
    translator, events = replay(REFUSED)
    assert events == [Error(message="400 scripted refusal", fatal=True)]
    assert translator.failure == "400 scripted refusal"
    assert translator.session == "cecd9aa7-c579-40db-9b3b-a1651d67e896"


def test_a_session_error_without_a_result_is_still_said() -> None:
    translator, events = replay([REFUSED[0]])
    assert events == [Error(message="400 scripted refusal", fatal=True)]
    assert translator.failure == "400 scripted refusal"


def test_a_recovered_error_does_not_fail_a_run_that_exits_zero() -> None:
    done = json.dumps({"type": "result", "sessionId": "s1", "exitCode": 0})
    translator, events = replay([REFUSED[0], done])
    assert events == [] and translator.failure is None


def test_a_nonzero_exit_without_an_error_says_the_code() -> None:
    translator, events = replay([json.dumps({"type": "result", "exitCode": 2})])
    assert translator.failure == "copilot ended the run with exit code 2"
    assert events == [Error(message=translator.failure, fatal=True)]


def test_failed_calls_and_failing_commands_end_failed_and_change_nothing() -> None:
    denied = {"message": "Permission denied", "code": "denied"}
    _, events = replay(
        [
            start("a", "bash", command="make test"),
            complete("a", success=True, shellExecution={"exitCode": 2}),
            start("b", "create", path=f"{WORKSPACE}/x.txt", file_text="x"),
            complete("b", success=False, error=denied),
            start("c", "edit", path=f"{WORKSPACE}/y.txt", old_str="a", new_str="b"),
            complete("c", fileEdits=[{"path": f"{WORKSPACE}/y.txt", "kind": "edit"}]),
            start("d", "bash", command="rm z.txt"),
            complete("d", fileEdits=[{"path": f"{WORKSPACE}/z.txt", "kind": "delete"}]),
        ]
    )
    assert_paired(events)
    ends = [(e.id, e.status.value) for e in calls(events) if e.status is not ToolStatus.STARTED]
    assert ends == [("a", "failed"), ("b", "failed"), ("c", "succeeded"), ("d", "succeeded")]
    changed = [(e.path, e.action.value) for e in events if isinstance(e, FileChanged)]
    assert changed == [("y.txt", "modified"), ("z.txt", "deleted")]


def test_edits_outside_the_workspace_or_in_the_task_dir_are_not_changes() -> None:
    task_dir = f"{WORKSPACE}/.caesar/tasks/t_1"  # a read-only task run in place
    edits = [
        {"path": f"{task_dir}/report.json", "kind": "create"},
        {"path": "/elsewhere/x.txt", "kind": "create"},
        {"path": f"{WORKSPACE}/src/a.py", "kind": "create"},
        {"kind": "create"},
        "garbage",
    ]
    _, events = replay([start("a", "apply_patch"), complete("a", fileEdits=edits)], task_dir)
    assert [(e.path, e.action.value) for e in events if isinstance(e, FileChanged)] == [
        ("src/a.py", "created")
    ]


def test_a_sub_agents_message_is_shown_but_is_not_the_last_word() -> None:
    main = event("assistant.message", content="Delegating.")
    sub = json.dumps(
        {"type": "assistant.message", "agentId": "a1", "data": {"content": "sub-agent text"}}
    )
    translator, events = replay([main, sub])
    assert [e.text for e in events if isinstance(e, Message)] == ["Delegating.", "sub-agent text"]
    assert translator.final_text == "Delegating."


def test_a_thought_is_shown_once_before_its_message() -> None:
    _, events = replay(
        [
            event("assistant.message", content="", reasoningText="Plan it.", toolRequests=[]),
            event("assistant.reasoning", reasoningId="r", content="Plan it."),
            event("assistant.reasoning", reasoningId="r2", content="Another."),
        ]
    )
    assert events == [Thinking(text="Plan it."), Thinking(text="Another.")]


def test_warnings_are_shown_as_notices() -> None:
    translator, events = replay([event("session.warning", message="quota low")])
    assert events == [Error(message="quota low", fatal=False)]
    assert translator.failure is None


def test_bad_lines_are_counted_never_raised() -> None:
    translator, events = replay(
        [
            "Run 'copilot update' to check for updates.",
            "[1, 2]",
            json.dumps({"type": "tool.execution_start"}),  # no data
            event("tool.execution_start", toolName="bash"),  # no id
            event("tool.execution_complete", success=True),  # no id
            event("session.telepathy", mood="calm"),
            event("assistant.message", content="ok"),
            '{"type":"result","exitCode":0,"sessio',  # the process died writing its last line
        ]
    )
    assert translator.skipped == 7
    assert [e.text for e in events if isinstance(e, Message)] == ["ok"]
    assert translator.session is None and translator.failure is None


def test_a_stream_that_dies_mid_call_ends_the_call_failed() -> None:
    translator, events = replay(
        [event("assistant.message", content="Running it."), start("s", "bash", command="x")]
    )
    assert_paired(events)
    assert [(e.id, e.status.value) for e in calls(events)] == [("s", "started"), ("s", "failed")]
    assert translator.final_text == "Running it."


def test_a_session_id_that_could_read_as_an_option_is_not_kept() -> None:
    translator, _ = replay([json.dumps({"type": "result", "exitCode": 0, "sessionId": "-x"})])
    assert translator.session is None


# -- the command line ------------------------------------------------------------------------


invocation = partial(worktree_invocation, "copilot")


def test_write_mode_allows_every_tool_and_url_and_admits_the_task_dir(tmp_path: Path) -> None:
    inv = invocation(tmp_path)
    launch = CopilotAdapter().launch(inv)
    root = inv.paths.root
    assert launch.argv == [
        "copilot", "--output-format", "json", "--trust-folder", "--add-dir", str(root),
        "--allow-all-tools", "--allow-all-urls", "--usage-output-file", str(root / USAGE_FILE),
        "-p", "# the brief",
    ]  # fmt: skip
    assert launch.cwd == Path("/repo/.caesar/wt/t_1")
    assert not launch.env and not launch.files


def test_read_only_mode_allows_the_report_alone_and_denies_the_shell(tmp_path: Path) -> None:
    inv = invocation(tmp_path, Mode.READ_ONLY)
    argv = CopilotAdapter().launch(inv).argv
    assert "--allow-all-tools" not in argv
    assert argv[6:8] == ["--deny-tool=shell", f"--allow-tool=write({inv.task.report_path})"]


def test_the_network_model_resume_and_extra_args(tmp_path: Path) -> None:
    inv = invocation(
        tmp_path,
        model="gpt-5.4",
        resume_session="4e0a3c56-4cd2-4890-afeb-5b86215ba1b5",
        extra_args=["--no-ask-user"],
        task_fields={"network": True},
    )
    argv = CopilotAdapter().launch(inv).argv
    assert "--allow-all-urls" in argv
    assert argv[argv.index("--model") + 1] == "gpt-5.4"
    assert "--trust-folder" not in argv  # it makes --resume start a new session
    assert argv[-4:] == [
        "--resume=4e0a3c56-4cd2-4890-afeb-5b86215ba1b5",
        "--no-ask-user",
        "-p",
        "# the brief",
    ]


def test_without_the_network_no_url_is_allowed(tmp_path: Path) -> None:
    argv = CopilotAdapter().launch(invocation(tmp_path, task_fields={"network": False})).argv
    assert "--allow-all-urls" not in argv


@pytest.mark.parametrize("mode", [Mode.WRITE, Mode.READ_ONLY])
def test_the_channel_goes_on_the_command_line(tmp_path: Path, mode: Mode) -> None:
    command = ["/usr/bin/python3", "-m", "caesar_core", "channel", "serve"]
    inv = invocation(tmp_path, mode, tier="channel", channel_command=command)
    launch = CopilotAdapter().launch(inv)
    config = json.loads(launch.argv[launch.argv.index("--additional-mcp-config") + 1])
    server = config["mcpServers"]["caesar"]
    assert (server["command"], server["args"]) == (command[0], command[1:])
    assert ("--allow-tool=caesar" in launch.argv) == (mode is Mode.READ_ONLY)
    assert not launch.files


@pytest.mark.parametrize("channel", [False, True])
def test_capabilities_and_tier(channel: bool) -> None:
    adapter = CopilotAdapter()
    caps = adapter.capabilities
    assert caps.json_events and caps.native_read_only and caps.model and caps.resume
    assert not caps.output_schema and not caps.final_message_file
    assert caps.network is NetworkControl.OPEN
    assert caps.mcp is McpInjection.FLAG
    assert adapter.preferred_tier(channel) == ("channel" if channel else "file")
    assert adapter.min_version == "1.0.102"
