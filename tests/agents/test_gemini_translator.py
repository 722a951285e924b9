"""Gemini CLI's stream as a user sees it: replayed from a real capture, then from bad input.

The capture (``tests/fixtures/streams/gemini-0.61.0.jsonl``) is @google/gemini-cli 0.61.0
running the standard scenario against the scripted Gemini API server; the task directory's
path is normalized to ``/capture/project``. No CLI is needed to replay it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import McpInjection, NetworkControl
from caesar_core.agents.gemini import GeminiAdapter, GeminiTranslator, report_policy
from caesar_core.protocol import Mode
from caesar_core.protocol.event import (
    Error,
    FileChanged,
    Message,
    Progress,
    Thinking,
    ToolStatus,
)
from tests.agents.replay import (
    STREAMS,
    WORKSPACE,
    assert_paired,
    calls,
    replay_into,
    worktree_invocation,
)

CAPTURE = STREAMS / "gemini-0.61.0.jsonl"
TS = "2026-11-30T05:27:06.000Z"


def replay(lines: list[str], task_dir: str | None = None) -> tuple[GeminiTranslator, list[Any]]:
    return replay_into(GeminiTranslator(WORKSPACE, task_dir), lines)


def line(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, "timestamp": TS, **fields})


def delta(text: str) -> str:
    return line("message", role="assistant", content=text, delta=True)


def use(call_id: str, tool: str, **params: Any) -> str:
    return line("tool_use", tool_name=tool, tool_id=call_id, parameters=params)


def result(call_id: str, status: str = "success", **fields: Any) -> str:
    return line("tool_result", tool_id=call_id, status=status, **fields)


STATS = {"total_tokens": 30, "input_tokens": 20, "output_tokens": 10, "duration_ms": 5}


# -- the capture -----------------------------------------------------------------------------


def test_capture_replays_what_a_user_would_see() -> None:
    lines = CAPTURE.read_text().splitlines()
    translator, events = replay(lines, "/capture/project/.caesar/tasks/t_1")
    assert_paired(events)
    tools = [(e.tool, e.status.value, e.input_summary) for e in calls(events)]
    shell = "printf 'made by the shell\\n' > shell-made.txt"
    assert tools[:4] == [
        ("run_shell_command", "started", shell),
        ("run_shell_command", "succeeded", shell),
        ("write_file", "started", "notes.md"),
        ("write_file", "succeeded", "notes.md"),
    ]
    assert [t[:2] for t in tools[4:]] == [("write_file", "started"), ("write_file", "succeeded")]
    assert tools[4][2].endswith("report.json")
    ids = [e.id for e in calls(events)]
    assert all(i.startswith(("run_shell_command__", "write_file__")) for i in ids)

    changed = [e for e in events if isinstance(e, FileChanged)]
    assert [(e.path, e.action.value) for e in changed] == [("notes.md", "modified")]
    # the two delta fragments are one utterance
    assert [e.text for e in events if isinstance(e, Message)] == ["Done: the report is written."]
    assert translator.final_text == "Done: the report is written."
    assert not [e for e in events if isinstance(e, Thinking | Error)]
    usage = translator.usage
    assert usage is not None and usage.source == "gemini stream"
    stats = json.loads(lines[-1])["stats"]  # the session's totals, side calls included
    assert (usage.input_tokens, usage.output_tokens) == (
        stats["input_tokens"],
        stats["output_tokens"],
    )
    assert usage.cost_usd is None  # the stream has no cost
    assert translator.skipped == 0 and translator.failure is None


def test_capture_holds_no_home_or_temporary_paths() -> None:
    text = CAPTURE.read_text()
    for forbidden in ("/home/", "/root", "/Users/", "/tmp/", "test-key"):
        assert forbidden not in text


def test_the_capture_without_the_task_dir_still_keeps_the_report_out_of_changes() -> None:
    """The report is outside the workspace in a write run: not a workspace change."""
    _, events = replay(CAPTURE.read_text().splitlines())
    assert [e.path for e in events if isinstance(e, FileChanged)] == ["notes.md"]


# -- the translation, piece by piece ----------------------------------------------------------


def test_messages_join_their_deltas_until_the_next_event() -> None:
    translator, events = replay(
        [
            line("message", role="user", content="the brief"),
            delta("Let me "),
            delta("look."),
            use("a", "read_file", file_path=f"{WORKSPACE}/src/app.py"),
            result("a", output="..."),
            delta("All "),
            delta("done."),
            line("result", status="success", stats=STATS),
        ]
    )
    messages = [e.text for e in events if isinstance(e, Message)]
    assert messages == ["Let me look.", "All done."]
    assert translator.final_text == "All done."
    assert calls(events)[0].input_summary == "src/app.py"


def test_a_message_cut_short_is_still_said() -> None:
    translator, events = replay([delta("Half a "), delta("sentence")])
    assert [e.text for e in events if isinstance(e, Message)] == ["Half a sentence"]
    assert translator.final_text == "Half a sentence"


def test_failed_tools_end_failed_and_change_nothing() -> None:
    denied = {"type": "policy_violation", "message": "Tool execution denied by policy."}
    _, events = replay(
        [
            use("w", "write_file", file_path=f"{WORKSPACE}/a.txt", content="x"),
            result("w", "error", output="denied", error=denied),
            use("r", "replace", file_path=f"{WORKSPACE}/b.txt", old_string="a", new_string="b"),
            result("r"),
        ]
    )
    assert_paired(events)
    assert [e.status.value for e in calls(events) if e.status is not ToolStatus.STARTED] == [
        "failed",
        "succeeded",
    ]
    assert [e.path for e in events if isinstance(e, FileChanged)] == ["b.txt"]


def test_writes_in_the_task_dir_or_outside_the_workspace_are_not_changes() -> None:
    task_dir = f"{WORKSPACE}/.caesar/tasks/t_1"  # a read-only task run in place
    _, events = replay(
        [
            use("a", "write_file", file_path=f"{task_dir}/report.json", content="{}"),
            result("a"),
            use("b", "write_file", file_path="/elsewhere/x.txt", content=""),
            result("b"),
            use("c", "write_file", file_path="rel/y.txt", content=""),
            result("c"),
        ],
        task_dir,
    )
    assert [e.path for e in events if isinstance(e, FileChanged)] == ["rel/y.txt"]


def test_todos_are_progress_not_calls() -> None:
    todos = [
        {"description": "Read", "status": "completed"},
        {"description": "Fix", "status": "in_progress"},
        {"description": "Test", "status": "pending"},
    ]
    _, events = replay([use("t", "write_todos", todos=todos), result("t")])
    assert calls(events) == []
    assert events == [Progress(message="Todos: 1/3 done; now: Fix")]


def test_parallel_calls_pair_by_id_and_one_shot_results_get_their_start() -> None:
    _, events = replay(
        [
            use("1", "glob", pattern="*.py"),
            use("2", "grep_search", pattern="def "),
            result("2"),
            result("1", "error"),
            result("orphan"),
        ]
    )
    assert_paired(events)
    ends = {e.id: e.status.value for e in calls(events) if e.status is not ToolStatus.STARTED}
    assert ends == {"1": "failed", "2": "succeeded", "orphan": "succeeded"}


def test_error_notices_and_their_severity() -> None:
    translator, events = replay(
        [
            line("error", severity="warning", message="Loop detected, stopping execution"),
            line("error", severity="error", message="Maximum session turns exceeded"),
        ]
    )
    assert events == [
        Error(message="Loop detected, stopping execution", fatal=False),
        Error(message="Maximum session turns exceeded", fatal=True),
    ]
    assert translator.failure is None  # the result line decides the run


def test_an_error_result_is_a_failure_with_its_usage() -> None:
    error = {"type": "FatalAuthenticationError", "message": "API key not valid."}
    translator, events = replay([line("result", status="error", error=error, stats=STATS)])
    assert events == [Error(message="API key not valid.", fatal=True)]
    assert translator.failure == "API key not valid."
    assert translator.usage is not None and translator.usage.input_tokens == 20


REFUSED_KEY = (  # as gemini 0.61.0 printed it when the API refused the key (then exit 144)
    '{"type":"result","timestamp":"2026-11-30T05:30:45.868Z","status":"error","error":'
    '{"type":"unknown","message":"[API Error: {\\"error\\":{\\"code\\":400,\\"message\\":'
    '\\"API key not valid. Please pass a valid API key.\\",'
    '\\"status\\":\\"INVALID_ARGUMENT\\"}}]"},'
    '"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,'
    '"duration_ms":0,"tool_calls":0,"models":{}}}'
)


def test_an_api_error_says_the_apis_sentence() -> None:
    translator, events = replay([REFUSED_KEY])
    reason = "API error: API key not valid. Please pass a valid API key."
    assert events == [Error(message=reason, fatal=True)]
    assert translator.failure == reason


def test_an_error_result_without_an_error_still_fails() -> None:
    translator, events = replay([line("result", status="error", stats={})])
    assert translator.failure and isinstance(events[0], Error) and events[0].fatal
    assert translator.usage is None


def test_bad_lines_are_counted_never_raised() -> None:
    translator, events = replay(
        [
            "Warning: 256-color support not detected.",
            "YOLO mode is enabled. All tool calls will be automatically approved.",
            "[1, 2]",
            line("telemetry_flush", detail={}),
            line("tool_use", tool_name="x"),  # no id
            line("message", role="assistant", content=None),
            delta("ok"),
            '{"type":"result","status":"succ',  # the process died writing its last line
        ]
    )
    assert translator.skipped == 7
    assert [e.text for e in events if isinstance(e, Message)] == ["ok"]
    assert translator.usage is None and translator.failure is None


def test_a_stream_that_dies_mid_call_ends_the_call_failed() -> None:
    translator, events = replay(
        [delta("Running it."), use("s", "run_shell_command", command="make test")]
    )
    assert_paired(events)
    assert [(e.id, e.status.value) for e in calls(events)] == [("s", "started"), ("s", "failed")]
    assert translator.final_text == "Running it."


# -- the command line ------------------------------------------------------------------------


invocation = partial(worktree_invocation, "gemini")


BASE = ["gemini", "--output-format", "stream-json", "--skip-trust"]


def test_write_mode_approves_every_tool_and_admits_the_task_dir(tmp_path: Path) -> None:
    inv = invocation(tmp_path)
    launch = GeminiAdapter().launch(inv)
    root = str(inv.paths.root)
    assert launch.argv == [
        *BASE, "--approval-mode", "yolo", "--include-directories", root, "-p", "# the brief",
    ]  # fmt: skip
    assert launch.cwd == Path("/repo/.caesar/wt/t_1")
    assert dict(launch.env) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    assert not (inv.paths.root / "gemini-policy.toml").exists()


def test_read_only_mode_allows_only_the_report_file(tmp_path: Path) -> None:
    inv = invocation(tmp_path, Mode.READ_ONLY)
    launch = GeminiAdapter().launch(inv)
    policy = inv.paths.root / "gemini-policy.toml"
    assert launch.argv[4:8] == ["--approval-mode", "default", "--policy", str(policy)]
    assert "yolo" not in launch.argv
    rule = tomllib.loads(launch.files[policy])["rule"]
    assert len(rule) == 1 and rule[0]["toolName"] == "write_file"
    assert rule[0]["decision"] == "allow"


def test_the_policy_pattern_matches_the_report_path_and_nothing_else() -> None:
    """The pattern as the CLI tests it: sorted JSON, each top-level pair NUL-wrapped."""
    report = "/tmp/a b/.caesar/tasks/t_1/report.json"
    pattern = tomllib.loads(report_policy(report))["rule"][0]["argsPattern"]
    regex = re.compile(pattern.replace(r"\x00", "\x00"))

    def stringified(path: str) -> str:
        args = {"content": "{}", "file_path": path}
        return ",".join(f"\0{json.dumps(k)}:{json.dumps(v)}\0" for k, v in sorted(args.items()))

    assert regex.search(stringified(report))
    for other in (report + ".bak", "/tmp/a b/.caesar/tasks/t_1/../../x", "/tmp/aXb/report.json"):
        assert not regex.search(stringified(other))


def test_network_off_has_no_switch_and_model_and_extra_args(tmp_path: Path) -> None:
    inv = invocation(tmp_path, network_off=True, model="gemini-2.5-pro", extra_args=["--debug"])
    argv = GeminiAdapter().launch(inv).argv
    assert "--sandbox" not in argv  # needs docker/podman: the network stays open
    assert argv[-5:] == ["-m", "gemini-2.5-pro", "--debug", "-p", "# the brief"]


def test_the_channel_goes_into_the_workspace_settings_for_the_run(tmp_path: Path) -> None:
    """Gemini takes MCP servers only from settings files (see the adapter): the workspace's,
    merged with what the user has there, trusted through the environment for this run."""
    command = ["/usr/bin/python3", "-m", "caesar_core", "channel", "serve"]
    inv = invocation(tmp_path, tier="channel", channel_command=command)
    workspace = tmp_path / "workspace"
    inv = dataclasses.replace(inv, task=inv.task.model_copy(update={"workspace": str(workspace)}))
    settings_path = workspace / ".gemini" / "settings.json"
    settings_path.parent.mkdir(parents=True, exist_ok=True)
    settings_path.write_text('{"theme": "mine", "mcpServers": {"docs": {"command": "npx"}}}')
    launch = GeminiAdapter().launch(inv)
    settings = json.loads(launch.files[settings_path])
    assert settings["theme"] == "mine"
    assert settings["mcpServers"]["docs"] == {"command": "npx"}
    assert settings["mcpServers"]["caesar"]["command"] == command[0]
    assert settings["mcpServers"]["caesar"]["args"] == command[1:]
    assert launch.argv[launch.argv.index("--allowed-mcp-server-names") + 1] == "caesar"
    assert dict(launch.env) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


@pytest.mark.parametrize("channel", [False, True])
def test_capabilities_and_tier(channel: bool) -> None:
    adapter = GeminiAdapter()
    caps = adapter.capabilities
    assert caps.json_events and caps.native_read_only and caps.model
    assert not caps.output_schema and not caps.final_message_file
    assert caps.network is NetworkControl.OPEN
    assert caps.mcp is McpInjection.SETTINGS
    assert adapter.preferred_tier(channel) == ("channel" if channel else "file")
    assert adapter.min_version == "0.61.0"
