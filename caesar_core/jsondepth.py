"""How deeply JSON nests, known before any parser recurses into it.

``json.loads`` and pydantic recurse once per level: a document an agent nested thousands of levels
deep raises ``RecursionError`` (or worse, exhausts the stack) in whatever reads it. Every reader of
agent-written JSON checks the depth first, with a linear scan that never recurses. Stdlib only.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_JSON_DEPTH = 64
"""Nesting deeper than this is refused before any parser recurses into it. The documents of the
contract need fewer than ten levels; extra members an agent adds are kept, within this bound."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(data: bytes | str) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets in strings ignored).

    Linear and recursion-free, so it can run before a parser that recurses.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") == 0:
        return 0
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(_STEP[b] for b in brackets), default=0)


class TooDeepError(ValueError):
    """JSON nested beyond :data:`MAX_JSON_DEPTH`; raised before anything recursed into it."""

    def __init__(self, depth: int, limit: int) -> None:
        super().__init__(f"JSON nested {depth} levels deep; at most {limit} are read")
        self.depth = depth
        self.limit = limit


def check_depth(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`TooDeepError` when ``data`` nests deeper than ``limit``."""
    # Fewer brackets than the limit cannot nest deeper than it: the common case costs two counts.
    if isinstance(data, str):
        if data.count("[") + data.count("{") <= limit:
            return
    elif data.count(b"[") + data.count(b"{") <= limit:
        return
    depth = json_depth(data)
    if depth > limit:
        raise TooDeepError(depth, limit)


def loads(data: bytes | str, *, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses deep nesting (``TooDeepError``) instead of recursing."""
    check_depth(data, limit)
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeepError(limit + 1, limit) from None
