"""``caesar hook qwen``: Qwen Code's hooks, Claude Code's format with Qwen Code's turns.

The fixtures are what Qwen Code 0.24.4 sent the hooks ``caesar hooks install qwen`` writes in
a real run against the scripted model server, paths normalized.
"""

from __future__ import annotations

from tests.bridge.hookkit import HookWorld, cases, decision_of, fixture

CLIENT = "qwen"


def test_the_recorded_payloads() -> None:
    expected = {"user_prompt", "user_prompt_continuation", "pre_tool_shell", "post_tool_shell",
                "post_tool_batch", "post_tool_failure", "stop", "notification"}  # fmt: skip
    assert expected <= set(cases(CLIENT))
    pre, post = fixture(CLIENT, "pre_tool_shell"), fixture(CLIENT, "post_tool_shell")
    assert pre["tool_use_id"] == post["tool_use_id"]
    first, later = fixture(CLIENT, "user_prompt"), fixture(CLIENT, "user_prompt_continuation")
    assert first["prompt_id"] == later["prompt_id"] and later["prompt"] == ""


def test_a_turn_across_tool_batches_is_one_admission(world: HookWorld) -> None:
    """Qwen Code runs UserPromptSubmit again, prompt empty, after every batch of calls."""
    world.task()
    runs = [
        world.run(CLIENT, fixture(CLIENT, case))
        for case in ("session_start", "notification", "user_prompt", "pre_tool_shell",
                     "post_tool_shell", "post_tool_batch", "user_prompt_continuation",
                     "pre_tool_write", "post_tool_write", "user_prompt_continuation",
                     "pre_tool_shell_failing", "post_tool_failure", "stop")
    ]  # fmt: skip
    assert all((run.code, run.output) == (0, None) for run in runs)
    ops = [[r["op"] for r in run.responses] for run in runs]
    assert ops == [[], [], ["begin"], ["pre-tool"], ["post-tool"], [], [], ["pre-tool"],
                   ["post-tool"], [], ["pre-tool"], ["post-tool"], ["finalize"]]  # fmt: skip
    receipt = runs[-1].responses[0]["receipt"]
    assert (receipt["tool_calls"], receipt["failures"]) == (3, 1)
    assert receipt["certification_strength"] == "project_hook"
    events = world.events()
    assert [e["text"] for e in events if e["type"] == "message"] == ["done"]
    assert any("authenticated" in e["message"] for e in events if e["type"] == "progress")


def test_a_denied_call_is_denied_and_closed_by_its_id(world: HookWorld) -> None:
    world.rules({"tool": "run_shell_command", "match": "printf*", "decision": "deny"})
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    denied = world.run(CLIENT, fixture(CLIENT, "pre_tool_shell"))
    assert denied.code == 0
    assert decision_of(denied.output)[0] == "deny"
    assert denied.decisions == [("pre-tool", "deny"), ("post-tool", "recorded")]
    receipt = world.run(CLIENT, fixture(CLIENT, "stop")).responses[0]["receipt"]
    assert (receipt["tool_calls"], receipt["certification_strength"]) == (1, "project_hook")


def test_a_broken_payload_fails_closed(world: HookWorld) -> None:
    run = world.run(CLIENT, "{")
    assert run.code == 2
    assert decision_of(run.output)[0] == "deny"
