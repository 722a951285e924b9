"""Evidence ops of the bridge: ``post-tool`` (paired with its pre-tool), ``telemetry``, and
``finalize`` / ``abort``, which close the admission and write its receipt to the spool.

Stdlib only at module level (the hot path); the promises are in :mod:`caesar_core.bridge.core`.
"""

from __future__ import annotations

from caesar_core.bridge import scan, trace
from caesar_core.bridge.ops import (
    as_json,
    digest,
    error,
    iso,
    known,
    load,
    record,
    require_open,
    respond,
)
from caesar_core.bridge.state import State, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from caesar_core.bridge.ops import Clock, Response


def post_tool(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    tool: str = request["tool"]
    stored = scan.redact(tool)  # as the pre-tool's name was written: pairing compares these
    status = request.get("status")
    use = digest(state, "tool_use", request.get("tool_use_id"))
    result_hash = digest(state, "tool_result", request.get("result"))
    warnings: list[str] = []
    admission_id = known(state, request)
    with state.locked(admission_id):
        admission = load(state, admission_id)
        require_open(admission)
        counts = admission["counts"]
        counts["post_tool"] += 1
        paired = _pair(admission["pending"], stored, use)
        if paired is None:
            counts["unpaired_post"] += 1
            warnings.append(f"post-tool for {tool} matched no pre-tool: the gate was bypassed")
        elif paired["decision"] != "allow" and status == "success":
            counts["bypassed"] += 1
            warnings.append(f"{tool} ran although the bridge answered {paired['decision']}")
        if status in ("error", "timeout"):
            counts["failures"] += 1
        record(
            state,
            admission,
            now,
            {
                "op": "post-tool",
                "tool": tool,
                "status": status,
                "duration_ms": request.get("duration_ms"),
                "result_hash": result_hash,
                "tool_use": use,
                "paired_with": paired["n"] if paired else None,
                "decision": "recorded",
            },
        )
        state.write_admission(admission)
    return respond("post-tool", "recorded", admission, warnings=warnings)


def _pair(pending: list[dict[str, Any]], tool: str, use: str | None) -> dict[str, Any] | None:
    """Remove and return the pre-tool this post-tool answers: same call id, else FIFO by name."""
    for index, entry in enumerate(pending):
        if use is not None and entry["use"] == use:
            return pending.pop(index)
    for index, entry in enumerate(pending):
        if entry["tool"] == tool and (use is None or entry["use"] is None):
            return pending.pop(index)
    return None


def telemetry(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    kept, warnings = trace.clean_telemetry(request)
    admission_id = known(state, request)
    with state.locked(admission_id):
        admission = load(state, admission_id)
        require_open(admission)
        admission["telemetry"] = trace.fold_telemetry(admission["telemetry"], kept, bool(warnings))
        admission["telemetry_warnings"] = list(
            dict.fromkeys([*admission["telemetry_warnings"], *warnings])
        )
        extra = {"model": request.get("model"), "runtime_ms": request.get("runtime_ms")}
        record(state, admission, now, {"op": "telemetry", "decision": "recorded", **kept, **extra})
        state.write_admission(admission)
    quality = trace.quality(admission["telemetry"])
    return respond("telemetry", "recorded", admission, telemetry_quality=quality, warnings=warnings)


def finalize(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    return _close(request, state, now, aborted=False)


def abort(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    if request.get("admission_id") is None:
        return {
            **error("abort", "nothing to abort: no admission_id"),
            "decision": "recorded",
        }
    return _close(request, state, now, aborted=True)


def _close(request: dict[str, Any], state: State, now: Clock, *, aborted: bool) -> Response:
    op = "abort" if aborted else "finalize"
    admission_id = known(state, request)
    with state.locked(admission_id):
        admission = load(state, admission_id)
        if admission.get("closed"):
            receipt = admission["receipt"]
            again = f"admission already closed by {admission['closed']}; its receipt is unchanged"
            return respond(op, receipt["decision"], admission, receipt=receipt, warnings=[again])
        mode, warnings = trace.effective_mode(admission)
        quality = trace.quality(admission["telemetry"])
        certified = trace.certify(admission, mode, quality, aborted=aborted)
        decision = "certified" if certified else "non_certified"
        reason = trace.why_not(admission, mode, quality, aborted) if not certified else None
        warnings = [*warnings, *admission["telemetry_warnings"]]
        given = request.get("reason") if aborted else None
        path = state.trace_path(admission["trace_id"])
        record(
            state,
            admission,
            now,
            {
                "op": op,
                "decision": decision,
                "reason": reason,
                "stop_reason": request.get("stop_reason"),
                "abort_reason_hash": digest(state, "abort_reason", given),
                "summary_hash": digest(
                    state, "assistant_summary", request.get("assistant_summary")
                ),
                "changed_files": len(request.get("changed_files") or []),
                "changed_files_hash": digest(state, "changed_files", request.get("changed_files")),
                "integration_mode": mode,
                "telemetry_quality": quality,
            },
        )
        trace.sync(path)
        receipt = trace.receipt(
            admission,
            decision=decision,
            certified=certified,
            mode=mode,
            quality=quality,
            trace_path=path,
            duration_ms=max(0, round((now() - float(admission["created_at"])) * 1000)),
            finalized_at=iso(now()),
        )
        replace(state.spool_path(admission["trace_id"]), as_json(receipt), durable=True)
        admission.update(closed=op, receipt=receipt, pending=[])
        state.write_admission(admission, durable=True)
    if given:  # free text from the client: answered redacted, kept only as a hash
        reason = f"{reason}: {scan.clip(scan.redact(given))}"
    return respond(
        op,
        decision,
        admission,
        integration_mode=mode,
        certification_strength=mode,
        telemetry_quality=quality,
        reason=reason,
        warnings=warnings,
        receipt=receipt,
    )
