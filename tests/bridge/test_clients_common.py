"""What all hook adapters promise: failing closed, feeding the task's log, keeping nothing raw."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.bridge.hookkit import HookWorld, collect, fixture

PRE_TOOL = {
    "claude-code": ("claude-code", "pre_tool_bash"),
    "codex": ("codex", "pre_tool_bash"),
    "vscode": ("vscode", "pre_tool_run_terminal"),
    "gemini": ("gemini", "before_tool_shell"),
}
DENY_JSON = {"claude-code", "vscode"}
"""Clients whose fail-closed answer carries an explicit deny besides exit 2."""


@pytest.mark.parametrize("client", sorted(PRE_TOOL))
@pytest.mark.parametrize("garbage", ["not json at all", "[1, 2]", "", '{"tool_name": "Bash"}'])
def test_an_unreadable_payload_fails_closed(world: HookWorld, client: str, garbage: str) -> None:
    run = world.run(client, garbage)
    assert run.code == 2
    assert run.stderr.startswith("caesar: ")
    assert "Traceback" not in run.stderr
    if client in DENY_JSON:
        assert run.output is not None
        assert run.output["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert run.output is None
    assert run.responses == []


@pytest.mark.parametrize("client", sorted(PRE_TOOL))
def test_a_pre_tool_without_a_tool_name_fails_closed(world: HookWorld, client: str) -> None:
    payload = fixture(*PRE_TOOL[client])
    payload.pop("tool_name")
    run = world.run(client, payload)
    assert run.code == 2
    assert "names no tool" in run.stderr


@pytest.mark.parametrize("client", sorted(PRE_TOOL))
def test_a_bridge_error_at_pre_tool_is_a_deny(world: HookWorld, client: str) -> None:
    (world.project / ".caesar" / "config.toml").write_text("[bridge\nbroken = ")
    run = world.run(client, fixture(*PRE_TOOL[client]))
    assert run.decisions == [("begin", "error")]
    output = run.output
    if client == "gemini":
        assert output is not None
        assert output["decision"] == "deny"
        assert "configuration refused" in output["reason"]
    else:
        assert output is not None
        inner = output["hookSpecificOutput"]
        assert inner["permissionDecision"] == "deny"
        assert "configuration refused" in inner["permissionDecisionReason"]


def test_an_internal_failure_denies_a_pre_tool_and_only_warns_after_it(world: HookWorld) -> None:
    blocker = world.root / "not-a-directory"
    blocker.write_text("")
    env = {"CAESAR_STATE_DIR": str(blocker)}
    pre = world.run("claude-code", fixture("claude-code", "pre_tool_bash"), env=env)
    assert pre.code == 2
    assert pre.output is not None
    assert pre.output["hookSpecificOutput"]["permissionDecision"] == "deny"
    post = world.run("claude-code", fixture("claude-code", "post_tool_bash"), env=env)
    assert (post.code, post.output) == (0, None)
    assert "not blocked" in post.stderr


def test_an_unknown_client_is_a_usage_error(world: HookWorld) -> None:
    run = world.run("cursor", fixture("claude-code", "pre_tool_bash"))
    assert run.code == 2


def test_parallel_first_calls_of_a_session_share_one_admission(world: HookWorld) -> None:
    """Claude runs the hooks of parallel tool calls at once; the first ones race to begin."""
    payload = fixture("claude-code", "pre_tool_bash")
    spawned = []
    for index in range(10):
        call = {**payload, "tool_use_id": f"toolu_par{index:03d}"}
        proc, responses, stdin = world.spawn("claude-code", call)
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        spawned.append((proc, responses))
    runs = [collect(proc, responses) for proc, responses in spawned]
    assert all((run.code, run.output) == (0, None) for run in runs)
    begins = [r for run in runs for r in run.responses if r["op"] == "begin"]
    assert len(begins) == 1
    admissions = {r["admission_id"] for run in runs for r in run.responses}
    assert admissions == {begins[0]["admission_id"]}


def test_hooks_feed_the_tasks_event_log_paired_and_redacted(world: HookWorld) -> None:
    world.task("t-observed")
    world.rules({"tool": "Bash", "match": "rm *", "decision": "deny", "reason": "no deleting"})
    for case in ("user_prompt", "pre_tool_bash", "post_tool_bash", "pre_tool_bash_rm",
                 "pre_tool_bash_secret", "stop"):  # fmt: skip
        world.run("claude-code", fixture("claude-code", case))
    events = world.events()
    assert {e["task_id"] for e in events} == {"t-observed"}
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert not {e["type"] for e in events} & {"started", "finished"}
    tools = [(e["status"], e["id"], e["input_summary"]) for e in events if e["type"] == "tool_use"]
    assert tools[:3] == [
        ("started", "toolu_01ABC123", "npm test"),
        ("succeeded", "toolu_01ABC123", "npm test"),
        ("failed", "toolu_01RM0001", "rm -rf node_modules"),
    ]
    status, use, summary = tools[3]
    assert (status, use) == ("started", "toolu_01SEC001")
    assert "[REDACTED:github_token]" in summary
    messages = [e["text"] for e in events if e["type"] == "message"]
    assert messages == ["I've completed the refactoring. Here's a summary..."]


def test_nothing_raw_is_left_in_any_file(world: HookWorld) -> None:
    world.task()
    session = "sess-CANARY-7f1e2d"
    prompt = "Refactor the CANARYPROMPT module"
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    steps = [
        {**fixture("claude-code", "user_prompt"), "prompt": prompt},
        fixture("claude-code", "pre_tool_bash_secret"),
        {**fixture("claude-code", "stop"), "last_assistant_message": f"pushed with {token}"},
    ]
    for payload in steps:
        world.run("claude-code", {**payload, "session_id": session})
    text = world.all_files_text()
    names = " ".join(str(p) for p in world.root.rglob("*"))
    for canary in (session, prompt, token):
        assert canary not in text
        assert canary not in names


HEAVY = ["click", "pydantic", "textual", "rich", "pygit2", "mcp", "caesar_tui"]


def test_a_pre_tool_on_an_open_admission_loads_nothing_heavy(
    world: HookWorld,
) -> None:
    world.run("claude-code", fixture("claude-code", "user_prompt"))
    payload = json.dumps(world.localize(fixture("claude-code", "pre_tool_bash")))
    probe = (
        "import io, json, sys\n"
        f"sys.stdin = io.StringIO({payload!r})\n"
        "from caesar_core.bridge.cli import main\n"
        "code = main(['hook', 'claude-code'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(sys.argv[1])))\n"
        "print(json.dumps({'code': code, 'heavy': heavy}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        env=world.env(),
        timeout=60,
        check=True,
    )
    result = json.loads(done.stderr.strip().splitlines()[-1])
    assert result == {"code": 0, "heavy": []}


def test_a_notification_is_progress_in_the_tasks_log(world: HookWorld) -> None:
    world.task()
    run = world.run("claude-code", fixture("claude-code", "notification_permission_prompt"))
    assert (run.code, run.output, run.responses) == (0, None, [])
    (event,) = world.events()
    assert event["type"] == "progress"
    assert event["message"] == "Permission needed: Claude needs your permission to use Bash"


def test_without_a_task_no_event_log_is_written(world: HookWorld) -> None:
    for case in ("user_prompt", "pre_tool_bash", "post_tool_bash", "stop"):
        world.run("claude-code", fixture("claude-code", case))
    assert not list(world.root.rglob("events.jsonl"))


def test_the_declared_integration_mode_reaches_the_bridge(world: HookWorld) -> None:
    payload = fixture("claude-code", "user_prompt")
    declared = world.run("claude-code", payload, "--integration-mode", "managed_hook")
    assert declared.responses[0]["integration_mode"] == "managed_hook"
    nonsense = world.run("gemini", fixture("gemini", "before_agent"), "--integration-mode=x")
    assert nonsense.responses[0]["integration_mode"] == "project_hook"
