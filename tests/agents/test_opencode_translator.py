"""opencode's stream as a user sees it: replayed from a real capture, then from bad input.

The capture (``tests/fixtures/streams/opencode-1.18.33.jsonl``) is opencode-ai 1.18.33 running
the standard scenario against the scripted server (its report path normalized to
``/capture/project``); no CLI is needed to replay it. The other lines below are shapes the same
version printed in other runs (a read-only task, a provider refusing the turn), trimmed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import Invocation, McpInjection, NetworkControl, ReportTier
from caesar_core.agents.opencode import OpencodeAdapter, OpencodeTranslator, project_root
from caesar_core.protocol import Isolation, Mode
from caesar_core.protocol.event import (
    Error,
    FileChanged,
    Message,
    Thinking,
    ToolStatus,
)
from caesar_core.protocol.report import ChangeAction
from tests.agents.replay import (
    STREAMS,
    WORKSPACE,
    assert_paired,
    calls,
    invocation_for,
    replay_into,
)

CAPTURE = STREAMS / "opencode-1.18.33.jsonl"
SESSION = "ses_dd513baa2ffe5RAlw3PrggTHvI"


def replay(
    lines: list[str], workspace: str = WORKSPACE, task_dir: str | None = None
) -> tuple[OpencodeTranslator, list[Any]]:
    return replay_into(OpencodeTranslator(workspace, task_dir), lines)


def line(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, "timestamp": 1796016458832, "sessionID": SESSION, **fields})


def tool(name: str, call_id: str, status: str, given: dict[str, Any], **state: Any) -> str:
    part = {
        "type": "tool",
        "tool": name,
        "callID": call_id,
        "state": {"status": status, "input": given, **state},
        "id": f"prt_{call_id}",
        "sessionID": SESSION,
        "messageID": "msg_1",
    }
    return line("tool_use", part=part)


# -- the real capture ---------------------------------------------------------------------------


def test_capture_replays_what_a_user_would_see() -> None:
    translator, events = replay(CAPTURE.read_text().splitlines())
    assert_paired(events)
    shown = [(c.tool, c.id, c.status, c.input_summary) for c in calls(events)]
    assert shown == [
        ("bash", "call_0", "started", "printf 'made by the shell\\n' > shell-made.txt"),
        ("bash", "call_0", "succeeded", "printf 'made by the shell\\n' > shell-made.txt"),
        ("write", "call_1", "started", "notes.md"),
        ("write", "call_1", "succeeded", "notes.md"),
        ("write", "call_2", "started", shown[4][3]),
        ("write", "call_2", "succeeded", shown[4][3]),
    ]
    assert shown[4][3].endswith("/report.json")
    # the report lies in the task directory, outside the workspace: not a change to the work
    assert [e for e in events if isinstance(e, FileChanged)] == [
        FileChanged(path="notes.md", action=ChangeAction.CREATED)
    ]
    assert [e.text for e in events if isinstance(e, Thinking)] == ["The work is done."]
    assert [e.text for e in events if isinstance(e, Message)] == ["Done: the report is written."]
    assert translator.final_text == "Done: the report is written."
    usage = translator.usage
    assert usage is not None
    # four model calls of 120 in / 12 out, each priced by the provider's config
    assert (usage.input_tokens, usage.output_tokens) == (480, 48)
    assert usage.cost_usd == pytest.approx(4 * 0.00054)
    assert usage.source == "opencode stream"
    assert translator.skipped == 0
    assert translator.failure is None


def test_capture_holds_no_machine_paths() -> None:
    text = CAPTURE.read_text()
    for private in ("/tmp/", "/root", "/home/", "/work/", "127.0.0.1"):
        assert private not in text


# -- shapes from other real runs ----------------------------------------------------------------


def test_read_only_refusals_end_failed_and_change_nothing() -> None:
    """bash denied is not offered at all, so the model's call comes back as opencode's
    ``invalid`` tool (completed!); a denied write is an ``error`` state."""
    refused = "The user has specified a rule which prevents you from using this specific tool call."
    unavailable = "Model tried to call unavailable tool 'bash'. Available tools: edit, glob."
    _, events = replay(
        [
            tool(
                "invalid",
                "call_0",
                "completed",
                {"tool": "bash", "error": unavailable},
                output=f"The arguments provided to the tool are invalid: {unavailable}",
                title="Invalid Tool",
            ),
            tool(
                "write",
                "call_1",
                "error",
                {"filePath": f"{WORKSPACE}/notes.md", "content": "x"},
                error=refused,
            ),
        ]
    )
    assert_paired(events)
    assert [(c.tool, c.id, c.status) for c in calls(events)] == [
        ("bash", "call_0", "started"),
        ("bash", "call_0", "failed"),
        ("write", "call_1", "started"),
        ("write", "call_1", "failed"),
    ]
    assert calls(events)[0].input_summary.startswith("Model tried to call unavailable tool")
    assert not [e for e in events if isinstance(e, FileChanged)]


def test_provider_error_is_fatal_and_says_why() -> None:
    error = {
        "name": "APIError",
        "data": {
            "message": "scripted failure: bad request",
            "statusCode": 400,
            "isRetryable": False,
            "responseBody": '{"error": {"message": "scripted failure: bad request"}}',
        },
    }
    translator, events = replay([line("error", error=error)])
    assert events == [Error(message="scripted failure: bad request", fatal=True)]
    assert translator.failure == "scripted failure: bad request"
    translator, events = replay([line("error", error={"name": "UnknownError"})])
    assert events == [Error(message="UnknownError", fatal=True)]
    translator, events = replay([line("error")])
    assert translator.failure == "opencode reported an error"


def test_a_command_that_exits_non_zero_failed() -> None:
    given = {"command": "false", "description": "fail"}
    _, events = replay(
        [
            tool("bash", "b1", "completed", given, metadata={"output": "", "exit": 1}),
            tool("bash", "b2", "completed", given, metadata={"output": "", "exit": 0}),
            tool("bash", "b3", "completed", given, metadata={"output": "", "exit": None}),
        ]
    )
    ends = [(c.id, c.status) for c in calls(events) if c.status is not ToolStatus.STARTED]
    assert ends == [("b1", "failed"), ("b2", "succeeded"), ("b3", "succeeded")]


def test_file_tools_say_what_they_changed_relative_to_the_workspace() -> None:
    diff = {"file": f"{WORKSPACE}/src/calc.py", "patch": "@@", "additions": 1, "deletions": 1}
    files = [
        {"filePath": f"{WORKSPACE}/new.txt", "type": "add"},
        {"filePath": f"{WORKSPACE}/old.txt", "type": "delete"},
        {"filePath": f"{WORKSPACE}/a.txt", "movePath": f"{WORKSPACE}/b.txt", "type": "move"},
        {"filePath": f"{WORKSPACE}/c.txt", "type": "update"},
    ]
    _, events = replay(
        [
            tool(
                "edit",
                "e1",
                "completed",
                {"filePath": f"{WORKSPACE}/src/calc.py", "oldString": "-", "newString": "+"},
                metadata={"diff": "...", "filediff": diff},
            ),
            tool(
                "write",
                "w1",
                "completed",
                {"filePath": f"{WORKSPACE}/README.md", "content": "x"},
                metadata={"filepath": f"{WORKSPACE}/README.md", "exists": True},
            ),
            tool("apply_patch", "p1", "completed", {"patchText": "..."}, metadata={"files": files}),
            tool("write", "w2", "completed", {"filePath": "/elsewhere/x.txt", "content": "x"}),
            tool("edit", "e2", "error", {"filePath": f"{WORKSPACE}/nope.py"}, error="no match"),
        ]
    )
    assert_paired(events)
    assert [(e.path, e.action) for e in events if isinstance(e, FileChanged)] == [
        ("src/calc.py", ChangeAction.MODIFIED),
        ("README.md", ChangeAction.MODIFIED),
        ("new.txt", ChangeAction.CREATED),
        ("old.txt", ChangeAction.DELETED),
        ("b.txt", ChangeAction.RENAMED),
        ("c.txt", ChangeAction.MODIFIED),
    ]
    assert calls(events)[0].input_summary == "src/calc.py"


def test_the_report_is_no_change_even_when_the_task_dir_is_inside_the_workspace() -> None:
    """A read-only task in place: the task directory lies under the workspace's ``.caesar``."""
    report = f"{WORKSPACE}/.caesar/tasks/t_1/report.json"
    _, events = replay(
        [tool("write", "w1", "completed", {"filePath": report}, metadata={"exists": False})],
        task_dir=f"{WORKSPACE}/.caesar/tasks/t_1",
    )
    assert_paired(events)
    assert not [e for e in events if isinstance(e, FileChanged)]


def test_usage_adds_back_what_opencode_splits_off() -> None:
    """``input`` excludes cached tokens and ``output`` reasoning ones; the provider counted
    (and billed) them, so they are added back; steps are summed."""
    tokens = {"input": 100, "output": 10, "reasoning": 5, "cache": {"read": 900, "write": 50}}
    finish = {"type": "step-finish", "reason": "stop", "tokens": tokens, "cost": 0.25}
    translator, events = replay([line("step_finish", part=finish)] * 2)
    assert events == []
    usage = translator.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (2100, 30, 0.5)
    translator, _ = replay([line("step_finish", part={"type": "step-finish"})])
    assert translator.usage is None


# -- bad input -----------------------------------------------------------------------------------


def test_bad_lines_are_counted_never_raised() -> None:
    good = line("text", part={"type": "text", "text": "hello"})
    translator, events = replay(
        [
            "opencode 1.18.33",  # a banner
            "\x1b[93m! permission requested: external_directory; auto-rejecting",
            "[1, 2]",
            "42",
            "",
            good,
            line("session.compacted", part={}),  # a type this translator never saw
            tool("", "x", "completed", {}),  # a tool line with no tool
            line("text", part={"type": "text", "text": "   "}),
            line("reasoning", part={"type": "reasoning", "text": ""}),
            line("step_start", part={"type": "step-start"}),
            line("done", reason="idle", rejected=[]),
            good[: len(good) // 2],  # the last line, cut short by a dying process
        ]
    )
    assert events == [Message(text="hello")]
    assert translator.skipped == 7
    assert translator.final_text == "hello"


def test_a_stream_that_dies_mid_call_ends_the_call_failed() -> None:
    """1.18.33 prints finished calls only; a ``running`` state (older or newer builds) opens
    the call, and the stream's end closes it as failed."""
    _, events = replay(
        [tool("bash", "c1", "running", {"command": "sleep 100", "description": "wait"})]
    )
    assert [(c.id, c.status) for c in calls(events)] == [
        ("c1", ToolStatus.STARTED),
        ("c1", ToolStatus.FAILED),
    ]
    assert calls(events)[1].input_summary == "sleep 100"


# -- the adapter ---------------------------------------------------------------------------------


def invocation(
    root: Path = Path("/repo"),
    mode: Mode = Mode.WRITE,
    tier: ReportTier = "file",
    isolation: Isolation = Isolation.WORKTREE,
    **overrides: Any,
) -> Invocation:
    tasks = root / ".caesar" / "tasks" / "t_1"
    workspace = root / ".caesar" / "wt" / "t_1" if isolation is Isolation.WORKTREE else root
    return invocation_for(
        "opencode",
        tasks,
        workspace,
        mode=mode,
        tier=tier,
        prompt="-the brief",
        isolation=isolation,
        **overrides,
    )


def permission(launch_env: Any) -> dict[str, Any]:
    rules: dict[str, Any] = json.loads(launch_env["OPENCODE_PERMISSION"])
    return rules


BASE = ["opencode", "run", "--format", "json", "--thinking", "--dir", "/repo/.caesar/wt/t_1"]


def test_write_mode_reaches_the_task_dir_and_nothing_else_is_touched() -> None:
    launch = OpencodeAdapter().launch(invocation())
    assert launch.argv == [*BASE, "--", "-the brief"]
    assert launch.cwd == Path("/repo/.caesar/wt/t_1")
    assert launch.env["PWD"] == "/repo/.caesar/wt/t_1"
    assert permission(launch.env) == {"external_directory": {"/repo/.caesar/tasks/t_1/*": "allow"}}
    assert "OPENCODE_CONFIG_CONTENT" not in launch.env


def test_model_and_extra_args_come_before_the_prompt() -> None:
    launch = OpencodeAdapter().launch(
        invocation(model="caesar/scripted", extra_args=["--agent", "plan"])
    )
    assert launch.argv == [
        *BASE,
        "--model",
        "caesar/scripted",
        "--agent",
        "plan",
        "--",
        "-the brief",
    ]


def test_network_off_denies_the_web_tools() -> None:
    rules = permission(OpencodeAdapter().launch(invocation(network_off=True)).env)
    assert rules["webfetch"] == rules["websearch"] == rules["codesearch"] == "deny"


def config(launch_env: Any) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(launch_env["OPENCODE_CONFIG_CONTENT"])
    return found


def report_rule(launch_env: Any) -> dict[str, Any]:
    """The primary agents' own rules, which come after the global ones and so win."""
    agents = config(launch_env)["agent"]
    assert agents["build"] == agents["plan"]
    assert agents["build"]["permission"]["bash"] == "deny"
    edits: dict[str, Any] = agents["build"]["permission"]["edit"]
    assert next(iter(edits)) == "*", "the last matching pattern wins: the report after *"
    return edits


def test_read_only_in_a_worktree_denies_shell_and_every_edit_but_the_report(
    tmp_path: Path,
) -> None:
    """Every agent: no shell, no edit (strings, which replace a user's patterns); the
    primary agents: the report, by its path relative to the worktree's top level."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    worktree = repo / ".caesar" / "wt" / "t_1"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: ../../../.git/worktrees/t_1\n")
    assert project_root(worktree) == worktree
    launch = OpencodeAdapter().launch(invocation(repo, Mode.READ_ONLY))
    rules = permission(launch.env)
    assert (rules["bash"], rules["edit"]) == ("deny", "deny")
    assert rules["external_directory"] == {f"{repo}/.caesar/tasks/t_1/*": "allow"}
    assert report_rule(launch.env) == {"*": "deny", "../../tasks/t_1/report.json": "allow"}


def test_read_only_in_place_and_outside_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    inplace = OpencodeAdapter().launch(
        invocation(repo, Mode.READ_ONLY, isolation=Isolation.INPLACE)
    )
    assert report_rule(inplace.env) == {"*": "deny", ".caesar/tasks/t_1/report.json": "allow"}
    plain = tmp_path / "plain"
    plain.mkdir()
    outside = OpencodeAdapter().launch(
        invocation(plain, Mode.READ_ONLY, isolation=Isolation.INPLACE)
    )
    expected = (plain / ".caesar/tasks/t_1/report.json").as_posix().lstrip("/")
    assert report_rule(outside.env) == {"*": "deny", expected: "allow"}


def test_channel_server_goes_in_the_inline_config() -> None:
    launch = OpencodeAdapter().launch(
        invocation(tier="channel", channel_command=["caesar", "channel", "t 1"])
    )
    assert config(launch.env) == {
        "mcp": {
            "caesar": {"type": "local", "command": ["caesar", "channel", "t 1"], "enabled": True}
        }
    }


def test_the_users_own_settings_stay_underneath(monkeypatch: pytest.MonkeyPatch) -> None:
    user_rules = {"bash": {"git push*": "deny"}, "external_directory": {"/data/*": "allow"}}
    monkeypatch.setenv("OPENCODE_PERMISSION", json.dumps(user_rules))
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps({"provider": {"p": {}}}))
    launch = OpencodeAdapter().launch(invocation(mode=Mode.READ_ONLY))
    rules = permission(launch.env)
    assert rules["external_directory"] == {
        "/data/*": "allow",
        "/repo/.caesar/tasks/t_1/*": "allow",
    }
    assert rules["bash"] == "deny"
    assert config(launch.env)["provider"] == {"p": {}}
    monkeypatch.setenv("OPENCODE_PERMISSION", "not json")
    assert "external_directory" in permission(OpencodeAdapter().launch(invocation()).env)


@pytest.mark.parametrize(("channel", "tier"), [(False, "file"), (True, "channel")])
def test_capabilities_and_tier(channel: bool, tier: str) -> None:
    adapter = OpencodeAdapter()
    caps = adapter.capabilities
    assert caps.json_events and caps.native_read_only and caps.model
    assert not caps.output_schema and not caps.final_message_file
    assert caps.network is NetworkControl.OPEN
    assert caps.mcp is McpInjection.ENVIRONMENT
    assert adapter.preferred_tier(channel) == tier
    assert adapter.min_version == "1.18.33"
