"""``caesar hook codex``: Codex hooks (what Codex cannot express changes the answer) and notify."""

from __future__ import annotations

import json

import pytest

from caesar_core.bridge.clients import codex
from caesar_core.bridge.clients.flow import Step
from tests.bridge.hookkit import HookWorld, cases, decision_of, fixture

CLIENT = "codex"


def test_every_checklist_fixture_is_present() -> None:
    expected = {
        "notify_with_client", "notify_without_client", "pre_tool_bash", "pre_tool_apply_patch",
        "pre_tool_mcp", "permission_request", "post_tool_bash_nonzero", "stop",
    }  # fmt: skip
    assert expected <= set(cases(CLIENT))
    assert "client" not in fixture(CLIENT, "notify_without_client")
    assert fixture(CLIENT, "permission_request")["tool_input"]["description"]


@pytest.mark.parametrize("case", ["pre_tool_bash", "pre_tool_apply_patch", "pre_tool_mcp"])
def test_an_allowed_call_says_nothing(world: HookWorld, case: str) -> None:
    run = world.run(CLIENT, fixture(CLIENT, case))
    assert (run.code, run.output) == (0, None)
    assert run.decisions == [("begin", "allow"), ("pre-tool", "allow")]


def test_a_patch_is_judged_by_the_files_it_touches(world: HookWorld) -> None:
    world.rules({"tool": "apply_patch", "match": "patch: Update src/*", "decision": "deny"})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_apply_patch"))
    assert decision_of(run.output)[0] == "deny"


def test_a_denied_call_is_a_deny_with_the_reason(world: HookWorld) -> None:
    world.rules({"tool": "Bash", "match": "rm *", "decision": "deny", "reason": "no deleting"})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert run.code == 0
    decision, reason = decision_of(run.output)
    assert decision == "deny"
    assert "no deleting" in reason


@pytest.mark.parametrize("decision", ["halt", "quarantine"])
def test_pre_tool_cannot_halt_so_halt_is_a_deny_without_continue(
    world: HookWorld, decision: str
) -> None:
    world.rules({"tool": "Bash", "decision": decision})
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert run.output is not None
    assert "continue" not in run.output  # continue at PreToolUse = a failed hook: the tool runs
    assert decision_of(run.output)[0] == "deny"


def test_require_approval_is_never_rendered_as_ask() -> None:
    """Codex treats ``ask`` as a failed hook run and lets the tool call continue."""
    response = {"op": "pre-tool", "decision": "require_approval", "schema_version": "x"}
    answer = codex.render("PreToolUse", Step("pre-tool"), response, {})
    assert answer.stdout is not None
    inner = answer.stdout["hookSpecificOutput"]
    assert inner["permissionDecision"] == "deny"
    assert "cannot ask" in inner["permissionDecisionReason"]
    assert "ask" not in json.dumps(answer.stdout).replace("cannot ask", "")


def test_permission_request_makes_no_op(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "permission_request"))
    assert (run.code, run.output, run.responses) == (0, None, [])


def test_a_non_zero_bash_result_is_a_failed_call(world: HookWorld) -> None:
    world.task()
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    world.run(CLIENT, fixture(CLIENT, "pre_tool_bash_ls"))
    world.run(CLIENT, fixture(CLIENT, "post_tool_bash_nonzero"))
    stop = world.run(CLIENT, fixture(CLIENT, "stop"))
    assert stop.responses[0]["receipt"]["failures"] == 1
    tools = [(e["status"], e["id"]) for e in world.events() if e["type"] == "tool_use"]
    assert tools == [("started", "call_ls0001"), ("failed", "call_ls0001")]


def test_stop_always_answers_json(world: HookWorld) -> None:
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    run = world.run(CLIENT, fixture(CLIENT, "stop"))
    assert (run.code, run.output) == (0, {})
    assert run.responses[0]["op"] == "finalize"
    nothing_open = world.run(CLIENT, fixture(CLIENT, "stop"))
    assert (nothing_open.output, nothing_open.responses) == ({}, [])


def test_a_turn_is_one_admission_from_prompt_to_stop(world: HookWorld) -> None:
    runs = [
        world.run(CLIENT, fixture(CLIENT, case))
        for case in ("session_start", "user_prompt", "pre_tool_bash_ls", "post_tool_bash", "stop")
    ]
    assert runs[0].responses == []
    ids = {r["admission_id"] for run in runs for r in run.responses}
    assert len(ids) == 1
    assert runs[-1].responses[0]["receipt"]["tool_calls"] == 1


@pytest.mark.parametrize("case", ["notify_with_client", "notify_without_client"])
def test_notify_records_the_whole_turn_as_observed_only(world: HookWorld, case: str) -> None:
    world.task()
    payload = json.dumps(world.localize(fixture(CLIENT, case)))
    run = world.run(CLIENT, "", payload)  # notify: JSON as the last argument, stdin closed
    assert (run.code, run.stdout) == (0, "")
    assert [r["op"] for r in run.responses] == ["begin", "finalize"]
    final = run.responses[1]
    assert final["certification_strength"] == "observed_only"
    assert final["decision"] == "non_certified"
    messages = [e for e in world.events() if e["type"] == "message"]
    expected = fixture(CLIENT, case)["last-assistant-message"]
    assert [m["text"] for m in messages] == ([expected] if expected else [])


def test_notify_with_a_broken_payload_only_warns(world: HookWorld) -> None:
    run = world.run(CLIENT, "", "{not json")
    assert (run.code, run.stdout) == (0, "")
    assert "not JSON" in run.stderr
