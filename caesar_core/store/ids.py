"""Identifiers that end up in paths: generated safely, validated before any path is built."""

from __future__ import annotations

import re

from caesar_core.errors import UsageError
from caesar_core.humanize import quoted

TASK_ID_PATTERN = re.compile(r"t_[0-9a-f]{32}")
"""``t_`` plus 32 hex digits: a UUID4 without dashes, the ids caesar (and the reference
implementation) generate."""
MAX_TASK_ID_BYTES = 128
"""The longest task id accepted, in UTF-8 bytes: ``.<id>.lock`` must stay a legal file name."""

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SHOWN = 48
"""At most this many characters of a refused id are echoed back (it may be 100 KB)."""


def new_task_id() -> str:
    import uuid  # with platform, ~2 ms: not for the commands that only read ids

    return "t_" + uuid.uuid4().hex


def is_task_id(value: str) -> bool:
    """Whether ``value`` may name a task: caesar's own ``t_`` + 32 hex, or any id the reference
    implementation accepts (its callers impose ids such as ``t_imposed`` or ``fix-login.2``)
    that is safe as one path component under ``.caesar/``.

    Printable characters only (no control, format or separator character but the space), no
    ``/`` or ``\\``, no ``..``, not starting with ``.`` (a hidden file, which neither
    implementation lists), no surrounding blanks, at most ``MAX_TASK_ID_BYTES`` bytes.
    """
    if TASK_ID_PATTERN.fullmatch(value):
        return True
    return (
        0 < len(value.encode("utf-8", "surrogatepass")) <= MAX_TASK_ID_BYTES
        and value.isprintable()
        and value == value.strip()
        and not value.startswith(".")
        and ".." not in value
        and "/" not in value
        and "\\" not in value
    )


def check_task_id(value: str) -> str:
    """Return ``value`` if it is a task id (:func:`is_task_id`), else refuse.

    Callers may impose ids (tests, ``caesar_delegate``, the reference implementation's
    callers), so this is the gate between user input and ``.caesar/tasks/<id>``: no separator,
    no ``..``, no NUL, nothing that names a file outside ``.caesar/`` can pass.
    """
    if not is_task_id(value):
        raise UsageError(
            f"invalid task id {shown_id(value)}: a task id is 1 to {MAX_TASK_ID_BYTES} bytes of "
            "printable characters, without '/', '\\' or '..', not starting with '.'",
            "copy the id from `caesar ps`",
        )
    return value


def short_task_id(value: str) -> str:
    """The id as a title shows it: caesar's 8 hex digits after ``t_``, another id whole (up to
    24 characters)."""
    return value[2:10] if TASK_ID_PATTERN.fullmatch(value) else value[:24]


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
