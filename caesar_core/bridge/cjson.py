"""``json.loads`` and ``json.dumps`` for the hot path, without importing ``json``.

Importing ``json`` imports ``re``, and ``re`` imports ``enum`` and ``functools``: together
more instructions than the interpreter's own start, on every tool call. ``json`` itself does
its work in the C accelerator ``_json``; this module calls that accelerator as ``json`` does
and hands everything else to ``json`` itself, so every answer and every error is the
standard library's, word for word:

* :func:`loads` scans ``str`` or UTF-8 ``bytes`` with ``_json.make_scanner`` configured as
  ``json.JSONDecoder`` configures it (strict, ``float``, ``int``; ``parse_constant`` as
  given). A document it does not accept whole (not JSON, extra data, a byte-order mark,
  UTF-16 or UTF-32, bytes that are not UTF-8, nesting too deep, a ``parse_constant`` that
  raises) goes to ``json.loads``, which raises its own error for it.
* :func:`dumps` encodes with ``_json.make_encoder`` as ``json.dumps`` does when its options
  are ``sort_keys``, ``separators`` and ``default`` (``ensure_ascii``, ``check_circular``
  and ``allow_nan`` at their defaults). Any other option (``indent``: the C encoder ignores
  it) and any failure (a value it cannot encode, a circular reference) go to ``json.dumps``.

``tests/bridge/test_cjson.py`` proves both equal to ``json`` over a corpus of documents,
hostile ones included.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # an interpreter without the accelerator: json does it all
    _json = None  # type: ignore[assignment]

WHITESPACE = " \t\n\r"
"""What ``json`` skips around a document (its ``WHITESPACE`` pattern)."""
FAST_DUMPS = frozenset({"sort_keys", "separators", "default"})
"""The ``json.dumps`` options the C encoder takes the same way."""


class _DecoderSettings:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``."""

    def __init__(self, parse_constant: Callable[[str], Any]) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = parse_constant


_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


def loads(document: str | bytes, *, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """``json.loads(document, parse_constant=parse_constant)``."""
    try:
        text = _text(document)
        if text is not None and _json is not None:
            settings = _DecoderSettings(parse_constant or _CONSTANTS.__getitem__)
            scan = _json.make_scanner(settings)  # type: ignore[arg-type]
            start = len(text) - len(text.lstrip(WHITESPACE))
            value, end = scan(text, start)
            if len(text.rstrip(WHITESPACE)) <= end:  # nothing but whitespace after it
                return value
    except Exception:  # json.loads below raises its own error for it
        pass
    import json

    return json.loads(document, parse_constant=parse_constant)


def _text(document: str | bytes) -> str | None:
    """The document as ``json.loads`` decodes it, when that is plain UTF-8; else None."""
    if isinstance(document, str):
        return None if document.startswith("\ufeff") else document
    if not isinstance(document, bytes) or len(document) < 2:
        return None
    # json.detect_encoding: a first byte that is ASCII (not a byte-order mark) and no NUL in
    # the first two bytes (not UTF-16 or UTF-32) is UTF-8.
    if not 0 < document[0] < 0x80 or not document[1]:
        return None
    return document.decode("utf-8", "surrogatepass")


def _no_default(value: object) -> object:
    raise TypeError(type(value).__name__)  # json.dumps below says it its own way


def dumps(value: object, **options: Any) -> str:
    """``json.dumps(value, **options)``."""
    if _json is not None and options.keys() <= FAST_DUMPS:
        try:
            if isinstance(value, str):
                return _json.encode_basestring_ascii(value)
            items, keys = options.get("separators") or (", ", ": ")
            encode = _json.make_encoder(
                {},
                options.get("default") or _no_default,
                _json.encode_basestring_ascii,
                None,
                keys,
                items,
                bool(options.get("sort_keys")),
                False,
                True,
            )
            return "".join(encode(value, 0))
        except Exception:  # json.dumps below raises its own error for it
            pass
    import json

    return json.dumps(value, **options)
