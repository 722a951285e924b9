"""How deeply a TOML file nests, known before anything recursive reads it.

``tomllib`` recurses once per nested array or inline table (500 levels exhaust Python's
stack), and every later step (validation, merging, locating keys) recurses over the data too.
So the text is scanned first, linearly and without recursion, for its deepest bracket outside
strings and comments; the parsed data is checked again (dotted keys and table headers nest
without brackets). Either refusal says where.
"""

from __future__ import annotations

import re
from typing import Any

from caesar_core.safefs import MAX_JSON_DEPTH

MAX_TOML_DEPTH = MAX_JSON_DEPTH
"""Arrays, inline tables and tables nested deeper than this are refused (real files: < 6)."""

_TOKEN = re.compile(
    r'"""(?:[^\\]|\\.)*?"{3,5}'  # multi-line basic string (it may end with one or two quotes)
    r"|'''.*?'{3,5}"  # multi-line literal string
    r'|"(?:[^"\\\n]|\\.)*"'  # basic string
    r"|'[^'\n]*'"  # literal string
    r"|#[^\n]*"  # comment
    r"|[\[\]{}]",
    re.DOTALL,
)


def too_deep_at(text: str, limit: int = MAX_TOML_DEPTH) -> int | None:
    """The index of the first bracket that opens level ``limit + 1``, or None.

    Brackets inside strings and comments do not count; a table header's ``[[`` counts as
    two levels for the length of its line, which only a limit below 2 could notice.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group()
        if char in ("[", "{"):
            depth += 1
            if depth > limit:
                return token.start()
        elif char in ("]", "}"):
            depth = max(0, depth - 1)
    return None


def deepest_path(data: Any, limit: int = MAX_TOML_DEPTH) -> tuple[str | int, ...] | None:
    """The key path of a value nested deeper than ``limit`` in parsed data, or None.

    Iterative, so it is safe on data that would exhaust the stack of a recursive walk.
    """
    pending: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while pending:
        value, path = pending.pop()
        if len(path) > limit:
            return path[: limit + 1]
        if isinstance(value, dict):
            pending.extend((child, (*path, key)) for key, child in value.items())
        elif isinstance(value, list):
            pending.extend((child, (*path, index)) for index, child in enumerate(value))
    return None
