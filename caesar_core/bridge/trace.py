"""The evidence of one admission: trace lines, telemetry quality, certification, the receipt.

A trace is ``bridge/traces/<trace_id>.jsonl``: one JSON object per line, each written by a
single ``O_APPEND`` write while the admission's flock is held, so concurrent hook processes
never interleave or lose a line. It is fsynced when the admission closes (finalize/abort).
Lines hold hashes, verdicts, kinds and redacted summaries; never a raw prompt, tool input,
tool result or session id, and every string in them has gone through the scanner.

Rules (the bridge's promises, quoted in the README):

* **Telemetry numbers.** A report whose ``cost_source`` is missing, null or ``unavailable``
  has its token and cost numbers nulled, with a warning naming the fields (the seed's rule:
  numbers without an accurate source are null).
* **Telemetry quality**, over all reports of the admission: ``complete`` when some report
  carried tokens AND a cost from ``provider_reported`` or ``sdk_result_message`` and no report
  was nulled; ``partial`` when some number survived but not that (tokens without cost,
  estimate sources ``statusline_estimate``/``session_delta``, or some reports nulled);
  ``insufficient`` when no number survived (no report at all included).
* **Integration mode, downgraded never upgraded.** The declared mode (begin's
  ``integration_mode``; absent counts as ``observed_only``, since nothing was promised) drops
  to ``observed_only`` when the evidence shows the gate was not in the path: no pre-tool call
  at all; a post-tool for a call no pre-tool announced (unpaired); or a call the bridge
  refused that ran anyway (post-tool ``success`` paired with a non-allow pre-tool).
* **Certification.** ``certified`` only when the effective mode is ``casan_owned``,
  ``managed_hook`` or ``project_hook`` AND telemetry quality is ``complete`` or ``partial``
  AND the admission was not blocked at begin nor quarantined AND it ended by finalize (an
  abort is never certified). Otherwise ``non_certified``.
"""

from __future__ import annotations

import os

from caesar_core.bridge import scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ENFORCING = ("casan_owned", "managed_hook", "project_hook")
ACCURATE = ("provider_reported", "sdk_result_message")
ESTIMATES = ("statusline_estimate", "session_delta")
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_tokens")
NUMBER_FIELDS = (*TOKEN_FIELDS, "cost_amount")


def append(path: str, line: Mapping[str, Any]) -> None:
    """One whole line; the caller holds the admission's lock."""
    data = (scan.dumps(line, sort_keys=True, separators=(",", ":")) + "\n").encode()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        written = os.write(fd, data)
        if written != len(data):  # a regular file takes a whole write or fails
            raise OSError(f"short write to {path}: {written} of {len(data)} bytes")
    finally:
        os.close(fd)


def sync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def clean_telemetry(report: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The numbers kept from one report, and the warnings for those nulled."""
    source = report.get("cost_source")
    kept: dict[str, Any] = {key: report.get(key) for key in NUMBER_FIELDS}
    warnings: list[str] = []
    if source in (None, "unavailable"):
        nulled = [key for key in NUMBER_FIELDS if kept[key] is not None]
        if nulled:
            warnings.append(
                f"{', '.join(nulled)} nulled: cost_source is {source or 'missing'}, "
                "numbers without an accurate source are not kept"
            )
        kept = dict.fromkeys(NUMBER_FIELDS)
    kept["cost_source"] = source
    kept["cost_currency"] = report.get("cost_currency") if kept["cost_amount"] is not None else None
    return kept, warnings


def fold_telemetry(
    summary: Mapping[str, Any], kept: Mapping[str, Any], nulled: bool
) -> dict[str, Any]:
    """The admission's running telemetry summary after one more report."""
    tokens = any(kept.get(key) is not None for key in TOKEN_FIELDS)
    cost = kept.get("cost_amount") is not None
    accurate = kept.get("cost_source") in ACCURATE
    return {
        "reports": int(summary.get("reports", 0)) + 1,
        "nulled": int(summary.get("nulled", 0)) + (1 if nulled else 0),
        "usable": bool(summary.get("usable")) or tokens or cost,
        "complete_report": bool(summary.get("complete_report")) or (tokens and cost and accurate),
    }


def quality(summary: Mapping[str, Any]) -> str:
    """``complete``, ``partial`` or ``insufficient`` (see the module docstring)."""
    if not summary.get("usable"):
        return "insufficient"
    if summary.get("complete_report") and not summary.get("nulled"):
        return "complete"
    return "partial"


def effective_mode(admission: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The integration mode the evidence supports, and why it was lowered if it was."""
    declared = admission.get("declared_mode") or "observed_only"
    counts = admission.get("counts") or {}
    why: list[str] = []
    if counts.get("pre_tool", 0) == 0:
        why.append("no pre-tool call reached the bridge")
    if counts.get("unpaired_post", 0):
        why.append(f"{counts['unpaired_post']} tool call(s) ran without a pre-tool")
    if counts.get("bypassed", 0):
        why.append(f"{counts['bypassed']} refused tool call(s) ran anyway")
    if declared != "observed_only" and why:
        return "observed_only", [f"integration mode downgraded from {declared}: " + "; ".join(why)]
    return declared, []


def certify(
    admission: Mapping[str, Any], mode: str, telemetry_quality: str, *, aborted: bool
) -> bool:
    return (
        not aborted
        and mode in ENFORCING
        and telemetry_quality in ("complete", "partial")
        and admission.get("begin_decision") != "block"
        and not admission.get("quarantined")
    )


def receipt(
    admission: Mapping[str, Any],
    *,
    decision: str,
    certified: bool,
    mode: str,
    quality: str,
    trace_path: str,
    duration_ms: int,
    finalized_at: str,
) -> dict[str, Any]:
    """The spool's receipt: ids, verdicts and counts; nothing a reader could misuse.

    ``tool_calls`` counts every call the bridge heard of: pre-tools, plus post-tools that no
    pre-tool announced. ``failures`` counts post-tools with status ``error`` or ``timeout``.
    """
    counts = admission["counts"]
    return {
        "schema_version": 1,
        "trace_id": admission["trace_id"],
        "project_id": admission["project_id"],
        "decision": decision,
        "certified": certified,
        "certification_strength": mode,
        "telemetry_quality": quality,
        "telemetry_warnings": list(admission["telemetry_warnings"]),
        "duration_ms": duration_ms,
        "tool_calls": counts["pre_tool"] + counts["unpaired_post"],
        "failures": counts["failures"],
        "finalized_at": finalized_at,
        "report_url": None,
        "trace_path": trace_path,
        "delivery": "local_spool",
    }


def why_not(admission: Mapping[str, Any], mode: str, quality: str, aborted: bool) -> str:
    reasons: list[str] = []
    if mode not in ENFORCING:
        reasons.append(f"integration mode {mode}")
    if quality not in ("complete", "partial"):
        reasons.append(f"telemetry {quality}")
    if admission.get("begin_decision") == "block":
        reasons.append("prompt blocked at begin")
    if admission.get("quarantined"):
        reasons.append("admission quarantined")
    if aborted:  # last, so the client's own reason can follow it
        reasons.append("aborted")
    return "not certified: " + "; ".join(reasons)
