"""``caesar hook claude-code`` given what no client should send, as a real process: it answers
in Claude's format, fails closed at ``PreToolUse``, and never dies of the input."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.bridge.hookkit import CAESAR, HookWorld

CLIENT = "claude-code"


def pre_tool(world: HookWorld, **fields: object) -> dict[str, object]:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "s-1",
        "cwd": str(world.project),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        **fields,
    }


def denied(output: dict[str, object] | None) -> bool:
    assert output is not None
    specific = output["hookSpecificOutput"]
    assert isinstance(specific, dict)
    return bool(specific["permissionDecision"] == "deny")


def test_lone_surrogates_in_ids_and_names_are_answered_normally(world: HookWorld) -> None:
    payload = pre_tool(world, session_id="\ud800", tool_name="Bash\udfff", tool_use_id="\ud800")
    run = world.run(CLIENT, json.dumps(payload))
    assert (run.code, run.output) == (0, None)
    assert run.decisions == [("begin", "allow"), ("pre-tool", "allow")]
    post = {**payload, "hook_event_name": "PostToolUse", "tool_response": "\ud800"}
    after = world.run(CLIENT, json.dumps(post))
    assert after.decisions == [("post-tool", "recorded")]
    assert after.responses[0]["warnings"] == []  # paired with its pre-tool


@pytest.mark.parametrize(
    "stdin",
    [b'{"hook_event_name": "PreToolUse", "tool_name": "\xff"}', b"[" * 5000, b"\x00", b""],
    ids=["invalid utf-8", "deep", "nul", "empty"],
)
def test_an_unreadable_payload_is_denied_with_exit_2(world: HookWorld, stdin: bytes) -> None:
    done = subprocess.run(
        [CAESAR, "hook", CLIENT],
        input=stdin,
        capture_output=True,
        env=world.env(),
        cwd=world.project,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert denied(json.loads(done.stdout))


def test_a_tool_input_nested_too_deep_is_denied(world: HookWorld) -> None:
    nested: object = {"command": "rm -rf /"}
    for _ in range(200):
        nested = [nested]
    run = world.run(CLIENT, json.dumps(pre_tool(world, tool_input=nested)))
    assert run.code == 0
    assert denied(run.output)
    assert "deeper than 64" in run.stdout


def test_a_nul_in_the_working_directory_is_denied(world: HookWorld) -> None:
    run = world.run(CLIENT, json.dumps(pre_tool(world, cwd="/tmp/a\x00b")))
    assert denied(run.output)
    assert "NUL" in run.stdout


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_non_finite_duration_is_ignored_not_fatal(world: HookWorld, number: str) -> None:
    world.run(CLIENT, json.dumps(pre_tool(world, tool_use_id="t1")))
    post = json.dumps({**pre_tool(world, tool_use_id="t1"), "hook_event_name": "PostToolUse"})
    run = world.run(CLIENT, post[:-1] + f', "duration_ms": {number}}}')
    assert run.code == 0
    assert run.decisions == [("post-tool", "recorded")]


def test_an_answer_is_ascii_whatever_the_reason_holds(world: HookWorld) -> None:
    world.rules({"tool": "Bash", "decision": "deny", "reason": "naïve … \u2028 rule"})
    run = world.run(CLIENT, json.dumps(pre_tool(world)))
    assert run.stdout.isascii()
    assert denied(run.output)
    assert "naïve … \u2028 rule" in json.dumps(run.output, ensure_ascii=False)
