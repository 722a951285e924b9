"""``caesar hook claude-code`` end to end: Claude Code's payloads in, its answers out.

Every case is a real hook process fed a fixture of ``tests/fixtures/hooks/claude-code`` (the
payloads of the hooks reference); every bridge response it produced is schema-checked by the
kit.
"""

from __future__ import annotations

import pytest

from caesar_core.bridge.clients import claude_code
from caesar_core.bridge.clients.flow import Step
from caesar_core.store.approvals import answer_approval, pending_approvals
from tests.bridge.hookkit import HookWorld, cases, collect, fixture
from tests.runner.conftest import wait_for

CLIENT = "claude-code"
DENY_RM = {"tool": "Bash", "match": "rm *", "decision": "deny", "reason": "no deleting"}


def specific(run_output: dict[str, object] | None) -> dict[str, object]:
    assert run_output is not None
    inner = run_output["hookSpecificOutput"]
    assert isinstance(inner, dict)
    return inner


def test_every_checklist_fixture_is_present() -> None:
    expected = {
        "pre_tool_bash", "pre_tool_write", "pre_tool_write_windows", "pre_tool_mcp",
        "pre_tool_subagent", "permission_request", "post_tool_bash", "post_tool_write",
        "post_tool_agent", "post_tool_failure_interrupt", "post_tool_batch",
        "user_prompt_secret", "user_prompt_first_turn", "stop_hook_active",
        "stop_failure_rate_limit", "notification_permission_prompt",
        *(f"session_start_{s}" for s in ("startup", "resume", "clear", "compact", "fork")),
        *(f"session_end_{r}" for r in ("clear", "resume", "logout", "prompt_input_exit", "other")),
    }  # fmt: skip
    assert expected <= set(cases(CLIENT))
    assert "prompt_id" not in fixture(CLIENT, "user_prompt_first_turn")
    assert "permission_mode" not in fixture(CLIENT, "notification_permission_prompt")


@pytest.mark.parametrize(
    "case", ["pre_tool_bash", "pre_tool_write", "pre_tool_write_windows", "pre_tool_mcp",
             "pre_tool_subagent"]
)  # fmt: skip
def test_an_allowed_call_defers_to_claudes_own_permissions(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output) == (0, None)
    assert run.decisions == [("begin", "allow"), ("pre-tool", "allow")]


def test_a_denied_call_is_a_deny_decision_with_the_reason_for_claude(world: HookWorld) -> None:
    world.rules(DENY_RM)
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash_rm"))
    assert run.code == 0
    inner = specific(run.output)
    assert inner["hookEventName"] == "PreToolUse"
    assert inner["permissionDecision"] == "deny"
    assert "no deleting" in str(inner["permissionDecisionReason"])
    assert run.decisions[-1] == ("pre-tool", "deny")


def test_a_rule_on_an_mcp_tool_matches_its_claude_name(world: HookWorld) -> None:
    world.rules({"tool": "mcp__memory__*", "decision": "block", "reason": "no memory"})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_mcp"))
    assert specific(run.output)["permissionDecision"] == "deny"
    assert run.decisions[-1] == ("pre-tool", "block")


@pytest.mark.parametrize("decision", ["halt", "quarantine"])
def test_halt_and_quarantine_stop_claude(world: HookWorld, decision: str) -> None:
    world.rules({"tool": "Bash", "decision": decision, "reason": "stop everything"})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert run.output is not None
    assert run.output["continue"] is False
    assert "stop everything" in str(run.output["stopReason"])
    assert specific(run.output)["permissionDecision"] == "deny"
    # The admission stays stopped: the next call of the session is denied too.
    again = world.run(CLIENT, fixture(CLIENT, "pre_tool_write"))
    assert specific(again.output)["permissionDecision"] == "deny"


def test_require_approval_without_a_task_is_denied_since_no_one_can_approve(
    world: HookWorld,
) -> None:
    world.rules({"tool": "Bash", "decision": "require_approval"})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    inner = specific(run.output)
    assert inner["permissionDecision"] == "deny"
    assert "no one can approve" in str(inner["permissionDecisionReason"])


@pytest.mark.parametrize(("answer", "expected"), [("allow", "allow"), ("deny", "deny")])
def test_an_approval_answered_in_the_task_decides_the_call(
    world: HookWorld, answer: str, expected: str
) -> None:
    world.rules({"tool": "Bash", "decision": "require_approval", "reason": "ask first"})
    task = world.task()
    proc, responses, stdin = world.spawn(CLIENT, fixture(CLIENT, "pre_tool_bash_rm"))
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    asked = wait_for(lambda: pending_approvals(task), what="the approval request")
    assert asked[0].tool == "Bash"
    assert asked[0].summary == "rm -rf node_modules"
    answer_approval(task, asked[0].id, answer, by="test")  # type: ignore[arg-type]
    run = collect(proc, responses)
    inner = specific(run.output)
    # A person allowed it through caesar: Claude must not ask a second time.
    assert inner["permissionDecision"] == expected
    verb = "allowed" if answer == "allow" else "denied"
    assert f"{verb} by test" in str(inner["permissionDecisionReason"])


def test_permission_request_makes_no_op_and_leaves_claudes_prompt(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "permission_request"))
    assert (run.code, run.output, run.responses) == (0, None, [])


@pytest.mark.parametrize("case", ["post_tool_bash", "post_tool_write", "post_tool_agent"])
def test_post_tool_is_recorded_and_says_nothing(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output) == (0, None)
    assert run.decisions[-1] == ("post-tool", "recorded")


def test_a_turn_from_prompt_to_stop(world: HookWorld) -> None:
    runs = [
        world.run(CLIENT, fixture(CLIENT, name))
        for name in ("session_start_startup", "user_prompt", "pre_tool_bash", "post_tool_bash")
    ]
    assert all((r.code, r.output) == (0, None) for r in runs)
    assert runs[0].responses == []  # SessionStart: no prompt yet, no op
    assert runs[1].decisions == [("begin", "allow")]
    admission = runs[1].responses[0]["admission_id"]
    assert runs[2].decisions == [("pre-tool", "allow")]
    assert runs[2].responses[0]["admission_id"] == admission
    assert runs[3].responses[0]["warnings"] == []  # paired with its pre-tool by tool_use_id
    stop = world.run(CLIENT, fixture(CLIENT, "stop"))
    assert (stop.code, stop.output) == (0, None)
    (final,) = stop.responses
    assert (final["op"], final["admission_id"]) == ("finalize", admission)
    assert final["receipt"]["tool_calls"] == 1
    # The turn is closed: a second Stop has nothing to finalize; the next prompt begins anew.
    assert world.run(CLIENT, fixture(CLIENT, "stop")).responses == []
    again = world.run(CLIENT, fixture(CLIENT, "user_prompt_first_turn"))
    assert again.responses[0]["admission_id"] != admission


def test_a_prompt_with_a_secret_is_blocked_and_suppressed(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "user_prompt_secret"))
    assert run.code == 0
    assert run.output is not None
    assert run.output["decision"] == "block"
    assert "secret" in str(run.output["reason"])
    assert specific(run.output) == {
        "hookEventName": "UserPromptSubmit",
        "suppressOriginalPrompt": True,
    }
    # The blocked prompt's trace is closed at once; nothing stays open for the session.
    assert run.decisions == [("begin", "block"), ("abort", "non_certified")]
    assert "AKIAIOSFODNN7EXAMPLE" not in world.all_files_text()


def test_a_prompt_injection_quarantines_the_session(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "user_prompt_injection"))
    assert run.output is not None
    assert run.output["continue"] is False
    assert run.output["decision"] == "block"
    later = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert specific(later.output)["permissionDecision"] == "deny"
    assert later.decisions == [("pre-tool", "deny")]


@pytest.mark.parametrize("case", [f"session_start_{s}" for s in
                                  ("startup", "resume", "clear", "compact", "fork")])  # fmt: skip
def test_session_start_makes_no_op(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output, run.responses) == (0, None, [])


def test_stop_while_a_stop_hook_is_active_finalizes_without_blocking(world: HookWorld) -> None:
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    run = world.run(CLIENT, fixture(CLIENT, "stop_hook_active"))
    assert (run.code, run.output) == (0, None)
    assert run.responses[0]["op"] == "finalize"


def test_stop_failure_aborts_the_turn_and_logs_an_error(world: HookWorld) -> None:
    world.task()
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    run = world.run(CLIENT, fixture(CLIENT, "stop_failure_rate_limit"))
    assert (run.code, run.output) == (0, None)
    (abort,) = run.responses
    assert abort["op"] == "abort"
    assert "rate_limit" in str(abort["reason"])
    errors = [e for e in world.events() if e["type"] == "error"]
    assert len(errors) == 1
    assert "rate_limit" in errors[0]["message"]


@pytest.mark.parametrize(
    "case", [f"session_end_{r}" for r in ("clear", "resume", "logout", "prompt_input_exit",
                                          "other")]
)  # fmt: skip
def test_session_end_aborts_a_turn_left_open_and_nothing_else(world: HookWorld, case: str) -> None:
    assert world.run(CLIENT, fixture(CLIENT, case)).responses == []
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output) == (0, None)
    assert [r["op"] for r in run.responses] == ["abort"]


def test_an_interrupted_tool_is_a_failure_and_ends_the_turn(world: HookWorld) -> None:
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    run = world.run(CLIENT, fixture(CLIENT, "post_tool_failure_interrupt"))
    assert (run.code, run.output) == (0, None)
    assert [r["op"] for r in run.responses] == ["post-tool", "abort"]
    assert run.responses[1]["receipt"]["failures"] == 1


@pytest.mark.parametrize(
    "case", ["post_tool_batch", "subagent_stop", "pre_compact", "notification_permission_prompt"]
)
def test_events_without_an_op_are_silent(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output, run.responses) == (0, None, [])


# -- rendering of decisions the bridge gives only in situations hard to stage --------------


def response(decision: str, **extra: object) -> dict[str, object]:
    return {"op": "x", "decision": decision, "schema_version": "caesar.lifecycle/v1", **extra}


def test_require_approval_the_bridge_could_not_wait_for_is_an_ask() -> None:
    answer = claude_code.render("PreToolUse", Step("pre-tool"), response("require_approval"), {})
    assert specific(answer.stdout)["permissionDecision"] == "ask"


def test_an_allow_with_context_adds_it_without_deciding() -> None:
    answer = claude_code.render(
        "PreToolUse", Step("pre-tool"), response("allow", context="staging"), {}
    )
    assert specific(answer.stdout) == {
        "hookEventName": "PreToolUse",
        "additionalContext": "staging",
    }


def test_a_timeout_allow_is_not_a_persons_allow() -> None:
    timed_out = response("allow", reason="approval ap_0a1b2c3d4e5f timed out after 1s: allow")
    assert claude_code.render("PreToolUse", Step("pre-tool"), timed_out, {}).stdout is None


def test_a_stop_block_keeps_claude_going_unless_a_stop_hook_already_did() -> None:
    blocked = response("block", reason="run the tests first")
    answer = claude_code.render("Stop", Step("finalize"), blocked, {"stop_hook_active": False})
    assert answer.stdout == {"decision": "block", "reason": "caesar: run the tests first"}
    looping = claude_code.render("Stop", Step("finalize"), blocked, {"stop_hook_active": True})
    assert looping.stdout is None
    assert "stop_hook_active" in looping.stderr


@pytest.mark.parametrize("event", ["PostToolUse", "PostToolUseFailure", "Stop"])
def test_halt_after_the_fact_stops_claude(event: str) -> None:
    answer = claude_code.render(event, Step("post-tool"), response("halt", reason="enough"), {})
    assert answer.stdout is not None
    assert (answer.stdout["continue"], answer.stdout["stopReason"]) == (False, "caesar: enough")


def test_a_bridge_error_after_the_fact_only_warns() -> None:
    answer = claude_code.render("PostToolUse", Step("post-tool"), response("error"), {})
    assert (answer.stdout, answer.exit_code) == (None, 0)
    assert "not blocked" in answer.stderr
