"""Holding a tool call until a person allows or denies it: the bridge's side of approvals.

The files are those of ``caesar_core.protocol.approvals`` (read there with pydantic by
``caesar approve`` and ``caesar watch``); here they are written and read with the stdlib
because this runs inside a hook process. The ask is ``<task_dir>/approvals/<id>.json``, created
exclusively; the answer ``<id>.answer.json`` is created exclusively by whoever answers first, in
caesar's state directory (``caesar_core.layout.approval_answers``), never in the task directory:
there the agent whose call is held could approve it itself.
Every string of the ask (the tool's name included) has gone through the scanner. The task
directory is the agent's to write: every file here goes through :mod:`caesar_core.safefs` (a
linked ``approvals/`` is refused, never written through; a FIFO answer is no answer, never
waited on), and a call whose approval cannot be asked is denied with the reason.
The wait polls every :data:`POLL_S` and is bounded by ``[bridge] approval_timeout``; when it
runs out the bridge itself answers ``on_approval_timeout`` with ``answered_by: "timeout"``,
through the same exclusive create, so a person answering at that very moment either wins
(and their answer stands) or is told the timeout did.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from caesar_core.bridge.scan import scrubbed
from caesar_core.fs import dump_json
from caesar_core.layout import approval_answers
from caesar_core.safefs import create_exclusive, read_json

POLL_S = 0.1
FOLDER = "approvals"
ANSWER_SUFFIX = ".answer.json"


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ask(
    task_dir: Path,
    *,
    admission_id: str,
    tool: str,
    summary: str,
    reason: str,
    timeout_s: float,
) -> str:
    """Write the approval request; its id (``OSError`` when it cannot be written safely)."""
    while True:
        approval_id = f"ap_{secrets.token_hex(6)}"
        document = {
            "id": approval_id,
            "admission_id": admission_id,
            "tool": tool,
            "summary": summary,
            "reason": reason,
            "asked_at": iso_now(),
            "timeout_s": timeout_s,
        }
        try:
            create_exclusive(
                task_dir, f"{FOLDER}/{approval_id}.json", dump_json(scrubbed(document))
            )
        except FileExistsError:  # 48 random bits colliding: draw again
            continue
        return approval_id


def read_answer(task_dir: Path, approval_id: str) -> tuple[str, str] | None:
    """``(decision, answered_by)`` once answered, else None; an unreadable answer is none."""
    root, folder = approval_answers(task_dir)
    try:
        data = read_json(root, f"{folder}/{approval_id}{ANSWER_SUFFIX}")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("decision") not in ("allow", "deny"):
        return None
    return str(data["decision"]), str(data.get("answered_by", ""))


def wait(
    task_dir: Path,
    approval_id: str,
    *,
    timeout_s: float,
    on_timeout: str,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[str, str]:
    """Block until answered or ``timeout_s`` passes: ``(decision, answered_by)``."""
    deadline = clock() + timeout_s
    while True:
        found = read_answer(task_dir, approval_id)
        if found is not None:
            return found
        left = deadline - clock()
        if left <= 0:
            break
        time.sleep(min(POLL_S, left))
    document = {
        "id": approval_id,
        "decision": on_timeout,
        "answered_at": iso_now(),
        "answered_by": "timeout",
    }
    root, folder = approval_answers(task_dir)
    try:
        create_exclusive(root, f"{folder}/{approval_id}{ANSWER_SUFFIX}", dump_json(document))
    except FileExistsError:  # someone answered in the last instant: theirs stands
        return read_answer(task_dir, approval_id) or (on_timeout, "timeout")
    except OSError:  # approvals/ replaced meanwhile: the timeout's decision stands, unwritten
        pass
    return on_timeout, "timeout"


def hold(
    admission: Mapping[str, Any], tool: str, summary: str, why: str
) -> tuple[str, str, str, str]:
    """Ask in the admission's task directory and wait: ``(decision, reason, approval_id, by)``,
    ``by`` naming who decided (``cli``, ``watch``…), ``timeout``, or ``caesar`` when the
    approval could not be asked (denied).

    The reason says who decided (``approval ap_… allowed by cli``) or that time ran out,
    so the agent (and the trace) can tell a person's no from a timeout's.
    """
    task_dir = Path(admission["task"]["dir"])
    timeout_s = float(admission["approval_timeout_s"])
    on_timeout = str(admission["on_approval_timeout"])
    try:
        approval_id = ask(
            task_dir,
            admission_id=admission["admission_id"],
            tool=tool,
            summary=summary,
            reason=why or "a [[bridge.rule]] requires approval",
            timeout_s=timeout_s,
        )
    except OSError as problem:
        reason = f"{why or 'approval required'}; the approval could not be asked: {problem}"
        return "deny", reason, "", "caesar"
    decision, by = wait(task_dir, approval_id, timeout_s=timeout_s, on_timeout=on_timeout)
    if by == "timeout":
        reason = (
            f"approval {approval_id} timed out after {timeout_s:g}s: "
            f"on_approval_timeout = {decision}"
        )
    else:
        verb = "allowed" if decision == "allow" else "denied"
        reason = f"approval {approval_id} {verb} by {by or 'someone'}"
    return decision, reason, approval_id, by or "someone"
