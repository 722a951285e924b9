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
  Every string the bridge writes (admissions, trace lines, receipts, approvals, task events)
  or answers goes through the scanner first (:func:`caesar_core.bridge.scan.dumps`): a secret
  in a tool name, a call id, a project path or a client version is redacted like one in a
  prompt.
* Any input is answered: lone surrogates become U+FFFD (:mod:`caesar_core.bridge.inputs`);
  nesting deeper than 64 levels, an unknown op or a wrong type is an ``error`` whose reason
  quotes nothing of the request.
"""

from __future__ import annotations

import time

from caesar_core.bridge import evidence, gate, policy
from caesar_core.bridge.inputs import TooDeepError, well_formed
from caesar_core.bridge.ops import BadRequest, error
from caesar_core.bridge.state import State, StateError, state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path skips typing and collections (~4 ms of imports)
    from collections.abc import Callable, Mapping
    from typing import Any

    from caesar_core.bridge.ops import Clock, Response

__all__ = ["error", "handle"]


def handle(request: object, *, env: Mapping[str, str], now: Clock = time.time) -> Response:
    """Serve one request; never raises (see the module docstring)."""
    op = request.get("op") if isinstance(request, dict) else None
    op_name = op if isinstance(op, str) and op in _OPS else "unknown"  # never echo the input
    try:
        request = well_formed(request)
        _check(request)
        assert isinstance(request, dict)
        return _OPS[op_name](request, State(state_dir(env)), env, now)
    except TooDeepError as problem:
        return error(op_name, f"invalid request: {problem}")
    except (BadRequest, policy.PolicyError) as problem:
        return error(op_name, str(problem), request)
    except (StateError, OSError) as problem:
        return error(op_name, f"bridge state unavailable: {problem}", request)
    except Exception as problem:  # the contract: a response, never a traceback
        # The type only: an exception's text may quote the input we must not repeat.
        return error(op_name, f"internal error ({type(problem).__name__})", request)


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


_OPS: dict[str, Callable[[dict[str, Any], State, Mapping[str, str], Clock], Response]] = {
    "begin": gate.begin,
    "pre-tool": gate.pre_tool,
    "post-tool": evidence.post_tool,
    "telemetry": evidence.telemetry,
    "finalize": evidence.finalize,
    "abort": evidence.abort,
}
