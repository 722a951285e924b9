"""The single way documents enter the program: validated, null-tolerant, version-checked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from caesar_core.errors import CaesarError
from caesar_core.protocol.versions import (
    DocumentKind,
    UnsupportedProtocolError,
    kind_of_protocol,
    supported_versions,
)
from caesar_core.safefs import TooDeepError, check_depth

T = TypeVar("T")

Raw = bytes | str | Mapping[str, Any]


def strip_nulls(value: Any) -> Any:
    """Drop ``null`` members of every object, recursively: an explicit null reads as absent.

    Native structured outputs (codex ``--output-schema``) must emit every key and use null for
    "not given"; the spec's defaults then apply as if the key were missing.
    """
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def _as_python(raw: Raw) -> Any:
    if isinstance(raw, Mapping):
        return dict(raw)
    return json.loads(raw)


def parse(adapter: TypeAdapter[T], raw: Raw, kind: DocumentKind | None = None) -> T:
    """Validate ``raw`` (JSON text or an already-decoded object) into the adapter's type.

    The fast path is pydantic's JSON validator; only a document it rejects pays for the
    null-stripping retry. Raises :class:`UnsupportedProtocolError` when the document declares a
    version this build does not read, ``pydantic.ValidationError`` when it is otherwise invalid,
    and ``ValueError`` when it is not JSON at all, or nests deeper than
    :data:`caesar_core.safefs.MAX_JSON_DEPTH` (checked before any parser recurses into it).
    """
    if not isinstance(raw, Mapping):
        check_depth(raw)
    try:
        if isinstance(raw, Mapping):
            return adapter.validate_python(raw)
        return adapter.validate_json(raw)
    except ValidationError as first:
        try:
            data = _as_python(raw)
        except ValueError as not_json:
            raise not_json from None
        _refuse_unknown_version(data, kind, first)
        if not _contains_null(data):
            raise
        return adapter.validate_python(strip_nulls(data))


def _contains_null(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_contains_null(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_null(v) for v in value)
    return False


def _refuse_unknown_version(data: Any, kind: DocumentKind | None, cause: ValidationError) -> None:
    if not isinstance(data, dict) or "protocol" not in data:
        return
    found = data["protocol"]
    expected = kind if kind is not None else kind_of_protocol(found)
    if found not in supported_versions(expected):
        raise UnsupportedProtocolError(expected, found) from cause


def problem_text(error: BaseException) -> str:
    """What is wrong with a document, in one line naming the field: ``question: String should
    have at least 1 character (+1 more)``; never pydantic's multi-line report."""
    if isinstance(error, ValidationError):
        errors = error.errors(include_url=False)
        if not errors:
            return _one_line(str(error))
        first = errors[0]
        if first["type"] == "json_invalid":
            return _one_line(f"not JSON: {first.get('ctx', {}).get('error', first['msg'])}")
        where = ".".join(str(part) for part in first["loc"])
        text = f"{where}: {first['msg']}" if where else first["msg"]
        if len(errors) > 1:
            text += f" (+{len(errors) - 1} more)"
        return _one_line(text)
    if isinstance(error, CaesarError):
        return _one_line(error.reason)
    if isinstance(error, TooDeepError):
        return _one_line(f"refused: {error}")
    if isinstance(error, ValueError):
        return _one_line(f"not JSON: {error}")
    return _one_line(f"{type(error).__name__}: {error}")


def _one_line(text: str) -> str:
    return " ".join(text.split())
