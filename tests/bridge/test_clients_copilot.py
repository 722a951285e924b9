"""``caesar hook copilot``: GitHub Copilot CLI's hooks in their VS Code-compatible format.

The fixtures are what Copilot CLI 1.0.102 sent its PascalCase hooks (``caesar hooks install
copilot``) in a real run against the scripted model server, paths normalized.
"""

from __future__ import annotations

import json

from tests.bridge.hookkit import HookWorld, cases, decision_of, fixture

CLIENT = "copilot"


def test_the_recorded_payloads_are_claude_format_with_vscode_tool_names() -> None:
    expected = {"user_prompt", "pre_tool_bash", "post_tool_bash", "pre_tool_write",
                "post_tool_bash_failing", "stop", "session_end", "error_occurred"}  # fmt: skip
    assert expected <= set(cases(CLIENT))
    pre = fixture(CLIENT, "pre_tool_bash")
    assert (pre["hook_event_name"], pre["tool_name"]) == ("PreToolUse", "Bash")
    assert "tool_use_id" not in pre  # no call ids: pairing is by tool and input
    assert fixture(CLIENT, "pre_tool_write")["tool_name"] == "Write"


def test_an_allowed_call_says_nothing(world: HookWorld) -> None:
    run = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert (run.code, run.output) == (0, None)
    assert run.decisions == [("begin", "allow"), ("pre-tool", "allow")]
    assert run.responses[0]["integration_mode"] == "project_hook"


def test_a_turn_with_a_failing_command(world: HookWorld) -> None:
    world.task()
    runs = [
        world.run(CLIENT, fixture(CLIENT, case))
        for case in ("session_start", "user_prompt", "pre_tool_bash", "post_tool_bash",
                     "pre_tool_write", "post_tool_write", "pre_tool_bash_failing",
                     "post_tool_bash_failing", "stop")
    ]  # fmt: skip
    assert all(run.code == 0 for run in runs)
    ops = [[r["op"] for r in run.responses] for run in runs]
    assert ops == [[], ["begin"], ["pre-tool"], ["post-tool"], ["pre-tool"], ["post-tool"],
                   ["pre-tool"], ["post-tool"], ["finalize"]]  # fmt: skip
    assert all(not run.responses or run.responses[0]["warnings"] == [] for run in runs)
    receipt = runs[-1].responses[0]["receipt"]
    # "completed with exit code 3" is a failure, though Copilot calls it a PostToolUse
    assert (receipt["tool_calls"], receipt["failures"]) == (3, 1)
    assert receipt["certification_strength"] == "project_hook"
    tools = [(e["status"], e["tool"]) for e in world.events() if e["type"] == "tool_use"]
    assert tools == [("started", "Bash"), ("succeeded", "Bash"), ("started", "Write"),
                     ("succeeded", "Write"), ("started", "Bash"), ("failed", "Bash")]  # fmt: skip


def test_a_denied_call_is_closed_at_once(world: HookWorld) -> None:
    """Copilot runs no PostToolUse for a call its hook refused and sends no call id: left
    open, the refusal would pair with the next Bash call (seen live with 1.0.102)."""
    world.rules({"tool": "Bash", "match": "printf*", "decision": "deny", "reason": "no"})
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    denied = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert denied.code == 0
    assert decision_of(denied.output) == ("deny", "caesar: no")
    assert denied.decisions == [("pre-tool", "deny"), ("post-tool", "recorded")]
    world.run(CLIENT, fixture(CLIENT, "pre_tool_write"))
    after = world.run(CLIENT, fixture(CLIENT, "post_tool_write"))
    assert after.responses[0]["warnings"] == []
    receipt = world.run(CLIENT, fixture(CLIENT, "stop")).responses[0]["receipt"]
    assert (receipt["tool_calls"], receipt["certification_strength"]) == (2, "project_hook")


def test_an_error_goes_to_the_task_log_and_a_session_end_aborts(world: HookWorld) -> None:
    world.task()
    world.run(CLIENT, fixture(CLIENT, "user_prompt"))
    error = world.run(CLIENT, fixture(CLIENT, "error_occurred"))
    assert (error.code, error.responses) == (0, [])
    progress = [e["message"] for e in world.events() if e["type"] == "progress"]
    assert progress and progress[0].startswith("error: ")
    assert "scripted refusal" in progress[0]
    ended = world.run(CLIENT, fixture(CLIENT, "session_end"))
    assert [r["op"] for r in ended.responses] == ["abort"]


def test_the_run_copilot_makes_for_the_task_directory_makes_no_op(world: HookWorld) -> None:
    """caesar's ``--add-dir <task dir>`` makes Copilot run the project's hooks a second time,
    ``cwd`` the task directory (seen live with 1.0.102): only the workspace's run counts."""
    task_dir = world.task()
    world.rules({"tool": "Bash", "decision": "deny"})
    again = {**fixture(CLIENT, "pre_tool_bash"), "cwd": str(task_dir)}
    run = world.run(CLIENT, json.dumps(again))
    assert (run.code, run.output, run.responses) == (0, None, [])
    assert world.events() == []
    counted = world.run(CLIENT, fixture(CLIENT, "pre_tool_bash"))
    assert decision_of(counted.output)[0] == "deny"


def test_a_broken_payload_fails_closed(world: HookWorld) -> None:
    """Copilot reads exit 2 at PreToolUse as a deny ("hook exited with code 2")."""
    run = world.run(CLIENT, "{")
    assert run.code == 2
    assert decision_of(run.output)[0] == "deny"
