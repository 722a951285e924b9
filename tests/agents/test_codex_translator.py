"""codex's stream as a user sees it: replayed from a real capture, then from bad input.

The capture (``tests/fixtures/streams/codex-0.171.0.jsonl``) is codex-cli 0.171.0 running
the standard scenario against the scripted server; no CLI is needed to replay it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import Invocation, McpInjection, NetworkControl, ReportTier
from caesar_core.agents.codex import CodexAdapter, CodexTranslator
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
    invocation_for,
    replay_into,
)

CAPTURE = STREAMS / "codex-0.171.0.jsonl"


def replay(lines: list[str], workspace: str = WORKSPACE) -> tuple[CodexTranslator, list[Any]]:
    return replay_into(CodexTranslator(workspace), lines)


def line(obj: dict[str, Any]) -> str:
    return json.dumps(obj)


def item(phase: str, **fields: Any) -> str:
    return line({"type": f"item.{phase}", "item": fields})


# -- the real capture ---------------------------------------------------------------------------


def test_capture_replays_what_a_user_would_see() -> None:
    translator, events = replay(CAPTURE.read_text().splitlines())
    assert_paired(events)
    shell = [c for c in calls(events) if c.tool == "shell"]
    assert [c.status for c in shell] == [ToolStatus.STARTED, ToolStatus.SUCCEEDED]
    assert shell[0].id == shell[1].id == "item_1"
    assert shell[0].input_summary == "printf 'made by the shell\\n' > shell-made.txt"
    edit = [c for c in calls(events) if c.tool == "edit"]
    assert [c.status for c in edit] == [ToolStatus.STARTED, ToolStatus.SUCCEEDED]
    assert edit[0].input_summary == "notes.md"
    assert [e for e in events if isinstance(e, FileChanged)] == [
        FileChanged(path="notes.md", action="created")
    ]
    assert [e.text for e in events if isinstance(e, Thinking)] == [
        "**Running the command**",
        "**Writing the file**",
        "**Reporting back**",
    ]
    messages = [e.text for e in events if isinstance(e, Message)]
    assert messages == ["Report (success): Created two files as asked."]
    assert translator.final_text is not None
    report = json.loads(translator.final_text)
    assert report["protocol"] == "caesar.report/v1" and report["status"] == "success"
    assert translator.usage is not None
    assert (translator.usage.input_tokens, translator.usage.output_tokens) == (3600, 120)
    assert translator.usage.cost_usd is None  # codex prints no cost
    assert translator.usage.source == "codex stream"
    assert translator.failure is None
    assert translator.skipped == 0


def test_capture_holds_no_home_paths() -> None:
    text = CAPTURE.read_text()
    assert "/tmp/" not in text and "/home/" not in text and "/root" not in text
    assert "/capture/workspace/notes.md" in text


# -- shapes the capture does not have (codex docs and source) ---------------------------------


def test_failed_and_declined_commands_end_failed() -> None:
    command = "bash -lc 'exit 1'"
    _, events = replay(
        [
            item("started", id="item_0", type="command_execution", command=command,
                 aggregated_output="", exit_code=None, status="in_progress"),
            item("completed", id="item_0", type="command_execution", command=command,
                 aggregated_output="", exit_code=1, status="failed"),
            item("completed", id="item_1", type="command_execution", command="rm -rf x",
                 exit_code=None, status="declined"),
        ]
    )  # fmt: skip
    assert_paired(events)
    assert [(c.id, c.status, c.input_summary) for c in calls(events)] == [
        ("item_0", ToolStatus.STARTED, "exit 1"),
        ("item_0", ToolStatus.FAILED, "exit 1"),
        ("item_1", ToolStatus.STARTED, "rm -rf x"),
        ("item_1", ToolStatus.FAILED, "rm -rf x"),
    ]


def test_file_changes_are_workspace_relative_with_their_action() -> None:
    changes = [
        {"path": f"{WORKSPACE}/a/added.txt", "kind": "add"},
        {"path": "b/deleted.txt", "kind": "delete"},
        {"path": f"{WORKSPACE}/c/modified.txt", "kind": "update"},
        {"path": "/elsewhere/outside.txt", "kind": "update"},
        {"path": f"{WORKSPACE}/d/old.txt", "kind": {"type": "update", "move_path": "d/new.txt"}},
    ]
    done = item("completed", id="item_0", type="file_change", changes=changes, status="completed")
    _, events = replay([done, done])  # a repeated completion reports the files once
    assert_paired(events)
    assert [(e.path, e.action) for e in events if isinstance(e, FileChanged)] == [
        ("a/added.txt", "created"),
        ("b/deleted.txt", "deleted"),
        ("c/modified.txt", "modified"),
        ("/elsewhere/outside.txt", "modified"),
        ("d/old.txt", "renamed"),
    ]


def test_a_failed_patch_changes_no_file() -> None:
    changes = [{"path": "x.txt", "kind": "add"}]
    _, events = replay(
        [item("completed", id="item_0", type="file_change", changes=changes, status="failed")]
    )
    assert [c.status for c in calls(events)] == [ToolStatus.STARTED, ToolStatus.FAILED]
    assert not [e for e in events if isinstance(e, FileChanged)]


def test_mcp_web_search_todo_and_error_items() -> None:
    _, events = replay(
        [
            item("started", id="item_0", type="mcp_tool_call", server="docs", tool="search",
                 arguments={"query": "pairing"}, result=None, error=None, status="in_progress"),
            item("completed", id="item_0", type="mcp_tool_call", server="docs", tool="search",
                 arguments={"query": "pairing"}, result=None, error={"message": "tool exploded"},
                 status="failed"),
            item("completed", id="item_1", type="web_search", query="rust async await"),
            item("started", id="item_2", type="todo_list",
                 items=[{"text": "one", "completed": False}, {"text": "two", "completed": False}]),
            item("updated", id="item_2", type="todo_list",
                 items=[{"text": "one", "completed": True}, {"text": "two", "completed": False}]),
            item("completed", id="item_3", type="error", message="Heads up: long conversation"),
        ]
    )  # fmt: skip
    assert_paired(events)
    assert [(c.tool, c.status, c.input_summary) for c in calls(events)] == [
        ("docs/search", ToolStatus.STARTED, "pairing"),
        ("docs/search", ToolStatus.FAILED, "pairing"),
        ("web_search", ToolStatus.STARTED, "rust async await"),
        ("web_search", ToolStatus.SUCCEEDED, "rust async await"),
    ]
    assert [e.message for e in events if isinstance(e, Progress)] == [
        "Plan: 0/2 done; next: one",
        "Plan: 1/2 done; next: two",
    ]
    assert [e for e in events if isinstance(e, Error)] == [
        Error(message="Heads up: long conversation", fatal=False)
    ]


def test_retry_notices_are_progress_and_a_failed_turn_is_fatal() -> None:
    translator, events = replay(
        [
            line({"type": "thread.started", "thread_id": "t"}),
            line({"type": "turn.started"}),
            line({"type": "error", "message": "Reconnecting... 2/5 (unexpected status 502)"}),
            line({"type": "error", "message": "unexpected status 401 Unauthorized"}),
            line({"type": "turn.failed", "error": {"message": "stream closed before completed"}}),
        ]
    )
    assert events == [
        Progress(message="Reconnecting... 2/5 (unexpected status 502)"),
        Error(message="unexpected status 401 Unauthorized", fatal=False),
        Error(message="stream closed before completed", fatal=True),
    ]
    assert translator.failure == "stream closed before completed"
    assert translator.skipped == 0


def test_usage_is_the_threads_total_so_each_turn_replaces_the_last() -> None:
    translator, _ = replay(
        [
            line({"type": "turn.completed", "usage": {"input_tokens": 100, "output_tokens": 5}}),
            line({"type": "turn.completed", "usage": {"input_tokens": 250, "output_tokens": 9}}),
        ]
    )
    assert translator.usage is not None
    assert (translator.usage.input_tokens, translator.usage.output_tokens) == (250, 9)


def test_old_shapes_are_read() -> None:
    """Before codex ~0.44 items said ``item_type`` and ``assistant_message``."""
    translator, events = replay(
        [
            line({"type": "session.created", "session_id": "s"}),
            item("completed", id="item_0", item_type="assistant_message", text="All done."),
        ]
    )
    assert events == [Message(text="All done.")]
    assert translator.final_text == "All done."
    assert translator.skipped == 0


# -- bad input ------------------------------------------------------------------------------------


def test_bad_lines_are_counted_never_raised() -> None:
    capture = CAPTURE.read_text().splitlines()
    noise = [
        "WARNING: proceeding, even though we could not create PATH aliases",
        "Reading additional input from stdin...",
        "[1, 2]",
        line({"type": "brand.new.event", "x": 1}),
        item("completed", id="item_9", type="hologram", text="?"),
        line({"type": "item.completed", "item": "not an object"}),
        line({"type": "turn.completed", "usage": "lots"}),
        "",
    ]
    truncated = capture[3][: len(capture[3]) // 2]
    translator, events = replay([*noise, *capture, truncated])
    assert translator.skipped == 7  # 3 non-objects, 3 unknown shapes, 1 truncated line
    assert_paired(events)
    assert translator.final_text is not None


def test_a_stream_that_dies_mid_call_ends_the_call_failed() -> None:
    capture = CAPTURE.read_text().splitlines()
    started = next(i for i, text in enumerate(capture) if '"item.started"' in text)
    translator, events = replay(capture[: started + 1])
    assert [(c.id, c.status) for c in calls(events)] == [
        ("item_1", ToolStatus.STARTED),
        ("item_1", ToolStatus.FAILED),
    ]
    assert translator.usage is None and translator.final_text is None


# -- the command line -----------------------------------------------------------------------------


def invocation(
    mode: Mode = Mode.WRITE,
    tier: ReportTier = "schema",
    **overrides: Any,
) -> Invocation:
    tasks = Path("/repo/.caesar/tasks/t_1")
    workspace = "/repo/.caesar/wt/t_1"
    return invocation_for(
        "codex", tasks, workspace, mode=mode, tier=tier, prompt="-the brief", **overrides
    )


BASE = ["codex", "exec", "--json", "--skip-git-repo-check", "-C", "/repo/.caesar/wt/t_1"]
SCHEMA = ["--output-schema", "/repo/.caesar/tasks/t_1/report.schema.json"]
FINAL = ["-o", "/repo/.caesar/tasks/t_1/final-message.txt"]
NETWORK = ["-c", "sandbox_workspace_write.network_access=true"]


def test_write_mode_with_network() -> None:
    launch = CodexAdapter().launch(invocation())
    assert launch.argv == [*BASE, "-s", "workspace-write", *SCHEMA, *FINAL, *NETWORK,
                           "--", "-the brief"]  # fmt: skip
    assert launch.cwd == Path("/repo/.caesar/wt/t_1")


def test_write_mode_network_off_model_and_extra_args() -> None:
    launch = CodexAdapter().launch(
        invocation(network_off=True, model="gpt-5.5", extra_args=["-c", "x=1"])
    )
    assert launch.argv == [*BASE, "-s", "workspace-write", *SCHEMA, *FINAL, "-m", "gpt-5.5",
                           "-c", "x=1", "--", "-the brief"]  # fmt: skip


def test_read_only_has_no_network_to_open() -> None:
    launch = CodexAdapter().launch(invocation(Mode.READ_ONLY))
    assert launch.argv == [*BASE, "-s", "read-only", *SCHEMA, *FINAL, "--", "-the brief"]


def test_channel_tier_attaches_the_channel_server_and_no_schema() -> None:
    launch = CodexAdapter().launch(
        invocation(tier="channel", network_off=True, channel_command=["caesar", "channel", "t 1"])
    )
    assert launch.argv == [*BASE, "-s", "workspace-write", *FINAL,
                           "-c", 'mcp_servers.caesar.command="caesar"',
                           "-c", 'mcp_servers.caesar.args=["channel", "t 1"]',
                           "-c", 'mcp_servers.caesar.default_tools_approval_mode="approve"',
                           "--", "-the brief"]  # fmt: skip


def test_file_tier_may_write_the_task_dir() -> None:
    argv = CodexAdapter().launch(invocation(tier="file", network_off=True)).argv
    assert argv[argv.index("--add-dir") + 1] == "/repo/.caesar/tasks/t_1"
    assert "--output-schema" not in argv


@pytest.mark.parametrize(("channel", "tier"), [(False, "schema"), (True, "channel")])
def test_capabilities_and_tier(channel: bool, tier: str) -> None:
    adapter = CodexAdapter()
    assert adapter.preferred_tier(channel) == tier
    caps = adapter.capabilities
    assert caps.output_schema and caps.final_message_file and caps.native_read_only
    assert caps.network is NetworkControl.WRITE_ONLY and caps.mcp is McpInjection.FLAG
