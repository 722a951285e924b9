"""``jsonindent.dumps`` writes what ``json.dumps(indent=2, ensure_ascii=False, default=str)``
writes, character for character."""

from __future__ import annotations

import json
import math
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caesar_core.jsonindent import dumps

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=4)
    ),
    max_leaves=30,
)


def reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@given(values)
def test_the_same_text_as_json_dumps(value: Any) -> None:
    assert dumps(value) == reference(value)


class Colour(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


def test_what_json_handles_by_type_or_by_default() -> None:
    value = {
        "path": Path("a/b"),
        "colour": Colour.RED,
        "level": Level.HIGH,
        Level.HIGH: [(), [], {}, math.inf, -math.inf],
        "controls": "\x1b[31m\u202e\ud800",
    }
    assert dumps(value) == reference(value)


def test_a_container_holding_itself_is_refused_as_json_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(loop)
    with pytest.raises(TypeError, match="keys must be"):
        dumps({(1, 2): 3})
