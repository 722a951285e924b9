"""post-tool pairing, the cost rules, telemetry quality, downgrades, certification, receipts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bridge.core_support import Bridge


def full_turn(bridge: Bridge, **begin: Any) -> str:
    adm: str = bridge.begin(**begin)["admission_id"]
    bridge.pre(adm, "Bash", {"command": "ls"}, tool_use_id="u1")
    bridge.post(adm, "Bash", tool_use_id="u1", result="a b", duration_ms=4)
    return adm


# -- cost rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [None, "unavailable", "missing"])
def test_numbers_without_an_accurate_source_are_nulled_with_a_warning(
    tmp_path: Path, source: str | None
) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin()["admission_id"]
    numbers: dict[str, Any] = {"input_tokens": 10, "output_tokens": 5, "cost_amount": 0.3}
    if source != "missing":
        numbers["cost_source"] = source
    response = bridge.telemetry(adm, **numbers)
    assert response["decision"] == "recorded"
    assert response["telemetry_quality"] == "insufficient"
    (warning,) = response["warnings"]
    assert "input_tokens, output_tokens, cost_amount nulled" in warning
    line = bridge.trace_lines(response["trace_id"])[-1]
    assert line["input_tokens"] is None and line["cost_amount"] is None


def test_no_numbers_no_warning(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin()["admission_id"]
    response = bridge.telemetry(adm, model="m", runtime_ms=100, cost_source="unavailable")
    assert response["warnings"] == []
    assert response["telemetry_quality"] == "insufficient"


def report(source: str | None, **numbers: float) -> dict[str, Any]:
    return {"cost_source": source, **numbers}


@pytest.mark.parametrize(
    ("reports", "quality"),
    [
        ([], "insufficient"),
        ([report("provider_reported", input_tokens=1, cost_amount=0.1)], "complete"),
        ([report("sdk_result_message", output_tokens=1, cost_amount=0.1)], "complete"),
        ([report("provider_reported", input_tokens=1)], "partial"),
        ([report("provider_reported", cost_amount=0.1)], "partial"),
        ([report("statusline_estimate", input_tokens=1, cost_amount=0.1)], "partial"),
        ([report("session_delta", input_tokens=1, cost_amount=0.1)], "partial"),
        ([report("unavailable", input_tokens=1)], "insufficient"),
        (
            [
                report("provider_reported", input_tokens=1, cost_amount=0.1),
                report(None, input_tokens=9),
            ],
            "partial",
        ),
    ],
)
def test_telemetry_quality(tmp_path: Path, reports: list[dict[str, Any]], quality: str) -> None:
    bridge = Bridge(tmp_path)
    adm = full_turn(bridge)
    for report in reports:
        bridge.telemetry(adm, **report)
    final = bridge.finalize(adm)
    assert final["telemetry_quality"] == quality
    assert final["decision"] == ("non_certified" if quality == "insufficient" else "certified")


# -- pairing and counts -------------------------------------------------------------------------


def test_post_tool_pairs_by_tool_use_id_then_by_name_in_order(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin()["admission_id"]
    bridge.pre(adm, "Bash", {"command": "a"}, tool_use_id="A")
    bridge.pre(adm, "Bash", {"command": "b"}, tool_use_id="B")
    bridge.pre(adm, "Read", {"file_path": "r1"})
    bridge.pre(adm, "Read", {"file_path": "r2"})
    bridge.post(adm, "Bash", tool_use_id="B", status="error")
    bridge.post(adm, "Read")
    bridge.post(adm, "Read", status="timeout")
    bridge.post(adm, "Bash", tool_use_id="A")
    lines = bridge.trace_lines(bridge.admission(adm)["trace_id"])
    paired = [line["paired_with"] for line in lines if line["op"] == "post-tool"]
    assert paired == [2, 3, 4, 1]
    receipt = bridge.telemetry(adm, input_tokens=1, cost_source="provider_reported")
    final = bridge.finalize(adm)
    assert receipt["decision"] == "recorded"
    assert final["receipt"]["tool_calls"] == 4
    assert final["receipt"]["failures"] == 2
    assert final["decision"] == "certified"


# -- downgrades ---------------------------------------------------------------------------------


def test_a_tool_without_pre_tool_downgrades_to_observed_only(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = full_turn(bridge, integration_mode="managed_hook")
    response = bridge.post(adm, "WebSearch", tool_use_id="ghost")
    assert "matched no pre-tool" in response["warnings"][0]
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    final = bridge.finalize(adm)
    assert final["integration_mode"] == "observed_only"
    assert final["certification_strength"] == "observed_only"
    assert final["decision"] == "non_certified"
    assert any("downgraded from managed_hook" in w for w in final["warnings"])
    assert final["receipt"]["tool_calls"] == 2


def test_no_pre_tool_at_all_downgrades(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin(integration_mode="casan_owned")["admission_id"]
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    final = bridge.finalize(adm)
    assert final["certification_strength"] == "observed_only"
    assert "no pre-tool call reached the bridge" in " ".join(final["warnings"])


def test_a_refused_call_that_ran_anyway_downgrades(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    bridge.config('[[bridge.rule]]\ntool = "Bash"\ndecision = "deny"\n')
    adm = bridge.begin()["admission_id"]
    assert bridge.pre(adm, "Bash", {"command": "x"}, tool_use_id="1")["decision"] == "deny"
    response = bridge.post(adm, "Bash", tool_use_id="1", status="success")
    assert "ran although the bridge answered deny" in response["warnings"][0]
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    assert bridge.finalize(adm)["certification_strength"] == "observed_only"


def test_a_refused_call_reported_denied_does_not_downgrade(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    bridge.config('[[bridge.rule]]\ntool = "Bash"\ndecision = "deny"\n')
    adm = bridge.begin()["admission_id"]
    bridge.pre(adm, "Bash", {"command": "x"}, tool_use_id="1")
    bridge.post(adm, "Bash", tool_use_id="1", status="denied")
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    assert bridge.finalize(adm)["decision"] == "certified"


@pytest.mark.parametrize("declared", [None, "observed_only"])
def test_the_mode_is_never_upgraded(tmp_path: Path, declared: str | None) -> None:
    bridge = Bridge(tmp_path)
    adm = full_turn(bridge, integration_mode=declared)
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    final = bridge.finalize(adm)
    assert final["certification_strength"] == "observed_only"
    assert final["decision"] == "non_certified"
    assert "integration mode observed_only" in final["reason"]


@pytest.mark.parametrize("declared", ["casan_owned", "managed_hook", "project_hook"])
def test_enforcing_modes_with_evidence_are_certified(tmp_path: Path, declared: str) -> None:
    bridge = Bridge(tmp_path)
    adm = full_turn(bridge, integration_mode=declared)
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="statusline_estimate")
    final = bridge.finalize(adm)
    assert (final["decision"], final["certification_strength"]) == ("certified", declared)
    assert final["receipt"]["certified"] is True


# -- finalize, abort, receipts ------------------------------------------------------------------


def test_finalize_writes_the_receipt_to_the_spool_and_fsyncs_the_trace(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    clock = [1000.0]
    adm = bridge(
        {"op": "begin", "client": "codex", "prompt": "p", "project": str(bridge.project)},
        now=lambda: clock[0],
    )["admission_id"]
    clock[0] = 1002.5
    final = bridge({"op": "finalize", "admission_id": adm}, now=lambda: clock[0])
    receipt = final["receipt"]
    spool = tmp_path / "state" / "bridge" / "spool" / f"{final['trace_id']}.json"
    assert json.loads(spool.read_text()) == receipt
    assert receipt["duration_ms"] == 2500
    assert receipt["delivery"] == "local_spool"
    assert receipt["schema_version"] == 1
    assert receipt["finalized_at"] == "1970-01-01T00:16:42.500Z"
    assert Path(receipt["trace_path"]).is_file()
    assert set(receipt) >= {
        "trace_id", "project_id", "decision", "certified", "certification_strength",
        "telemetry_quality", "telemetry_warnings", "tool_calls", "failures", "finalized_at",
    }  # fmt: skip
    again = bridge.finalize(adm)
    assert again["receipt"] == receipt
    assert "already closed" in again["warnings"][0]


def test_abort_is_never_certified_and_keeps_only_a_redacted_reason(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = full_turn(bridge)
    bridge.telemetry(adm, input_tokens=1, cost_amount=1.0, cost_source="provider_reported")
    token = "ghp_" + "A" * 36
    response = bridge({"op": "abort", "admission_id": adm, "reason": f"crashed with {token}"})
    assert response["decision"] == "non_certified"
    assert response["reason"] == "not certified: aborted: crashed with [REDACTED:github_token]"
    assert token not in json.dumps(bridge.trace_lines(response["trace_id"]))
    assert response["receipt"]["certified"] is False
    assert bridge.post(adm, "Bash")["decision"] == "error"


def test_a_blocked_admission_is_not_certified(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    adm = bridge.begin("key AKIAIOSFODNN7EXAMPLE")["admission_id"]
    final = bridge.finalize(adm)
    assert final["decision"] == "non_certified"
    assert "prompt blocked at begin" in final["reason"]
