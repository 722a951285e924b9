"""``caesar hook gemini``: Gemini CLI's events and ``decision`` answers."""

from __future__ import annotations

import pytest

from tests.bridge.hookkit import HookWorld, cases, fixture

CLIENT = "gemini"


def test_every_checklist_fixture_is_present() -> None:
    assert {"before_tool_shell", "after_tool", "before_agent", "after_agent",
            "after_model_final", "session_end"} <= set(cases(CLIENT))  # fmt: skip
    assert "llmContent" in fixture(CLIENT, "after_tool")["tool_response"]


def test_an_allowed_call_answers_empty_json(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "before_tool_read"))
    assert (run.code, run.output) == (0, {})
    assert run.decisions == [("begin", "allow"), ("pre-tool", "allow")]
    begin = run.responses[0]
    assert begin["integration_mode"] == "project_hook"


def test_a_denied_call_is_decision_deny_with_the_reason(world: HookWorld) -> None:
    world.rules({"tool": "run_shell_command", "match": "rm *", "decision": "deny",
                 "reason": "no deleting"})  # fmt: skip
    run = world.run(CLIENT, fixture(CLIENT, "before_tool_shell"))
    assert run.code == 0
    assert run.output == {"decision": "deny", "reason": "caesar: no deleting"}


@pytest.mark.parametrize("decision", ["halt", "quarantine"])
def test_halt_is_deny_and_continue_false(world: HookWorld, decision: str) -> None:
    world.rules({"tool": "run_shell_command", "decision": decision, "reason": "stop"})
    run = world.run(CLIENT, fixture(CLIENT, "before_tool_shell"))
    assert run.output is not None
    assert (run.output["decision"], run.output["continue"]) == ("deny", False)
    assert run.output["stopReason"] == "caesar: stop"


def test_require_approval_without_ask_is_a_deny(world: HookWorld) -> None:
    world.rules({"tool": "run_shell_command", "decision": "require_approval"})
    run = world.run(CLIENT, fixture(CLIENT, "before_tool_shell"))
    assert run.output is not None
    assert run.output["decision"] == "deny"


def test_a_prompt_with_a_secret_is_denied(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "before_agent_secret"))
    assert run.output is not None
    assert run.output["decision"] == "deny"
    assert run.decisions[0] == ("begin", "block")


def test_a_turn_with_a_failed_tool_and_model_usage(world: HookWorld) -> None:
    world.task()
    runs = [
        world.run(CLIENT, fixture(CLIENT, case))
        for case in ("session_start", "before_agent", "after_model_chunk", "after_model_final",
                     "before_tool_read", "after_tool", "after_tool_error", "after_agent")
    ]  # fmt: skip
    assert all((run.code, run.output) == (0, {}) for run in runs)
    ops = [[r["op"] for r in run.responses] for run in runs]
    # No op at SessionStart; usage only from the last streamed chunk.
    assert ops == [[], ["begin"], [], ["telemetry"], ["pre-tool"], ["post-tool"], ["post-tool"],
                   ["finalize"]]  # fmt: skip
    assert runs[3].responses[0]["warnings"] == []
    receipt = runs[-1].responses[0]["receipt"]
    assert (receipt["tool_calls"], receipt["failures"]) == (2, 1)
    events = world.events()
    tools = [(e["status"], e["tool"]) for e in events if e["type"] == "tool_use"]
    assert tools == [("started", "read_file"), ("succeeded", "read_file"),
                     ("failed", "run_shell_command")]  # fmt: skip
    assert [e["text"] for e in events if e["type"] == "message"] == ["dist/ removed and rebuilt."]


def test_session_end_aborts_an_open_turn(world: HookWorld) -> None:
    world.run(CLIENT, fixture(CLIENT, "before_agent"))
    run = world.run(CLIENT, fixture(CLIENT, "session_end"))
    assert (run.code, run.output) == (0, {})
    assert [r["op"] for r in run.responses] == ["abort"]


def test_a_broken_payload_at_before_tool_is_exit_2(world: HookWorld) -> None:
    run = world.run(CLIENT, "{")
    assert run.code == 2
    assert run.stdout == ""
    assert run.stderr.startswith("caesar: ")


def test_a_broken_after_tool_only_warns(world: HookWorld) -> None:
    payload = fixture(CLIENT, "after_tool")
    payload.pop("tool_name")
    run = world.run(CLIENT, payload)
    assert (run.code, run.output) == (0, {})
    assert "not blocked" in run.stderr


def test_a_refused_call_is_closed_so_the_next_call_is_not_read_as_a_bypass(
    world: HookWorld,
) -> None:
    """Gemini runs no AfterTool for a call its hook refused and sends no call id: the hook
    closes the refused call itself, so the next call of the same tool pairs with its own
    pre-tool (seen live with Gemini CLI 0.61.0)."""
    world.rules({"tool": "read_file", "match": "*secret*", "decision": "deny"})
    world.run(CLIENT, fixture(CLIENT, "before_agent"))
    refused = fixture(CLIENT, "before_tool_read")
    refused["tool_input"] = {"absolute_path": "/home/me/repo/secret.txt"}
    denied = world.run(CLIENT, refused)
    assert denied.output is not None and denied.output["decision"] == "deny"
    assert denied.decisions == [("pre-tool", "deny"), ("post-tool", "recorded")]
    allowed = world.run(CLIENT, fixture(CLIENT, "before_tool_read"))
    assert allowed.decisions == [("pre-tool", "allow")]  # allowed: nothing to close
    after = world.run(CLIENT, fixture(CLIENT, "after_tool"))
    assert after.responses[0]["warnings"] == []
    final = world.run(CLIENT, fixture(CLIENT, "after_agent"))
    receipt = final.responses[0]["receipt"]
    assert receipt["certification_strength"] == "project_hook"
    assert (receipt["tool_calls"], receipt["failures"]) == (2, 0)
