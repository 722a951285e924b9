"""Identifiers that end up in paths: generated safely, validated before any path is built."""

from __future__ import annotations

import re
import uuid

from caesar_core.errors import UsageError
from caesar_core.humanize import quoted

TASK_ID_PATTERN = re.compile(r"t_[0-9a-f]{32}")
"""``t_`` plus 32 hex digits: a UUID4 without dashes, as the reference implementation settled."""

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SHOWN = 48
"""At most this many characters of a refused id are echoed back (it may be 100 KB)."""


def new_task_id() -> str:
    return "t_" + uuid.uuid4().hex


def check_task_id(value: str) -> str:
    """Return ``value`` if it is a well-formed task id, else refuse.

    Callers may impose ids (tests, ``caesar_delegate``), so this is the gate between user input
    and ``.caesar/tasks/<id>``: no separators, no ``..``, no NUL can pass the pattern.
    """
    if not TASK_ID_PATTERN.fullmatch(value):
        raise UsageError(
            f"invalid task id {shown_id(value)}: expected 't_' followed by 32 lowercase hex digits",
            "copy the id from `caesar ps`",
        )
    return value


def check_name(value: str, what: str = "id") -> str:
    """Validate a mailbox or approval id before it names a file.

    Letters, digits, ``.``, ``_`` and ``-``, not starting with a dot, at most 128 characters:
    no path separator, no ``..`` component, no NUL, no hidden file.
    """
    if not _SAFE_NAME.fullmatch(value) or ".." in value:
        raise UsageError(
            f"invalid {what} {shown_id(value)}: use letters, digits, '.', '_' and '-' only, "
            "not starting with '.', without '..'",
            f"copy the {what} from the task's questions (`caesar ps`, `caesar watch`)",
        )
    return value


def shown_id(value: object) -> str:
    """A refused id as an error quotes it: ``repr`` (controls escaped), clipped with its length."""
    return quoted(value, _SHOWN)
