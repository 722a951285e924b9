"""``caesar hook vscode``: camelCase common fields, VS Code tool names, matchers ignored."""

from __future__ import annotations

from typing import Any

import pytest

from caesar_core.bridge.clients import vscode
from caesar_core.bridge.clients.flow import Step
from tests.bridge.hookkit import HookWorld, cases, fixture

CLIENT = "vscode"


def inner(output: dict[str, Any] | None) -> dict[str, Any]:
    assert output is not None
    found = output["hookSpecificOutput"]
    assert isinstance(found, dict)
    return found


def test_every_checklist_fixture_is_present() -> None:
    assert {"pre_tool_run_terminal", "pre_tool_edit_files", "pre_tool_read_file_claude_config",
            "stop"} <= set(cases(CLIENT))  # fmt: skip
    payload = fixture(CLIENT, "pre_tool_run_terminal")
    assert {"sessionId", "hookEventName", "tool_name", "tool_input", "tool_use_id"} <= set(payload)


def test_vscode_tool_names_reach_the_rules_as_they_are(world: HookWorld) -> None:
    world.rules({"tool": "runTerminalCommand", "match": "rm *", "decision": "deny"})
    denied = world.run(CLIENT, fixture(CLIENT, "pre_tool_run_terminal"))
    assert denied.code == 0
    assert inner(denied.output)["permissionDecision"] == "deny"
    allowed = world.run(CLIENT, fixture(CLIENT, "pre_tool_edit_files"))
    assert (allowed.code, allowed.output) == (0, None)


def test_a_session_is_followed_by_its_camelcase_id(world: HookWorld) -> None:
    runs = [
        world.run(CLIENT, fixture(CLIENT, case))
        for case in ("session_start", "user_prompt", "pre_tool_edit_files", "post_tool", "stop")
    ]
    assert runs[0].responses == []
    assert len({r["admission_id"] for run in runs for r in run.responses}) == 1
    assert runs[-1].responses[0]["op"] == "finalize"
    assert runs[-1].responses[0]["receipt"]["tool_calls"] == 1


def test_a_claude_config_hook_hands_vscode_payloads_to_this_adapter(world: HookWorld) -> None:
    """VS Code runs `.claude/settings.json` hooks for every tool, whatever their matcher."""
    world.task()
    world.rules({"tool": "readFile", "decision": "deny", "reason": "vscode names"})
    run = world.run("claude-code", fixture(CLIENT, "pre_tool_read_file_claude_config"))
    assert inner(run.output)["permissionDecision"] == "deny"
    begin = run.responses[0]
    assert begin["op"] == "begin"
    (event,) = [e for e in world.events() if e["type"] == "tool_use"]
    assert (event["status"], event["tool"], event["id"]) == ("failed", "readFile", "tool-125")


def test_a_blocked_prompt_stops_with_continue_false(world: HookWorld) -> None:
    payload = {**fixture(CLIENT, "user_prompt"), "prompt": "key AKIAIOSFODNN7EXAMPLE"}
    run = world.run(CLIENT, payload)
    assert run.output is not None
    assert run.output["continue"] is False
    assert run.output["decision"] == "block"


def test_a_stop_block_is_written_in_both_documented_shapes() -> None:
    response = {"op": "finalize", "decision": "block", "schema_version": "x", "reason": "again"}
    answer = vscode.render("Stop", Step("finalize"), response, {"stop_hook_active": False})
    assert answer.stdout == {
        "decision": "block",
        "reason": "caesar: again",
        "hookSpecificOutput": {
            "hookEventName": "Stop",
            "decision": "block",
            "reason": "caesar: again",
        },
    }
    again = vscode.render("Stop", Step("finalize"), response, {"stop_hook_active": True})
    assert again.stdout is None


def test_require_approval_is_an_ask() -> None:
    response = {"op": "pre-tool", "decision": "require_approval", "schema_version": "x"}
    answer = vscode.render("PreToolUse", Step("pre-tool"), response, {})
    assert inner(answer.stdout)["permissionDecision"] == "ask"


@pytest.mark.parametrize("case", ["subagent_stop", "pre_compact", "session_start"])
def test_events_without_an_op_are_silent(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output, run.responses) == (0, None, [])
