""":mod:`caesar_core.bridge.cjson` answers as ``json`` does, errors included, over ordinary and
hostile documents; and it answers ordinary ones without importing ``json``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from caesar_core.bridge import cjson

DOCUMENTS: list[str | bytes] = [
    '{"op": "pre-tool", "n": [1, 2.5, -3e2, null, true, false], "s": "caf\\u00e9"}',
    "  \n\t{}\r\n ",
    "[]",
    '"just a string"',
    "12",
    "-0.0",
    "1e400",
    "NaN",
    "[Infinity, -Infinity]",
    "",
    "   ",
    "{",
    '{"a": 1} x',
    '{"a": 1}{"b": 2}',
    "{'a': 1}",
    '{"a": 1,}',
    '"\\ud800"',
    '"a\x01b"',
    "\ufeff{}",
    "[" * 100_000 + "]" * 100_000,
    '{"é": "ü"}',
    "nul",
    "[1, 2",
]
BYTES: list[str | bytes] = [
    *(text.encode("utf-8", "surrogatepass") for text in DOCUMENTS if isinstance(text, str)),
    b"\xef\xbb\xbf{}",
    '{"a": 1}'.encode("utf-16"),
    '{"a": 1}'.encode("utf-16-le"),
    '{"a": 1}'.encode("utf-32"),
    '{"a": 1}'.encode("utf-32-be"),
    b'{"a": "\xff"}',
    b'{"a": "\xed\xa0\x80"}',
    b"{",
    b"1",
    b"\x00",
    b" 1",
    b"1\x00",
]


def outcome(call: Callable[[], Any]) -> tuple[str, str]:
    """What a call gives: the value (repr, so NaN equals NaN) or the error with its text."""
    try:
        return "value", repr(call())
    except BaseException as problem:  # the error is what is compared
        return type(problem).__name__, str(problem)


def refuse(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


@pytest.mark.parametrize("document", DOCUMENTS + BYTES, ids=lambda d: repr(d)[:40])
@pytest.mark.parametrize("parse_constant", [None, refuse], ids=["default", "refusing"])
def test_loads_answers_as_json_does(
    document: str | bytes, parse_constant: Callable[[str], object] | None
) -> None:
    ours = outcome(lambda: cjson.loads(document, parse_constant=parse_constant))
    theirs = outcome(lambda: json.loads(document, parse_constant=parse_constant))
    assert ours == theirs


class Odd:
    """Not JSON-serializable."""


circular: list[object] = []
circular.append(circular)
VALUES: list[object] = [
    {"op": "pre-tool", "n": [1, 2.5, -0.0, None, True, False], "s": "café \ud800 \U0001f600"},
    {"b": 1, "a": {"d": [], "c": {}}},
    'a string with "quotes" and \n newlines and é',
    42,
    math.nan,
    [math.inf, -math.inf, 1e300, 0.1],
    (1, 2),
    {1: "int key", 2.5: "float key", None: "none key", False: "bool key"},
    {"a": 1, 2: "mixed keys"},
    {"odd": Odd()},
    {(1, 2): "tuple key"},
    circular,
    {"set": {1, 2}},
]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"sort_keys": True},
    {"separators": (",", ":")},
    {"sort_keys": True, "separators": (",", ":")},
    {"default": str},
    {"sort_keys": True, "default": str},
    {"indent": 1, "sort_keys": True},
    {"indent": 2},
    {"ensure_ascii": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
@pytest.mark.parametrize("value", VALUES, ids=lambda v: repr(v)[:30])
def test_dumps_answers_as_json_does(value: object, options: dict[str, Any]) -> None:
    assert outcome(lambda: cjson.dumps(value, **options)) == outcome(
        lambda: json.dumps(value, **options)
    )


def test_ordinary_documents_never_import_json() -> None:
    probe = (
        "import sys\n"
        "from caesar_core.bridge import cjson\n"
        'value = cjson.loads(b\' {"a": [1, 2.5, null, "caf\\\\u00e9"]} \')\n'
        "cjson.loads('[]')\n"
        "cjson.dumps(value)\n"
        "cjson.dumps(value, sort_keys=True, separators=(',', ':'), default=str)\n"
        "assert 'json' not in sys.modules, 'json imported'\n"
        "assert 're' not in sys.modules, 're imported'\n"
        "print(cjson.dumps(value))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"a": [1, 2.5, None, "café"]}
