"""Nothing raw is ever persisted: canaries sent through real ``caesar bridge`` processes are
found in no byte of any file under the state directory or the task directory afterwards."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.bridge.core_support import Bridge, finish, write_task
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
    (task_dir / "approvals" / f"{approval['id']}.answer.json").write_text(json.dumps(answer))
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
