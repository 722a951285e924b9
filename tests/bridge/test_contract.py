"""The contract: the seed schema, our generated validator and our models agree; bad input of
every kind is answered with a schema-valid ``error`` by the real ``caesar bridge``, exit 0."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from caesar_core.bridge import _validate
from caesar_core.protocol.lifecycle import REQUEST_ADAPTER, RESPONSE_ADAPTER, validator_source
from tests.bridge.core_support import CAESAR, FIXTURES, REQUEST, Bridge

ROOT = Path(__file__).parents[2]
ADM = "adm_" + "0" * 32

VALID: list[dict[str, Any]] = [
    {"op": "begin", "client": "claude-code", "prompt": "hi"},
    {
        "op": "begin",
        "client": "unknown",
        "prompt": "",
        "client_version": "gemini 0.61",
        "adapter_version": None,
        "project": "/p",
        "session": "s",
        "actor": None,
        "integration_mode": "managed_hook",
        "turn": "t",
    },
    {"op": "pre-tool", "admission_id": ADM, "tool": "Bash"},
    {
        "op": "pre-tool",
        "admission_id": ADM,
        "tool": "Bash",
        "tool_input": [1, None],
        "project": None,
    },
    {"op": "pre-tool", "admission_id": ADM, "tool": "Bash", "tool_use_id": "x", "extra": 1},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "status": None, "duration_ms": 0},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "status": "timeout", "result": "r"},
    {"op": "telemetry", "admission_id": ADM},
    {
        "op": "telemetry",
        "admission_id": ADM,
        "model": "m",
        "runtime_ms": 5,
        "input_tokens": 1,
        "output_tokens": 2,
        "cache_tokens": None,
        "cost_amount": 0.5,
        "cost_currency": "USD",
        "cost_source": "session_delta",
    },
    {"op": "telemetry", "admission_id": ADM, "cost_amount": 3},
    {"op": "finalize", "admission_id": ADM, "stop_reason": "max_turns", "changed_files": ["a"]},
    {"op": "finalize", "admission_id": ADM, "assistant_summary": None, "changed_files": None},
    {"op": "abort"},
    {"op": "abort", "admission_id": None, "reason": "rate_limit"},
]

INVALID: list[object] = [
    [],
    "begin",
    None,
    {},
    {"op": "launch"},
    {"op": 3},
    {"op": "begin", "prompt": "no client"},
    {"op": "begin", "client": "claude-code"},
    {"op": "begin", "client": "gemini", "prompt": "x"},
    {"op": "begin", "client": "codex", "prompt": 5},
    {"op": "begin", "client": "codex", "prompt": "x", "integration_mode": "hooked"},
    {"op": "begin", "client": "codex", "prompt": "x", "session": 12},
    {"op": "pre-tool", "tool": "Bash"},
    {"op": "pre-tool", "admission_id": ADM},
    {"op": "pre-tool", "admission_id": 7, "tool": "Bash"},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "status": "ok"},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "duration_ms": -1},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "duration_ms": 1.5},
    {"op": "post-tool", "admission_id": ADM, "tool": "Bash", "duration_ms": "5"},
    {"op": "telemetry", "admission_id": ADM, "input_tokens": True},
    {"op": "telemetry", "admission_id": ADM, "cost_amount": -0.1},
    {"op": "telemetry", "admission_id": ADM, "cost_source": "guess"},
    {"op": "finalize"},
    {"op": "finalize", "admission_id": ADM, "stop_reason": "done"},
    {"op": "finalize", "admission_id": ADM, "changed_files": [1]},
    {"op": "abort", "admission_id": 5},
]


def generated_accepts(request: object) -> bool:
    try:
        _validate.validate(request)
    except _validate.JsonSchemaValueException:
        return False
    return True


def models_accept(request: object) -> bool:
    try:
        REQUEST_ADAPTER.validate_python(request)
    except ValidationError:
        return False
    return True


def test_the_generated_validator_is_up_to_date() -> None:
    committed = (ROOT / "caesar_core" / "bridge" / "_validate.py").read_text()
    assert committed == validator_source(), (
        "regenerate: .venv/bin/python -m caesar_core.protocol.lifecycle "
        "> caesar_core/bridge/_validate.py"
    )


def test_the_shipped_schema_is_the_test_fixture() -> None:
    shipped = (ROOT / "caesar_core" / "bridge" / "lifecycle.schema.json").read_bytes()
    assert shipped == (FIXTURES / "lifecycle.schema.json").read_bytes()


@pytest.mark.parametrize("request_", VALID, ids=lambda r: f"{r['op']}")
def test_valid_requests_pass_all_three(request_: dict[str, Any]) -> None:
    assert REQUEST.is_valid(request_)
    assert generated_accepts(request_)
    assert models_accept(request_)


@pytest.mark.parametrize("request_", INVALID, ids=str)
def test_invalid_requests_fail_all_three(request_: object) -> None:
    assert not REQUEST.is_valid(request_)
    assert not generated_accepts(request_)
    assert not models_accept(request_)


def test_every_response_of_a_lifecycle_fits_the_seed_and_our_model(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)  # Bridge validates each against the seed's bridgeResponse
    begun = bridge.begin()
    adm = begun["admission_id"]
    responses = [
        begun,
        bridge.pre(adm, "Bash", {"command": "ls"}, tool_use_id="1"),
        bridge.post(adm, "Bash", tool_use_id="1", result="out", duration_ms=3),
        bridge.telemetry(adm, input_tokens=1, cost_amount=0.2, cost_source="provider_reported"),
        bridge.finalize(adm, stop_reason="completed"),
        bridge({"op": "abort", "admission_id": bridge.begin()["admission_id"], "reason": "x"}),
        bridge({"op": "abort"}),
        bridge({"op": "pre-tool", "admission_id": adm, "tool": "Bash"}),
    ]
    for response in responses:
        RESPONSE_ADAPTER.validate_python(response)
    assert [r["decision"] for r in responses] == [
        "allow",
        "allow",
        "recorded",
        "recorded",
        "certified",
        "non_certified",
        "recorded",
        "error",
    ]


UNKNOWN = json.dumps({"op": "pre-tool", "admission_id": ADM, "tool": "Bash"}).encode()
EXTRA = b'{"op": "pre-tool", "admission_id": "a", "tool": "B", "tool_use_id": 1}'
MADE_UP = b'{"op": "finalize", "admission_id": "../../etc/passwd"}'
BAD_INPUT: list[tuple[str, bytes, str]] = [
    ("not json", b"{op: begin", "not JSON"),
    ("empty", b"", "not JSON"),
    ("not utf-8", b'{"op": "\xff"}', "not JSON"),
    ("an array", b"[1, 2]", "invalid request"),
    ("NaN", b'{"op": "telemetry", "admission_id": "a", "cost_amount": NaN}', "NaN is not JSON"),
    ("unknown op", b'{"op": "launch"}', "must be one of"),
    ("missing field", b'{"op": "begin", "client": "codex"}', "must contain"),
    ("mistyped field", b'{"op": "pre-tool", "admission_id": 1, "tool": "Bash"}', "string"),
    ("mistyped extra", EXTRA, "tool_use_id"),
    ("unknown admission", UNKNOWN, "unknown admission"),
    ("made-up admission", MADE_UP, "unknown admission"),
]


@pytest.mark.parametrize(
    ("stdin", "expected"), [c[1:] for c in BAD_INPUT], ids=[c[0] for c in BAD_INPUT]
)
def test_bad_input_is_an_error_response_never_a_traceback(
    tmp_path: Path, stdin: bytes, expected: str
) -> None:
    response = Bridge(tmp_path).run(stdin)  # asserts exit 0, empty stderr, schema-valid
    assert response["decision"] == "error"
    assert expected in response["reason"]
    assert not (tmp_path / "state" / "bridge" / "admissions").exists() or not any(
        p.suffix == ".lock" and "etc" in p.name
        for p in (tmp_path / "state" / "bridge" / "admissions").iterdir()
    )


def test_arguments_are_refused_with_a_response_and_help_is_plain_text(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    assert bridge.run(b"{}", "--surprise")["decision"] == "error"
    done = subprocess.run([CAESAR, "bridge", "--help"], capture_output=True, text=True, check=True)
    assert "caesar protocol schema lifecycle" in done.stdout


def test_protocol_schema_lifecycle_prints_our_schema() -> None:
    done = subprocess.run(
        [CAESAR, "protocol", "schema", "lifecycle"], capture_output=True, text=True, check=True
    )
    schema = json.loads(done.stdout)
    Draft202012Validator.check_schema(schema)
    assert {"BeginRequest", "PreToolRequest", "BridgeResponse", "Receipt"} <= set(schema["$defs"])
    validator = Draft202012Validator(schema)
    for request in VALID:
        assert validator.is_valid(request), request
    listing = subprocess.run(
        [CAESAR, "protocol", "schema"], capture_output=True, text=True, check=True
    ).stdout
    assert "lifecycle" in listing


def test_caesar_hook_refuses_an_unknown_client_with_exit_2() -> None:
    done = subprocess.run([CAESAR, "hook", "emacs"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "unknown client 'emacs'" in done.stderr
    assert "Traceback" not in done.stderr
    usage = subprocess.run([CAESAR, "hook", "--help"], capture_output=True, text=True, check=True)
    assert "claude-code" in usage.stdout
