"""Whatever arrives on stdin, the real ``caesar bridge`` answers one schema-valid line and exits
0 (case 15): lone surrogates, control characters, invalid UTF-8, deep nesting, a huge request,
wrong types. ``Bridge.run`` asserts exit 0, nothing on stderr, one line, schema-valid."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from caesar_core.bridge.cli import MAX_REQUEST
from tests.bridge.core_support import CAESAR, Bridge, valid_response, write_task

ADM = "adm_" + "0" * 32


def pre_tool(tool_input: str) -> bytes:
    head = {"op": "pre-tool", "admission_id": ADM, "tool": "Bash"}
    return (json.dumps(head)[:-1] + f', "tool_input": {tool_input}}}').encode()


ERRORS: list[tuple[str, bytes, str]] = [
    ("lone surrogate op", b'{"op":"\\ud800"}', "must be one of"),
    ("low surrogate op", b'{"op":"\\udfff"}', "must be one of"),
    ("next line op", b'{"op":"\\u0085\\u2028"}', "must be one of"),
    ("escape op", b'{"op":"\\u001b]0;title\\u0007"}', "must be one of"),
    ("surrogate key", b'{"op":"pre-tool","\\ud800":1}', "must contain"),
    ("utf-8 surrogate bytes", b'{"op":"\xed\xa0\x80"}', "must be one of"),
    ("invalid utf-8", b'{"op":"begin","client":"codex","prompt":"\xff\xfe"}', "not JSON"),
    ("brackets 100k deep", b"[" * 100_000, "nested too deeply"),
    ("tool input 500 deep", pre_tool("[" * 500 + "]" * 500), "deeper than 64"),
    ("tool input 65 deep", pre_tool("[" * 65 + "]" * 65), "deeper than 64"),
    ("huge", b" " * (MAX_REQUEST + 1), "larger than"),
    (
        "made-up admission",
        b'{"op":"finalize","admission_id":"\\ud800' + b"x" * 50 + b'"}',
        "unknown",
    ),
    ("number op", b'{"op": 1e400}', "must be string"),
    ("object op", b'{"op": {"op": "begin"}}', "must be string"),
    ("wrong everything", b'{"op":"post-tool","admission_id":[],"tool":{},"status":7}', "must be"),
]


@pytest.mark.parametrize(("stdin", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_hostile_input_is_answered_with_one_valid_error(
    tmp_path: Path, stdin: bytes, expected: str
) -> None:
    response = Bridge(tmp_path).run(stdin)
    assert response["decision"] == "error"
    assert expected in response["reason"]
    assert response["op"] in ("unknown", "pre-tool", "post-tool", "finalize")
    assert response["admission_id"] is None


def test_the_answer_repeats_nothing_of_the_request(tmp_path: Path) -> None:
    noise = "\ud800\x1b]0;x\x07" + "y" * 10_000
    request = {"op": noise, "admission_id": noise, "tool": noise}
    response = Bridge(tmp_path).run(json.dumps(request))
    assert "yyyy" not in json.dumps(response)


def test_an_answer_is_one_line_of_ascii(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    begun = bridge.run(json.dumps({"op": "begin", "client": "codex", "prompt": "naïve"}))
    tool = "a\u2028b\x85c\u2029d…"  # line separators to a reader that splits on Unicode
    request = {"op": "post-tool", "admission_id": begun["admission_id"], "tool": tool}
    done = subprocess.run(
        [CAESAR, "bridge"],
        input=json.dumps(request).encode(),
        capture_output=True,
        env=bridge.process_env(),
        timeout=60,
        check=True,
    )
    assert done.stdout.isascii()
    (line,) = done.stdout.decode().splitlines()
    assert tool in valid_response(json.loads(line))["warnings"][0]


def test_lone_surrogates_are_replaced_everywhere_and_the_lifecycle_works(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path, task_dir=write_task(tmp_path / "task"))
    s = "\ud800"
    begun = bridge.run(
        json.dumps(
            {
                "op": "begin",
                "client": "claude-code",
                "prompt": f"list {s}",
                "project": str(bridge.project),
                "session": s,
                "actor": s,
                "turn": s,
                "client_version": s,
                "adapter_version": s,
            }
        )
    )
    assert begun["decision"] == "allow"
    adm = begun["admission_id"]
    pre = {"op": "pre-tool", "admission_id": adm, "tool": f"T{s}", "tool_input": {s: [s]}}
    assert bridge.run(json.dumps(pre | {"tool_use_id": s}))["decision"] == "allow"
    post = {"op": "post-tool", "admission_id": adm, "tool": f"T{s}", "tool_use_id": s}
    assert bridge.run(json.dumps(post | {"result": s}))["warnings"] == []
    telemetry = {"op": "telemetry", "admission_id": adm, "model": s, "cost_currency": s}
    assert bridge.run(json.dumps(telemetry))["decision"] == "recorded"
    final = {"op": "finalize", "admission_id": adm, "assistant_summary": s, "changed_files": [s]}
    assert bridge.run(json.dumps(final))["decision"] in ("certified", "non_certified")
    trace = bridge.trace_lines(begun["trace_id"])
    assert [line["tool"] for line in trace if line["op"] in ("pre-tool", "post-tool")] == [
        "T\ufffd",
        "T\ufffd",
    ]


@pytest.mark.parametrize(
    "field", ["client_version", "adapter_version", "session", "actor", "turn", "prompt"]
)
def test_control_characters_in_any_field_are_kept_escaped(tmp_path: Path, field: str) -> None:
    bridge = Bridge(tmp_path)
    value = "\x00\x1b]0;title\x07\r\b\x7f"
    request = {"op": "begin", "client": "codex", "prompt": "hi", field: value}
    response = bridge.run(json.dumps(request))
    assert response["decision"] == "allow"
    for path in (bridge.state / "bridge").rglob("*.json*"):
        assert b"\x1b" not in path.read_bytes() and b"\x00" not in path.read_bytes()


def test_a_nul_in_the_project_path_is_a_clear_error(tmp_path: Path) -> None:
    request = {"op": "begin", "client": "codex", "prompt": "hi", "project": "/tmp/a\x00b"}
    response = Bridge(tmp_path).run(json.dumps(request))
    assert response["decision"] == "error"
    assert "NUL" in response["reason"]


def test_a_fifo_task_json_does_not_hang_begin(tmp_path: Path) -> None:
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    os.mkfifo(task_dir / "task.json")
    bridge = Bridge(tmp_path, task_dir=task_dir)
    response = bridge.run(
        json.dumps({"op": "begin", "client": "codex", "prompt": "hi"}), timeout=30
    )
    assert response["decision"] == "allow"
    assert any("task.json unreadable" in warning for warning in response["warnings"])


def test_wrong_types_in_the_in_process_entry_are_errors(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)  # validates every response against the seed's bridgeResponse
    requests: tuple[object, ...] = (
        None,
        3,
        "begin",
        [],
        {"op": ["begin"]},
        {"op": {"x": 1}},
        {1: 2},
    )
    for request in requests:
        assert bridge(request)["decision"] == "error"
    adm = bridge.begin()["admission_id"]
    deep: object = "x"
    for _ in range(200):
        deep = {"k": deep}
    assert "deeper than 64" in bridge.pre(adm, "Bash", deep)["reason"]
