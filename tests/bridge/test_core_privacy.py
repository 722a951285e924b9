"""Nothing raw is ever persisted: canaries sent through real ``caesar bridge`` processes are
found in no byte of any file under the state directory or the task directory afterwards."""

from __future__ import annotations

import hmac
import json
import stat
from pathlib import Path

from caesar_core.bridge.state import State, hmac_sha256_key
from caesar_core.store.approvals import answer_file
from tests.bridge.core_support import Bridge, finish, write_task
from tests.bridge.hookkit import HookWorld
from tests.runner.conftest import wait_for

AWS = "AKIAIOSFODNN7CANARY9"
GITHUB = "ghp_" + "Canary" * 6
SESSION = "session-canary-5f1e"
TURN = "turn-canary-77"
ACTOR = "actor-canary-ada"
PROMPT = "the purple elephant sings at midnight"
RESULT = "RESULT-CANARY-output-4242"
TOOL_USE = "toolu_canary_0042"
CONTENT = "CONTENT-CANARY-body"
SUMMARY = "SUMMARY-CANARY-all-done"
CHANGED = "plans-canary-file.txt"
CANARIES = [AWS, GITHUB, SESSION, TURN, ACTOR, PROMPT, RESULT, TOOL_USE, CONTENT, SUMMARY, CHANGED]


def every_file(*roots: Path) -> list[Path]:
    return [path for root in roots for path in root.rglob("*") if path.is_file()]


def test_canaries_never_reach_a_file(tmp_path: Path) -> None:
    task_dir = write_task(tmp_path / "task")
    bridge = Bridge(tmp_path, task_dir=task_dir)
    bridge.config(
        '[bridge]\napproval_timeout = "30s"\n\n'
        '[[bridge.rule]]\ntool = "Bash"\nmatch = "deploy*"\ndecision = "require_approval"\n'
    )
    context = {
        "op": "begin",
        "client": "claude-code",
        "project": str(bridge.project),
        "session": SESSION,
        "turn": TURN,
        "actor": ACTOR,
        "integration_mode": "project_hook",
    }
    blocked = bridge.run(json.dumps({**context, "prompt": f"{PROMPT} with {AWS} and {GITHUB}"}))
    assert blocked["decision"] == "block"
    assert AWS not in json.dumps(blocked) and GITHUB not in json.dumps(blocked)
    adm = bridge.run(json.dumps({**context, "prompt": PROMPT}))["admission_id"]

    def call(request: dict[str, object]) -> dict[str, object]:
        return bridge.run(json.dumps({"admission_id": adm, **request}))

    call(
        {
            "op": "pre-tool",
            "tool": "Bash",
            "tool_input": {"command": f"curl -u {AWS} -H 'Authorization: {GITHUB}' x"},
            "tool_use_id": TOOL_USE,
        }
    )
    call({"op": "post-tool", "tool": "Bash", "result": {"stdout": RESULT}, "tool_use_id": TOOL_USE})
    call(
        {"op": "pre-tool", "tool": "Write", "tool_input": {"file_path": "a.py", "content": CONTENT}}
    )
    call({"op": "post-tool", "tool": "Write", "status": "error", "result": f"{RESULT} {GITHUB}"})
    held = bridge.spawn(
        {
            "op": "pre-tool",
            "admission_id": adm,
            "tool": "Bash",
            "tool_input": {"command": f"deploy --token {GITHUB}"},
        }
    )
    asked = wait_for(lambda: list((task_dir / "approvals").glob("ap_*[!r].json")), what="approval")
    approval = json.loads(asked[0].read_text())
    assert approval["summary"] == "deploy --token [REDACTED:github_token]"
    answer = {"id": approval["id"], "decision": "allow", "answered_at": "2026-11-30T00:00:00Z"}
    (answer_file(task_dir, approval["id"])).write_text(json.dumps(answer))
    assert finish(held)["decision"] == "allow"
    call(
        {
            "op": "telemetry",
            "model": "claude",
            "input_tokens": 3,
            "cost_amount": 0.01,
            "cost_source": "sdk_result_message",
        }
    )
    final = call(
        {
            "op": "finalize",
            "stop_reason": "completed",
            "assistant_summary": f"{SUMMARY} {GITHUB}",
            "changed_files": [CHANGED],
        }
    )
    assert final["decision"] == "certified"
    other = bridge.run(json.dumps({**context, "prompt": PROMPT}))["admission_id"]
    aborted = bridge.run(
        json.dumps({"op": "abort", "admission_id": other, "reason": f"{AWS} leaked {SUMMARY}"})
    )
    assert AWS not in json.dumps(aborted)

    files = every_file(bridge.state, task_dir)
    assert len(files) >= 10  # salt, admissions, locks, traces, spool, approvals, answers
    for path in files:
        data = path.read_bytes()
        for canary in CANARIES:
            assert canary.encode() not in data, f"{canary!r} found in {path}"


def test_state_files_are_private(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin()["admission_id"]
    bridge.finalize(adm)
    for path in every_file(bridge.state):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for folder in ("admissions", "traces", "spool"):
        mode = stat.S_IMODE((bridge.state / "bridge" / folder).stat().st_mode)
        assert mode & 0o077 == 0, folder


# Real-looking keys glued to word characters, as they reach metadata fields.
AWS_KEY = "AKIAQ7ZK4MPL2WXN5RT3"
GH_KEY = "ghp_R8dK2mQ9xL4vN7pT1wZ5bC3fH6jY0sA2eU8i"
SK_KEY = "sk-proj-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8"
KEYS = [AWS_KEY, GH_KEY, SK_KEY]


def test_secrets_in_metadata_never_reach_a_file(tmp_path: Path) -> None:
    """Tool name, call id, project, client and adapter versions, model, currency: each holds a
    key glued inside a word, and none reaches the state dir, the trace, the spool, the receipt
    or an approval (case 14)."""
    task_dir = write_task(tmp_path / "task")
    bridge = Bridge(tmp_path, task_dir=task_dir)
    project = bridge.project / f"repo_{AWS_KEY}x"
    (project / ".caesar").mkdir(parents=True)
    (project / ".caesar" / "config.toml").write_text(
        '[bridge]\napproval_timeout = "1ms"\n\n'
        '[[bridge.rule]]\ntool = "*deploy*"\ndecision = "require_approval"\n'
    )
    begun = bridge.begin(
        project=str(project),
        client_version=f"2.0.14 TOKEN_{GH_KEY}",
        adapter_version=f"caesar-hook/é{AWS_KEY}",
        session=f"s-{GH_KEY}",
        actor=f"FOO_{AWS_KEY}",
        turn=f"t{SK_KEY}",
    )
    assert begun["decision"] == "allow"
    adm = begun["admission_id"]
    held = bridge.pre(adm, f"mcp__deploy_{GH_KEY}", {"command": "ls"}, tool_use_id="toolu_1")
    assert held["decision"] == "deny"  # held, then timed out: the approval files exist
    tool = f"Read_{AWS_KEY}x"
    assert (
        bridge.pre(adm, tool, {"file_path": "a"}, tool_use_id=f"TOKEN_{GH_KEY}")["decision"]
        == "allow"
    )
    paired = bridge.post(adm, tool, tool_use_id=f"TOKEN_{GH_KEY}")
    assert paired["warnings"] == []
    by_name = bridge.pre(adm, f"X{SK_KEY}", {"file_path": "b"})
    assert by_name["decision"] == "allow"
    assert bridge.post(adm, f"X{SK_KEY}")["warnings"] == []  # paired by the redacted name
    bridge.telemetry(
        adm,
        model=f"claude-{SK_KEY}",
        cost_currency=f"USD_{AWS_KEY}",
        input_tokens=1,
        cost_amount=0.1,
        cost_source="provider_reported",
    )
    bridge.finalize(adm, stop_reason="completed")
    lines = bridge.trace_lines(begun["trace_id"])
    assert [line.get("paired_with") for line in lines if line["op"] == "post-tool"] == [2, 3]
    assert len(list((task_dir / "approvals").glob("ap_*"))) == 2  # the ask and its answer
    for path in every_file(bridge.state, task_dir):
        data = path.read_bytes()
        for key in KEYS:
            assert key.encode() not in data, f"{key!r} found in {path}"


def test_a_hook_writes_no_secret_into_the_task_log_or_its_answers(tmp_path: Path) -> None:
    """The task's events (tool name, the client's call id), the session map and the hook's
    answers are scanned too; the hook's call still pairs."""
    world = HookWorld(tmp_path)
    world.task()
    tool = f"mcp__{GH_KEY}__run"
    base = {"session_id": f"FOO_{AWS_KEY}", "cwd": str(world.project)}
    call = {**base, "tool_name": tool, "tool_input": {"x": 1}, "tool_use_id": f"id_{SK_KEY}"}
    pre = world.run("claude-code", {**call, "hook_event_name": "PreToolUse"})
    post = world.run("claude-code", {**call, "hook_event_name": "PostToolUse"})
    assert (pre.code, post.code) == (0, 0)
    events = world.events()
    assert [e["status"] for e in events if e["type"] == "tool_use"] == ["started", "succeeded"]
    assert {e["tool"] for e in events if e["type"] == "tool_use"} == {
        "mcp__[REDACTED:github_token]__run"
    }
    texts = [world.all_files_text(), pre.stdout, post.stdout, pre.stderr, post.stderr]
    texts += [(tmp_path / name).read_text() for name in ("responses-1.jsonl", "responses-2.jsonl")]
    for text in texts:
        for key in KEYS:
            assert key not in text


def test_hashes_are_hmac_sha256_under_the_salt(tmp_path: Path) -> None:
    """The bridge computes HMAC-SHA256 without ``hmac`` (OpenSSL costs a hook ~3 ms): the
    same digests as ``hmac.new``, for the salt and for keys past SHA-256's block too."""
    state = State(tmp_path / "state")
    for text in ("", "session-1", "é\ud800", "x" * 10_000):
        message = b"session\0" + text.encode("utf-8", "surrogatepass")
        assert state.hash("session", text) == hmac.new(state.salt, message, "sha256").hexdigest()
    for key in (b"", b"k" * 64, b"k" * 65, bytes(range(256))):
        inner, outer = hmac_sha256_key(key)
        inner.update(b"message")
        outer.update(inner.digest())
        assert outer.hexdigest() == hmac.new(key, b"message", "sha256").hexdigest()
