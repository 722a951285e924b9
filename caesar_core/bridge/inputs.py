"""Requests made well-formed before the bridge reads them: no lone surrogates, bounded nesting.

JSON can spell a lone UTF-16 surrogate (``"\\ud800"``), which Python decodes into a string that
no UTF-8 stream or file can hold: hashing, writing or answering it would fail. Every string of
a request (keys included) has each lone surrogate replaced by U+FFFD, the replacement
character, before anything else looks at it. A request nested deeper than :data:`MAX_DEPTH`
is refused (nothing the contract defines needs ten levels), so no later walk recurses far.

Stdlib only and small: this runs on every request. A string is tested by encoding it (UTF-8
refuses exactly the surrogates); ``re`` is imported only to replace them.
"""

from __future__ import annotations

MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (as ``caesar_core.safefs`` does)."""
REPLACEMENT = "\ufffd"
SURROGATE = r"[\ud800-\udfff]"


class TooDeepError(ValueError):
    """The request nests deeper than :data:`MAX_DEPTH`."""


def text(value: str) -> str:
    """``value`` with each lone surrogate replaced; ``value`` itself when it has none."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        import re

        return re.sub(SURROGATE, REPLACEMENT, value)
    return value


def well_formed(value: object, depth: int = 0) -> object:
    """A copy of a JSON value whose strings are all well-formed; :class:`TooDeepError` when it
    nests deeper than :data:`MAX_DEPTH`. Values of other types are kept as they are."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            raise TooDeepError(f"the request nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, list):
            return [well_formed(item, depth + 1) for item in value]
        return {
            text(key) if isinstance(key, str) else key: well_formed(item, depth + 1)
            for key, item in value.items()
        }
    return value
