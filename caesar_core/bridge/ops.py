"""What every bridge op shares: the response shape, admission lookup, trace lines, hashing.

Stdlib only, like everything :mod:`caesar_core.bridge.core` imports at module level: it runs
once per tool call.
"""

from __future__ import annotations

import time

from caesar_core.bridge import cjson, scan, trace
from caesar_core.bridge.state import State, valid_id

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path skips typing and collections (~4 ms of imports)
    from collections.abc import Callable, Mapping
    from typing import Any

    Clock = Callable[[], float]
    Response = dict[str, Any]

SCHEMA_VERSION = "caesar.lifecycle/v1"


class BadRequest(Exception):
    """The request cannot be served; the message is the response's reason."""


def error(op: str, reason: str, request: object = None) -> Response:
    admission = request.get("admission_id") if isinstance(request, dict) else None
    return {
        "op": op,
        "decision": "error",
        "schema_version": SCHEMA_VERSION,
        "admission_id": admission if _an_id(admission) else None,
        "trace_id": None,
        "reason": reason,
        "warnings": [],
    }


def _an_id(value: object) -> bool:
    """An admission id of the shape the bridge makes: the only request text an error repeats."""
    return isinstance(value, str) and valid_id(value, "adm")


def respond(op: str, decision: str, admission: Mapping[str, Any], **fields: Any) -> Response:
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


def iso(moment: float) -> str:
    """ISO 8601 UTC with milliseconds, like event ``at`` (without importing datetime)."""
    whole = int(moment)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        + f".{int((moment - whole) * 1000):03d}Z"
    )


def digest(state: State, purpose: str, value: object) -> str | None:
    """Salted hash of any JSON value; None stays None (nothing was given)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else cjson.dumps(value, sort_keys=True, default=str)
    return state.hash(purpose, text)


def record(state: State, admission: dict[str, Any], now: Clock, line: dict[str, Any]) -> None:
    """Append one trace line; the caller holds the admission's lock and saves it after."""
    admission["seq"] = int(admission.get("seq", 0)) + 1
    trace.append(
        state.trace_path(admission["trace_id"]),
        {"seq": admission["seq"], "at": iso(now()), **line},
    )


def known(state: State, request: Mapping[str, Any]) -> str:
    """The request's admission id if that admission exists, else :class:`BadRequest`.

    Checked before locking, so a made-up id never names a lock file.
    """
    admission_id = request.get("admission_id")
    if not isinstance(admission_id, str) or not _an_id(admission_id):
        raise BadRequest("unknown admission (not an admission id the bridge made): send begin")
    if state.read_admission(admission_id) is None:
        raise BadRequest(f"unknown admission {admission_id!r}: send begin first")
    return admission_id


def load(state: State, admission_id: str) -> dict[str, Any]:
    """The admission, re-read under its lock (admissions are never deleted)."""
    admission = state.read_admission(admission_id)
    if admission is None:
        raise BadRequest(f"unknown admission {admission_id!r}: send begin first")
    return admission


def require_open(admission: Mapping[str, Any]) -> None:
    if admission.get("closed"):
        raise BadRequest(f"admission {admission['admission_id']} is closed ({admission['closed']})")


def as_json(value: Any) -> bytes:
    """A document as the bridge writes it: every string scanned (:func:`scan.dumps`)."""
    return (scan.dumps(value, indent=2, sort_keys=True) + "\n").encode()
