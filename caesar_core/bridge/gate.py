"""Admission and gating ops of the bridge: ``begin`` (admit a turn) and ``pre-tool`` (policy,
and a hold for a person when a rule requires approval).

Stdlib only at module level (the hot path); the promises are in :mod:`caesar_core.bridge.core`.
"""

from __future__ import annotations

import os

from caesar_core.bridge import cjson, policy, scan
from caesar_core.bridge.ops import BadRequest, digest, known, load, record, require_open, respond
from caesar_core.bridge.state import State, new_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from caesar_core.bridge.ops import Clock, Response

MAX_PENDING = 256
"""Pre-tools kept for pairing; beyond this the oldest unanswered are forgotten (still counted)."""


def begin(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    given = request.get("project") or os.getcwd()
    if "\0" in given:
        raise BadRequest("invalid request: the project path holds a NUL character")
    project = os.path.realpath(given)
    # Kept redacted, and redacted before canonicalizing: realpath folds "https://u:p@h" into
    # "https:/u:p@h", which no longer reads as a URL with a password.
    shown = scan.redact(given)
    settings = policy.settings(project, env)
    task, warnings = policy.task_constraints(env)
    warnings += policy.ignored_rules(settings)
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
        "project": project if shown == given else os.path.realpath(shown),
        "project_id": state.hash("project", project),
        "session_hash": digest(state, "session", request.get("session")),
        "turn_hash": digest(state, "turn", request.get("turn")),
        "actor_hash": digest(state, "actor", request.get("actor")),
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
        record(
            state,
            admission,
            now,
            {"op": "begin", "decision": decision, "reason": reason, **line, **hashes}
            | {"secrets": admission["secrets"], "injections": admission["injections"]},
        )
        state.write_admission(admission, durable=True)
    return respond("begin", decision, admission, reason=reason, warnings=warnings)


def pre_tool(request: dict[str, Any], state: State, env: Mapping[str, str], now: Clock) -> Response:
    tool: str = request["tool"]
    summary = scan.summary(request.get("tool_input"))
    found = scan.secret_kinds(cjson.dumps(request.get("tool_input"), default=str))
    use = digest(state, "tool_use", request.get("tool_use_id"))
    line: dict[str, Any] = {
        "op": "pre-tool",
        "tool": tool,
        "summary": summary,
        "input_hash": digest(state, "tool_input", request.get("tool_input")),
        "tool_use": use,
        "secrets": list(found),
    }
    admission_id = known(state, request)
    with state.locked(admission_id):
        admission = load(state, admission_id)
        require_open(admission)
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
            return respond("pre-tool", decision, admission, reason=reason)
        record(
            state, admission, now, {**line, "decision": "require_approval", "rule": ruling.source}
        )
        state.write_admission(admission)
    decision, reason, approval_id, by = _hold(admission, tool, summary, ruling.reason)
    with state.locked(admission_id):
        admission = load(state, admission_id)
        if admission.get("closed"):  # finalized while a person decided: the turn is over
            reason = f"{reason}; but the admission was closed meanwhile"
            return respond("pre-tool", "deny", admission, reason=reason)
        stopped = policy.stopped(admission)  # halted or quarantined meanwhile: that wins
        if stopped is not None and decision == "allow":
            decision, reason = stopped.decision, f"{reason}; but {stopped.reason}"
        line["approval_id"] = approval_id
        _settle(state, admission, now, line, decision, reason, ruling.source)
        state.write_admission(admission)
    # Who decided, for adapters: a person's allow needs no second prompt in the client.
    return respond("pre-tool", decision, admission, reason=reason, decided_by=by)


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
    record(state, admission, now, {**line, "decision": decision, "reason": reason, "rule": source})


def _hold(
    admission: Mapping[str, Any], tool: str, summary: str, why: str
) -> tuple[str, str, str, str]:
    from caesar_core.bridge.approve import hold  # pathlib and fs: only when someone must decide

    return hold(admission, tool, summary, why)
