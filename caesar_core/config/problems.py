"""Turning pydantic's validation errors into sentences about a TOML file.

pydantic speaks Python (``Input should be a valid integer``, ``loc=('agent', 0, 'args')``);
the person reading the error wrote TOML. This module renames the key to what they wrote
(``agent "jqagent".args``), names types the TOML way (string, integer, array, table),
shows the value that was given, and suggests the key they probably meant.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from caesar_core.config.locate import KeyPath
from caesar_core.config.model import (
    AgentConfig,
    Bridge,
    BridgeRule,
    Check,
    Config,
    Policy,
    Review,
    Role,
    Watch,
    Worktree,
)

KEYED: Mapping[str, str] = {"agent": "id", "role": "name"}
"""Top-level arrays of tables whose entries are known by a key (merged by it, named by it)."""

_SECTIONS: Mapping[tuple[str, ...], Any] = {  # models and one pydantic dataclass
    (): Config,
    ("policy",): Policy,
    ("worktree",): Worktree,
    ("bridge",): Bridge,
    ("bridge", "rule"): BridgeRule,
    ("agent",): AgentConfig,
    ("role",): Role,
    ("watch",): Watch,
    ("review",): Review,
    ("review", "checks"): Check,
}
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_EXPECTED: Mapping[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "string_type": "a string",
    "bool_type": "a boolean (true or false)",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
    "dataclass_type": "a table",
}
_REPHRASE: tuple[tuple[str, str], ...] = (
    ("String should have at least 1 character", "must not be empty"),
    ("List should have at least 1 item after validation, not 0", "must not be empty"),
    ("Input should be", "must be"),
)


def known_keys(section: tuple[str, ...]) -> list[str]:
    """The keys a table accepts, as written in TOML (``[[agent]]`` is ``agent``, not ``agents``).

    ``section`` is the table's path without entry indexes: ``("bridge", "rule")``.
    """
    model = _SECTIONS.get(section)
    if model is None:
        return []
    fields: dict[str, FieldInfo] = model.__pydantic_fields__
    return [info.alias or name for name, info in fields.items()]


def describe(err: ErrorDetails) -> tuple[KeyPath, str, str]:
    """``(key path, problem, hint)`` for one pydantic error, in the words of a TOML file."""
    path: KeyPath = tuple(err["loc"])
    if path and path[-1] == "[key]":  # the key itself is wrong (a dict key: [models], env)
        path = path[:-1]
    kind, value = err["type"], err.get("input")
    if kind == "extra_forbidden":
        section = tuple(part for part in path[:-1] if isinstance(part, str))
        known = known_keys(section)
        close = difflib.get_close_matches(str(path[-1]), known, n=1)
        message = "unknown key" + (f"; did you mean {close[0]}?" if close else "")
        where = f"[{'.'.join(section)}]" if section else "the top level"
        return path, message, f"{where} accepts {', '.join(known)}"
    if kind == "missing":
        return path, "is required but missing", ""
    if kind in _EXPECTED:
        return path, f"expected {_EXPECTED[kind]}, got {toml_type(value)} {show(value)}", ""
    message = err["msg"]
    for before, after in _REPHRASE:
        message = message.replace(before, after)
    if kind in ("enum", "literal_error", "greater_than_equal"):
        message += f", got {show(value)}"
    return path, message, ""


def label(path: KeyPath, data: Any) -> str:
    """The dotted key as a person reads it: ``policy.allowed[2]``, ``agent "jqagent".args``.

    Entries of ``[[agent]]`` and ``[[role]]`` are named by their id or name when they have
    one, since "the second agent" means little in a file of ten; others get a 0-based index.
    """
    text = ""
    node: Any = data
    previous: str | int | None = None
    for part in path:
        if isinstance(part, int):
            entry = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            key = KEYED.get(text) if text == previous else None  # top-level arrays only
            name = entry.get(key) if key and isinstance(entry, dict) else None
            text += f" {json.dumps(name)}" if isinstance(name, str) and name else f"[{part}]"
            node = entry
        else:
            shown = part if _BARE.fullmatch(part) else json.dumps(part)
            text += f".{shown}" if text else shown
            node = node.get(part) if isinstance(node, dict) else None
        previous = part
    return text


def duplicate_entries(data: Mapping[str, Any]) -> list[tuple[KeyPath, str]]:
    """Two ``[[agent]]`` (or ``[[role]]``) entries with one id in a single file.

    Checked on the raw data so the error can point at the second entry's ``id`` line; a
    model validator only knows the list as a whole.
    """
    problems: list[tuple[KeyPath, str]] = []
    for kind, key in KEYED.items():
        entries = data.get(kind)
        if not isinstance(entries, list):
            continue
        seen: dict[str, int] = {}
        for index, entry in enumerate(entries):
            name = entry.get(key) if isinstance(entry, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                problems.append(
                    (
                        (kind, index, key),
                        f"[[{kind}]] entry [{seen[name]}] of this file already has {key} = "
                        f"{json.dumps(name)}; give each entry its own {key}",
                    )
                )
            else:
                seen[name] = index
    return problems


def toml_type(value: object) -> str:
    """The TOML name of a parsed value's type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    if isinstance(value, dt.date | dt.time):
        return "datetime"
    return type(value).__name__


def show(value: object, limit: int = 40) -> str:
    """A parsed value as it would be written in TOML, shortened."""
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str | int | float | list):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
