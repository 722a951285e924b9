"""The fields of a task's record that its diff needs, read without pydantic, or not at all.

``caesar diff ID --json`` needs six fields of the record (:class:`DiffSource`); validating the
whole record with its model costs more than the rest of the command's Python. The console
script reads them here and answers itself only when it is certain that the model would read
the same record the same way: :func:`read_diff_source` returns None (and the click command,
through ``TaskStore.get``, answers: its errors, its fallbacks) for anything else. So the check
is conservative, never permissive: caesar's own record (``protocol`` named, so no field is
completed from the task directory), only the keys the model knows (plus the reference's names
the store writes), each of a plain JSON type the model takes as it is, no key twice, no
``\\u`` escape of a surrogate, the nested fields (checks, hunks, executor) absent or empty.
``tests/store/test_diffsource.py`` holds it against ``TaskRecord`` on the same bytes.

Stdlib only.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from caesar_core.layout import CAESAR_DIR, RECORDS_DIR, STATE_DIR
from caesar_core.store.ids import TASK_ID_PATTERN

RECORD_PROTOCOL = "caesar.record/v1"
TASK_STATUSES = frozenset({"pending", "running", "succeeded", "failed", "cancelled", "timed_out"})
REQUIRED_TEXT = ("id", "agent", "objective", "workspace")
OPTIONAL_TEXT = frozenset(
    {
        "cgroup",
        "parent_id",
        "role",
        "source_workspace",
        "base_ref",
        "worktree_path",
        "branch",
        "applied_digest",
        "ended_reason",
        "orchestrator_host",
        "start_snapshot",
        "report_tier",
        "model",
        "network_asked",
        "session_id",
        "continues",
        "chain",
        "continued_by",
        "turn_base",
        "resumed_session",
    }
)
OPTIONAL_INTEGER = frozenset(
    {"pid", "exit_code", "finished_seq", "orchestrator_pid", "deadline_ms"}
)
BOUNDED_INTEGER = {"depth": 0, "turn": 1}
"""Integers with a default and a lower bound."""
OPTIONAL_TIME = frozenset({"started_at", "ended_at", "applied_at", "discarded_at"})
CHOICES = {
    "status": TASK_STATUSES,
    "isolation": frozenset({"inplace", "worktree"}),
    "mode": frozenset({"read-only", "write"}),
    "report_source": frozenset({"channel", "schema", "file", "extracted", "synthesized"}),
    "changes_verified_by": frozenset({"git", "declaration"}),
    "report_status": frozenset({"success", "partial", "failed", "blocked"}),
}
OPTIONAL_CHOICES = frozenset({"report_source", "changes_verified_by", "report_status"})
EMPTY_LISTS = frozenset({"applied_hunks", "rejected_hunks"})
NULL_ONLY = frozenset({"checks", "selection_checks", "executor"})
DERIVED_TEXT = frozenset({"task_dir", "report_via", "applied_patch_digest"})
"""The reference's names the store writes (``TaskStore._encode``), text."""
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_INTEGER_LIMIT = 1 << 62


class DiffSource:
    """What ``runner.taskdiff.task_diff`` reads of a record (``TaskRecord``'s fields)."""

    __slots__ = ("base_ref", "excluded_paths", "id", "start_snapshot", "workspace", "worktree_path")

    def __init__(
        self,
        task_id: str,
        workspace: str,
        worktree_path: str | None,
        base_ref: str | None,
        start_snapshot: str | None,
        excluded_paths: list[str],
    ) -> None:
        self.id = task_id
        self.workspace = workspace
        self.worktree_path = worktree_path
        self.base_ref = base_ref
        self.start_snapshot = start_snapshot
        self.excluded_paths = excluded_paths


class Declined(ValueError):
    """The record is not one this module is certain to read as the model does."""


def read_diff_source(root: Path, task_id: str) -> DiffSource | None:
    """The diff's fields of task ``task_id``'s record in the project at ``root``, read as
    ``TaskStore(root).get(task_id)`` reads them; None whenever that is not certain (another
    form of id, no record, a record the model would refuse, complete or read otherwise)."""
    if not TASK_ID_PATTERN.fullmatch(task_id):
        return None
    path = root / CAESAR_DIR / STATE_DIR / RECORDS_DIR / f"{task_id}.json"
    try:
        raw = path.read_bytes()  # as TaskStore.get reads it
        return diff_source(raw)
    except (OSError, Declined):
        return None


def diff_source(raw: bytes) -> DiffSource:
    """:class:`DiffSource` of the record ``raw``; :class:`Declined` (naming the reason) for a
    record this module cannot vouch is read as ``TaskRecord`` reads it."""
    if _SURROGATE.search(raw):
        raise Declined("a surrogate escape")
    try:
        data = json.loads(raw, object_pairs_hook=_unique)
    except (ValueError, RecursionError) as error:
        raise Declined(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise Declined("not an object")
    if data.get("protocol") != RECORD_PROTOCOL:
        raise Declined("not caesar's own record")
    for key, value in data.items():
        _check(key, value)
    for key in (*REQUIRED_TEXT, "created_at", "isolation", "mode"):
        if key not in data:
            raise Declined(f"{key}: missing")
    excluded = data.get("excluded_paths", [])
    return DiffSource(
        data["id"],
        data["workspace"],
        data.get("worktree_path"),
        data.get("base_ref"),
        data.get("start_snapshot"),
        list(excluded),
    )


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise Declined("a key given twice")
    return found


def _check(key: str, value: object) -> None:
    """:class:`Declined` unless ``value`` is one the model takes for ``key`` as it is."""
    if key == "protocol":
        return  # checked by the caller
    if key in REQUIRED_TEXT or key in DERIVED_TEXT:
        ok = isinstance(value, str)
    elif key in OPTIONAL_TEXT:
        ok = value is None or isinstance(value, str)
    elif key in OPTIONAL_INTEGER:
        ok = value is None or _integer(value)
    elif key in BOUNDED_INTEGER:
        ok = _integer(value) and value >= BOUNDED_INTEGER[key]  # type: ignore[operator]
    elif key == "created_at":
        ok = _time(value)
    elif key in OPTIONAL_TIME:
        ok = value is None or _time(value)
    elif key in CHOICES:
        ok = (value is None and key in OPTIONAL_CHOICES) or (
            isinstance(value, str) and value in CHOICES[key]
        )
    elif key == "excluded_paths":
        ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    elif key in EMPTY_LISTS:
        ok = value == [] and isinstance(value, list)
    elif key in NULL_ONLY:
        ok = value is None
    else:
        ok = False
    if not ok:
        raise Declined(f"{key}: not read here")


def _integer(value: object) -> bool:
    return type(value) is int and -_INTEGER_LIMIT < value < _INTEGER_LIMIT


def _time(value: object) -> bool:
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        return False
    try:
        return datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False
