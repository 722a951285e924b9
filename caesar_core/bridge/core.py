"""The bridge: one lifecycle request in, one ``bridgeResponse`` out, evidence on disk.

:func:`handle` never raises and always answers a seed-valid response; anything wrong with the
request (or with the machine) is decision ``error`` with a reason. It is stdlib only except
begin, which loads the layered configuration (pydantic) once and stores the resolved
``[[bridge.rule]]`` list, approval settings and task constraints in the admission, so the
per-tool-call ops never import pydantic. The client adapters call it in-process; ``caesar
bridge`` calls it from stdin.

Promises (the README quotes these):

* begin: a new ``admission_id`` (``adm_`` + 32 hex) and ``trace_id`` (``trc_`` + 32 hex); the
  project path canonicalized (realpath); session, turn and actor ids kept only as salted
  HMAC-SHA256; the prompt scanned (:mod:`caesar_core.bridge.scan`) then discarded, only its
  salted hash and the verdict kept. A secret in the prompt blocks the turn with a reason
  naming the KIND of secret, never its value; injection markers quarantine the admission
  (every later pre-tool is denied); otherwise allow.
* pre-tool: :mod:`caesar_core.bridge.policy` decides; only a redacted summary (<= 200 chars)
  and a salted hash of the input are stored. ``require_approval`` asks in the task directory
  and waits (:mod:`caesar_core.bridge.approve`), then answers ``allow`` or ``deny``; without a
  task directory nobody can approve, so it denies. ``halt`` and ``quarantine`` also mark the
  admission: later calls are denied.
* post-tool: status, duration and a salted hash of the result; paired with its pre-tool by
  ``tool_use_id`` when given, else with the oldest unpaired pre-tool of the same tool name.
* telemetry / finalize / abort: see :mod:`caesar_core.bridge.trace` for the telemetry,
  downgrade and certification rules; finalize and abort fsync the trace and write the receipt
  to the spool. A closed admission answers ``error`` to further calls, except a repeated
  finalize or abort, which answers the stored receipt again.
* Nothing raw is ever persisted: no prompt, tool input, tool result, session id or secret.
"""

from __future__ import annotations

import json
import os
import time

from caesar_core.bridge import policy, scan, trace
from caesar_core.bridge.state import State, StateError, new_id, replace, state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path skips typing and collections (~4 ms of imports)
    from collections.abc import Callable, Mapping
    from typing import Any

    Clock = Callable[[], float]
    Response = dict[str, Any]

SCHEMA_VERSION = "caesar.lifecycle/v1"
MAX_PENDING = 256
"""Pre-tools kept for pairing; beyond this the oldest unanswered are forgotten (still counted)."""


class BadRequest(Exception):
    """The request cannot be served; the message is the response's reason."""


def handle(request: object, *, env: Mapping[str, str], now: Clock = time.time) -> Response:
    """Serve one request; never raises (see the module docstring)."""
    op = request.get("op") if isinstance(request, dict) else None
    op_name = op if isinstance(op, str) else "unknown"
    try:
        _check(request)
        assert isinstance(request, dict)
        return _OPS[op_name](request, State(state_dir(env)), env, now)
    except (BadRequest, policy.PolicyError) as problem:
        return error(op_name, str(problem), request)
    except (StateError, OSError) as problem:
        return error(op_name, f"bridge state unavailable: {problem}", request)
    except Exception as problem:  # the contract: a response, never a traceback
        # The type only: an exception's text may quote the input we must not repeat.
        return error(op_name, f"internal error ({type(problem).__name__})", request)


def error(op: str, reason: str, request: object = None) -> Response:
    admission = request.get("admission_id") if isinstance(request, dict) else None
    return {
        "op": op,
        "decision": "error",
        "schema_version": SCHEMA_VERSION,
        "admission_id": admission if isinstance(admission, str) else None,
        "trace_id": None,
        "reason": reason,
        "warnings": [],
    }


def _check(request: object) -> None:
    from caesar_core.bridge._validate import JsonSchemaValueException, validate

    try:
        validate(request)
    except JsonSchemaValueException as problem:
        raise BadRequest(f"invalid request: {problem.message}") from None
    assert isinstance(request, dict)
    for key in ("tool_use_id",):  # our optional extras, unknown to the seed schema
        if request.get(key) is not None and not isinstance(request[key], str):
            raise BadRequest(f"invalid request: data.{key} must be string or null")


def _respond(op: str, decision: str, admission: Mapping[str, Any], **fields: Any) -> Response:
    return {
        "op": op,
        "decision": decision,
        "schema_version": SCHEMA_VERSION,
        "admission_id": admission["admission_id"],
        "trace_id": admission["trace_id"],
        "integration_mode": admission.get("declared_mode"),
        "reason": None,
        "warnings": [],
        **fields,
    }


def _iso(moment: float) -> str:
    """ISO 8601 UTC with milliseconds, like event ``at`` (without importing datetime)."""
    whole = int(moment)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        + f".{int((moment - whole) * 1000):03d}Z"
    )


def _digest(state: State, purpose: str, value: object) -> str | None:
    """Salted hash of any JSON value; None stays None (nothing was given)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return state.hash(purpose, text)


def _record(state: State, admission: dict[str, Any], now: Clock, line: dict[str, Any]) -> None:
    """Append one trace line; the caller holds the admission's lock and saves it after."""
    admission["seq"] = int(admission.get("seq", 0)) + 1
    trace.append(
        state.trace_path(admission["trace_id"]),
        {"seq": admission["seq"], "at": _iso(now()), **line},
    )


def _known(state: State, request: Mapping[str, Any]) -> str:
    """The request's admission id if that admission exists, else :class:`BadRequest`.

    Checked before locking, so a made-up id never names a lock file.
    """
    admission_id = request.get("admission_id")
    if not isinstance(admission_id, str) or state.read_admission(admission_id) is None:
        raise BadRequest(f"unknown admission {admission_id!r}: send begin first")
    return admission_id


def _load(state: State, admission_id: str) -> dict[str, Any]:
    """The admission, re-read under its lock (admissions are never deleted)."""
    admission = state.read_admission(admission_id)
    if admission is None:
        raise BadRequest(f"unknown admission {admission_id!r}: send begin first")
    return admission


def _require_open(admission: Mapping[str, Any]) -> None:
    if admission.get("closed"):
        raise BadRequest(f"admission {admission['admission_id']} is closed ({admission['closed']})")


# -- begin --------------------------------------------------------------------------------------


def _begin(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    project = os.path.realpath(request.get("project") or os.getcwd())
    settings = policy.settings(project, env)
    task, warnings = policy.task_constraints(env)
    prompt: str = request["prompt"]
    secrets, injections = scan.secret_kinds(prompt), scan.injection_kinds(prompt)
    if secrets:
        decision = "block"
        reason = (
            f"the prompt contains a secret ({', '.join(secrets)}); "
            "remove it and send the prompt again"
        )
    elif injections:
        decision = "quarantine"
        reason = f"prompt-injection markers ({', '.join(injections)})"
    else:
        decision, reason = "allow", None
    admission: dict[str, Any] = {
        "admission_id": new_id("adm"),
        "trace_id": new_id("trc"),
        "created_at": now(),
        "client": request["client"],
        "client_version": request.get("client_version"),
        "adapter_version": request.get("adapter_version"),
        "declared_mode": request.get("integration_mode") or "observed_only",
        "project": project,
        "project_id": state.hash("project", project),
        "session_hash": _digest(state, "session", request.get("session")),
        "turn_hash": _digest(state, "turn", request.get("turn")),
        "actor_hash": _digest(state, "actor", request.get("actor")),
        "prompt_hash": state.hash("prompt", prompt),
        "begin_decision": decision,
        "secrets": list(secrets),
        "injections": list(injections),
        "quarantined": decision == "quarantine",
        "quarantine_reason": reason if decision == "quarantine" else None,
        "halted": False,
        "closed": None,
        "task": task,
        **settings,
        "counts": {"pre_tool": 0, "post_tool": 0, "unpaired_post": 0, "bypassed": 0, "failures": 0},
        "pending": [],
        "telemetry": {},
        "telemetry_warnings": [],
        "seq": 0,
    }
    with state.locked(admission["admission_id"]):
        line = {key: admission[key] for key in ("client", "declared_mode", "project_id")}
        hashes = {key: admission[key] for key in ("session_hash", "turn_hash", "prompt_hash")}
        _record(
            state,
            admission,
            now,
            {"op": "begin", "decision": decision, "reason": reason, **line, **hashes}
            | {"secrets": admission["secrets"], "injections": admission["injections"]},
        )
        state.write_admission(admission, durable=True)
    return _respond("begin", decision, admission, reason=reason, warnings=warnings)


# -- pre-tool and post-tool ---------------------------------------------------------------------


def _pre_tool(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    tool: str = request["tool"]
    summary = scan.summary(request.get("tool_input"))
    found = scan.secret_kinds(json.dumps(request.get("tool_input"), default=str))
    use = _digest(state, "tool_use", request.get("tool_use_id"))
    line: dict[str, Any] = {
        "op": "pre-tool",
        "tool": tool,
        "summary": summary,
        "input_hash": _digest(state, "tool_input", request.get("tool_input")),
        "tool_use": use,
        "secrets": list(found),
    }
    admission_id = _known(state, request)
    with state.locked(admission_id):
        admission = _load(state, admission_id)
        _require_open(admission)
        ruling = policy.decide(admission, tool, summary)
        admission["counts"]["pre_tool"] += 1
        line["n"] = admission["counts"]["pre_tool"]
        if ruling.decision == "halt":
            admission["halted"] = True
        elif ruling.decision == "quarantine":
            admission["quarantined"] = True
            admission["quarantine_reason"] = ruling.reason
        asking = ruling.decision == "require_approval" and bool(
            (admission["task"] or {}).get("dir")
        )
        if not asking:
            decision, reason = ruling.decision, ruling.reason or None
            if decision == "require_approval":
                decision = "deny"
                reason = (
                    f"{ruling.reason or 'approval required'}; no one can approve: the agent "
                    f"runs outside a caesar task (no {policy.ENV_TASK_DIR} at begin)"
                )
            _settle(state, admission, now, line, decision, reason, ruling.source)
            state.write_admission(admission)
            return _respond("pre-tool", decision, admission, reason=reason)
        _record(
            state, admission, now, {**line, "decision": "require_approval", "rule": ruling.source}
        )
        state.write_admission(admission)
    decision, reason, approval_id = _hold(admission, tool, summary, ruling.reason)
    with state.locked(admission_id):
        admission = _load(state, admission_id)
        if admission.get("closed"):  # finalized while a person decided: the turn is over
            reason = f"{reason}; but the admission was closed meanwhile"
            return _respond("pre-tool", "deny", admission, reason=reason)
        stopped = policy.stopped(admission)  # halted or quarantined meanwhile: that wins
        if stopped is not None and decision == "allow":
            decision, reason = stopped.decision, f"{reason}; but {stopped.reason}"
        line["approval_id"] = approval_id
        _settle(state, admission, now, line, decision, reason, ruling.source)
        state.write_admission(admission)
    return _respond("pre-tool", decision, admission, reason=reason)


def _settle(
    state: State,
    admission: dict[str, Any],
    now: Clock,
    line: dict[str, Any],
    decision: str,
    reason: str | None,
    source: str,
) -> None:
    """Record the final decision of a pre-tool and queue it for pairing with its post-tool."""
    pending = admission["pending"]
    pending.append(
        {"n": line["n"], "tool": line["tool"], "use": line["tool_use"], "decision": decision}
    )
    del pending[:-MAX_PENDING]  # a client that never sends post-tool must not grow this forever
    _record(state, admission, now, {**line, "decision": decision, "reason": reason, "rule": source})


def _hold(admission: Mapping[str, Any], tool: str, summary: str, why: str) -> tuple[str, str, str]:
    from caesar_core.bridge.approve import hold  # pathlib and fs: only when someone must decide

    return hold(admission, tool, summary, why)


def _post_tool(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    tool: str = request["tool"]
    status = request.get("status")
    use = _digest(state, "tool_use", request.get("tool_use_id"))
    result_hash = _digest(state, "tool_result", request.get("result"))
    warnings: list[str] = []
    admission_id = _known(state, request)
    with state.locked(admission_id):
        admission = _load(state, admission_id)
        _require_open(admission)
        counts = admission["counts"]
        counts["post_tool"] += 1
        paired = _pair(admission["pending"], tool, use)
        if paired is None:
            counts["unpaired_post"] += 1
            warnings.append(f"post-tool for {tool} matched no pre-tool: the gate was bypassed")
        elif paired["decision"] != "allow" and status == "success":
            counts["bypassed"] += 1
            warnings.append(f"{tool} ran although the bridge answered {paired['decision']}")
        if status in ("error", "timeout"):
            counts["failures"] += 1
        _record(
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
    return _respond("post-tool", "recorded", admission, warnings=warnings)


def _pair(pending: list[dict[str, Any]], tool: str, use: str | None) -> dict[str, Any] | None:
    """Remove and return the pre-tool this post-tool answers: same call id, else FIFO by name."""
    for index, entry in enumerate(pending):
        if use is not None and entry["use"] == use:
            return pending.pop(index)
    for index, entry in enumerate(pending):
        if entry["tool"] == tool and (use is None or entry["use"] is None):
            return pending.pop(index)
    return None


# -- telemetry, finalize, abort -----------------------------------------------------------------


def _telemetry(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    kept, warnings = trace.clean_telemetry(request)
    admission_id = _known(state, request)
    with state.locked(admission_id):
        admission = _load(state, admission_id)
        _require_open(admission)
        admission["telemetry"] = trace.fold_telemetry(admission["telemetry"], kept, bool(warnings))
        admission["telemetry_warnings"] = list(
            dict.fromkeys([*admission["telemetry_warnings"], *warnings])
        )
        extra = {"model": request.get("model"), "runtime_ms": request.get("runtime_ms")}
        _record(state, admission, now, {"op": "telemetry", "decision": "recorded", **kept, **extra})
        state.write_admission(admission)
    quality = trace.quality(admission["telemetry"])
    return _respond(
        "telemetry", "recorded", admission, telemetry_quality=quality, warnings=warnings
    )


def _finalize(
    request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock
) -> Response:
    return _close(request, state, now, aborted=False)


def _abort(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    if request.get("admission_id") is None:
        return {
            **error("abort", "nothing to abort: no admission_id"),
            "decision": "recorded",
        }
    return _close(request, state, now, aborted=True)


def _close(request: dict[str, Any], state: State, now: Clock, *, aborted: bool) -> Response:
    op = "abort" if aborted else "finalize"
    admission_id = _known(state, request)
    with state.locked(admission_id):
        admission = _load(state, admission_id)
        if admission.get("closed"):
            receipt = admission["receipt"]
            again = f"admission already closed by {admission['closed']}; its receipt is unchanged"
            return _respond(op, receipt["decision"], admission, receipt=receipt, warnings=[again])
        mode, warnings = trace.effective_mode(admission)
        quality = trace.quality(admission["telemetry"])
        certified = trace.certify(admission, mode, quality, aborted=aborted)
        decision = "certified" if certified else "non_certified"
        reason = trace.why_not(admission, mode, quality, aborted) if not certified else None
        warnings = [*warnings, *admission["telemetry_warnings"]]
        given = request.get("reason") if aborted else None
        path = state.trace_path(admission["trace_id"])
        _record(
            state,
            admission,
            now,
            {
                "op": op,
                "decision": decision,
                "reason": reason,
                "stop_reason": request.get("stop_reason"),
                "abort_reason_hash": _digest(state, "abort_reason", given),
                "summary_hash": _digest(
                    state, "assistant_summary", request.get("assistant_summary")
                ),
                "changed_files": len(request.get("changed_files") or []),
                "changed_files_hash": _digest(state, "changed_files", request.get("changed_files")),
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
            finalized_at=_iso(now()),
        )
        replace(state.spool_path(admission["trace_id"]), _json(receipt), durable=True)
        admission.update(closed=op, receipt=receipt, pending=[])
        state.write_admission(admission, durable=True)
    if given:  # free text from the client: answered redacted, kept only as a hash
        reason = f"{reason}: {scan.clip(scan.redact(given))}"
    return _respond(
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


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()


_OPS: dict[str, Callable[[dict[str, Any], State, Mapping[str, str], Clock], Response]] = {
    "begin": _begin,
    "pre-tool": _pre_tool,
    "post-tool": _post_tool,
    "telemetry": _telemetry,
    "finalize": _finalize,
    "abort": _abort,
}
