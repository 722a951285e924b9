"""The key locator: positions of keys, headers and array elements in real TOML text."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from caesar_core.config.locate import START, KeyPath, Position, key_positions, locate

SAMPLE = '''\
# a comment with = and [brackets]
top = "value # not a comment"
"quoted.key" = 1
dotted.inner.leaf = 'x'

[policy]   # trailing comment
allowed = [
  "codex",  # first
  # a comment line inside the array
  "claude",
]
doc = """
[not_a_table]
fake = 1
"""
after = 2

[[agent]]
id = "one"
env = { A = "1", B = { C = "d" } }

[[agent]]
id = "two"

[agent.env]
X = "y"

[[bridge.rule]]
tool = "Bash"
'''


def test_sample_positions() -> None:
    found = key_positions(SAMPLE)
    expect: dict[KeyPath, Position] = {
        ("top",): Position(2, 1),
        ("quoted.key",): Position(3, 1),
        ("dotted",): Position(4, 1),
        ("dotted", "inner", "leaf"): Position(4, 14),
        ("policy",): Position(6, 2),
        ("policy", "allowed"): Position(7, 1),
        ("policy", "allowed", 0): Position(8, 3),
        ("policy", "allowed", 1): Position(10, 3),
        ("policy", "doc"): Position(12, 1),
        ("policy", "after"): Position(16, 1),
        ("agent",): Position(18, 3),
        ("agent", 0): Position(18, 1),
        ("agent", 0, "id"): Position(19, 1),
        ("agent", 0, "env", "A"): Position(20, 9),
        ("agent", 0, "env", "B", "C"): Position(20, 24),
        ("agent", 1): Position(22, 1),
        ("agent", 1, "id"): Position(23, 1),
        ("agent", 1, "env"): Position(25, 8),
        ("agent", 1, "env", "X"): Position(26, 1),
        ("bridge", "rule", 0): Position(28, 1),
        ("bridge", "rule", 0, "tool"): Position(29, 1),
    }
    assert {path: found.get(path) for path in expect} == expect
    assert ("not_a_table",) not in found
    assert ("policy", "fake") not in found


def test_locate_falls_back_to_the_nearest_written_ancestor() -> None:
    found = key_positions(SAMPLE)
    assert locate(found, ("agent", 1, "bin")) == Position(22, 1)  # missing key: its entry
    assert locate(found, ("policy", "allowed", 1)) == Position(10, 3)
    assert locate(found, ("nowhere",)) == START
    assert locate({}, ()) == START


def test_text_it_cannot_follow_keeps_what_was_found() -> None:
    found = key_positions('a = 1\nb = "unterminated\nc = 3\n')
    assert found[("a",)] == Position(1, 1)
    assert ("c",) not in found  # the walk stopped; locate() falls back to the file's start


def test_crlf_and_tabs() -> None:
    found = key_positions("[t]\r\n\tk\t=\t[1,\r\n  2]\r\nz = 0\r\n")
    assert found[("t", "k")] == Position(2, 2)
    assert found[("t", "k", 1)] == Position(3, 3)
    assert found[("t", "z")] == Position(4, 1)


def test_multiline_strings_with_quotes_at_the_end() -> None:
    text = "a = \"\"\"x\\\"\"\"\ny\"\"\"\"\nb = '''p''q'''''\nc = 1\n"
    assert tomllib.loads(text) == {"a": 'x"""\ny"', "b": "p''q''", "c": 1}
    assert key_positions(text)[("c",)] == Position(4, 1)


# -- property: every key tomllib sees is located, at the key ----------------------------------

KEYS = st.one_of(
    st.text("abz_-19", min_size=1, max_size=4),
    st.text("ab .#=[]'\\é", min_size=0, max_size=4).map(lambda key: "\x00" + key),
)
"""Bare keys, or (marked with NUL) keys to be written quoted, full of TOML punctuation."""
STRINGS = st.text(" ab#=[]{},'\"\\\né", max_size=8)
SCALARS = st.one_of(
    st.integers(-5, 5).map(str),
    st.sampled_from(["true", "false"]),
    STRINGS.map(json.dumps),
    STRINGS.filter(lambda s: "'" not in s and "\n" not in s).map(lambda s: f"'{s}'"),
    STRINGS.map(lambda s: '"""' + s.replace("\\", "\\\\").replace('"', '\\"') + '"""'),
    STRINGS.filter(lambda s: "'''" not in s and not s.endswith("'")).map(lambda s: f"'''{s}'''"),
    st.just("1979-05-27 07:32:00Z"),
)


def key_text(key: str) -> str:
    return json.dumps(key[1:], ensure_ascii=False) if key.startswith("\x00") else key


def real(key: str) -> str:
    return key[1:] if key.startswith("\x00") else key


@st.composite
def values(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= 2 or draw(st.booleans()):
        return str(draw(SCALARS))
    if draw(st.booleans()):
        items = draw(st.lists(values(depth + 1), max_size=3))
        sep = draw(st.sampled_from([", ", ",\n  ", ", # c\n  "]))
        return "[" + sep.join(items) + draw(st.sampled_from(["", ",", "\n"])) + "]"
    keys = draw(st.lists(KEYS, max_size=3, unique_by=real))
    return "{" + ", ".join(f"{key_text(k)} = {draw(values(depth + 1))}" for k in keys) + "}"


@st.composite
def documents(draw: st.DrawFn) -> str:
    def body() -> str:
        keys = draw(st.lists(KEYS, max_size=3, unique_by=real))
        return "".join(
            f"{key_text(k)} = {draw(values())}{draw(st.sampled_from(['', ' # c']))}\n" for k in keys
        )

    text = body()
    tables = draw(st.lists(st.text("tuv", min_size=1, max_size=2), max_size=3, unique=True))
    for name in tables:
        if draw(st.booleans()):
            for _ in range(draw(st.integers(1, 2))):
                text += f"\n[[arr.{name}]]\n" + body()
        else:
            text += f"\n[ {name} ]\n" + body()
    return text


def paths(node: Any, prefix: KeyPath = ()) -> Iterator[KeyPath]:
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in items:
        yield (*prefix, key)
        yield from paths(value, (*prefix, key))


@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(documents())
def test_every_key_is_found_where_it_is_written(text: str) -> None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
        raise
    found = key_positions(text)
    lines = text.split("\n")
    for path in paths(data):
        assert path in found, (path, text)
        position = found[path]
        at = lines[position.line - 1][position.col - 1 :]
        last = path[-1]
        if isinstance(last, str) and not isinstance(path[-2] if len(path) > 1 else None, int):
            assert at.startswith((last, '"')), (path, at, text)
