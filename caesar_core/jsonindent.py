"""``json.dumps(value, indent=2, ensure_ascii=False, default=str)``, the same text, faster.

Python's ``json`` writes indented output with its pure-Python encoder (its C encoder serves
compact output only): a generator per container, a ``yield`` per token. ``caesar diff --json``
of 1,000 files is some 100,000 tokens. :func:`dumps` walks the value once, appending to a list;
a container of scalars alone (a hunk, a patch span), and each run of scalar items in any other
container (a changed file's path, action, counts), is written by ``json``'s C encoder at once,
its items separated by the newline and indent of their level; every other string and number is
written by the C functions ``json`` itself uses. The text is the same character for character (the
tests compare it with ``json.dumps`` on arbitrary values), in half the time. Stdlib only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The exact types the C encoder writes as ``json.dumps`` would; subclasses (enums) and
anything else take the walk."""
_STR = frozenset({str})


def dumps(value: Any, *, default: Callable[[Any], Any] = str) -> str:
    """``value`` as ``json.dumps(value, indent=2, ensure_ascii=False, default=default)``
    writes it (``ValueError`` for a container that contains itself)."""
    parts: list[str] = []
    _Writer(parts, default).write(value, "\n")
    return "".join(parts)


class _Writer:
    def __init__(self, out: list[str], default: Callable[[Any], Any]) -> None:
        self.out = out
        self.default = default
        self.seen: set[int] = set()
        self.leaves: dict[str, Callable[[Any], str]] = {}

    def write(self, value: Any, newline: str) -> None:
        kind = type(value)
        if kind is str:
            self.out.append(encode_basestring(value))
        elif kind is dict or kind is list:
            self.container(value, newline)
        elif isinstance(value, str):
            self.out.append(encode_basestring(value))
        elif value is None or value is True or value is False:
            self.out.append("null" if value is None else "true" if value else "false")
        elif isinstance(value, int):
            self.out.append(int.__repr__(value))
        elif isinstance(value, float):
            self.out.append(_float(value))
        elif isinstance(value, dict | list | tuple):
            self.container(value, newline)
        else:
            self.enter(value)
            self.write(self.default(value), newline)
            self.seen.discard(id(value))

    def container(self, value: dict[Any, Any] | list[Any] | tuple[Any, ...], newline: str) -> None:
        is_dict = isinstance(value, dict)
        if not value:
            self.out.append("{}" if is_dict else "[]")
            return
        inner = newline + "  "
        items = value.values() if isinstance(value, dict) else value
        if (
            type(value) in (dict, list)
            and _SCALARS.issuperset(map(type, items))
            and (not is_dict or _STR.issuperset(map(type, value)))
        ):
            text = self.leaf(inner)(value)  # "{a, b}" with the separators of this level
            self.out.append(text[0] + inner + text[1:-1] + newline + text[-1])
            return
        self.enter(value)
        opening, separator = ("{" if is_dict else "[") + inner, "," + inner
        if isinstance(value, dict):
            scalars: dict[str, Any] = {}  # a run of items the C encoder writes at once
            for key, item in value.items():
                if type(item) in _SCALARS and type(key) is str:
                    scalars[key] = item
                    continue
                if scalars:
                    self.out.append(opening + self.leaf(inner)(scalars)[1:-1])
                    opening, scalars = separator, {}
                self.out.append(opening + encode_basestring(_key(key)) + ": ")
                self.write(item, inner)
                opening = separator
            if scalars:
                self.out.append(opening + self.leaf(inner)(scalars)[1:-1])
        else:
            run: list[Any] = []
            for item in value:
                if type(item) in _SCALARS:
                    run.append(item)
                    continue
                if run:
                    self.out.append(opening + self.leaf(inner)(run)[1:-1])
                    opening, run = separator, []
                self.out.append(opening)
                self.write(item, inner)
                opening = separator
            if run:
                self.out.append(opening + self.leaf(inner)(run)[1:-1])
        self.out.append(newline + ("}" if is_dict else "]"))
        self.seen.discard(id(value))

    def enter(self, value: Any) -> None:
        marker = id(value)
        if marker in self.seen:
            raise ValueError("Circular reference detected")
        self.seen.add(marker)

    def leaf(self, inner: str) -> Callable[[Any], str]:
        """The C encoder writing a container of scalars with the separators of one level
        (made once: ``JSONEncoder.encode`` makes it again at every call)."""
        encode = self.leaves.get(inner)
        if encode is None:
            encoder = json.JSONEncoder(
                ensure_ascii=False, check_circular=False, separators=("," + inner, ": ")
            )
            encode = self.leaves[inner] = _one_shot(encoder)
        return encode


def _one_shot(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode`` of a container of scalars: the C encoder it makes for one call,
    made once (as ``JSONEncoder.iterencode`` makes it: no circularity markers, since
    ``check_circular`` is off, and no indent); ``encode`` itself without the C encoder."""
    if c_make_encoder is None:  # pragma: no cover - CPython has it
        return encoder.encode
    iterencode = c_make_encoder(
        None,
        encoder.default,
        encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    return encode


def _key(key: Any) -> str:
    """A key as ``json`` writes it: a string as it is, a float, int, bool or None spelled."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True or key is False or key is None:
        return "null" if key is None else "true" if key else "false"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _float(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)
