"""Durations as people write them in configuration: ``"90s"``, ``"10m"``, ``"1h30m"``, ``500``.

Timeouts are kept in milliseconds everywhere else (``task.json``'s ``deadline_ms``), but nobody
wants to type ``600000`` in a config file; a unit suffix reads at a glance. An integer stays
accepted as milliseconds so a value copied from a task document still works.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from caesar_core.humanize import quoted

_UNITS: tuple[tuple[str, int], ...] = (("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1))
# Units in decreasing order, each at most once: "1h30m" reads one way only, "30m1h" is refused.
_PATTERN = re.compile(r"(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?")
FORMS = '"500ms", "90s", "10m", "1h", "1h30m", or an integer number of milliseconds'
"""The accepted spellings, quoted in every error so the fix is in the message."""
MAX_DURATION_MS = 7 * 24 * 3_600_000
"""The longest duration accepted: 168h (a week). No task or approval waits longer; a value
beyond it is a typo, and one large enough overflows the clocks it is handed to."""
_MAX_DIGITS = 12


class DurationError(ValueError):
    """A duration that cannot be read; the message says which spellings are accepted."""


def parse_duration(value: object) -> int:
    """Milliseconds from a configuration value, or :class:`DurationError`.

    Booleans are refused although Python counts them as integers: ``timeout = true`` is a
    mistake, not one millisecond.
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise DurationError(f"expected a duration ({FORMS}), got {type(value).__name__}")
    shown = _shown(value)
    if isinstance(value, int):
        ms = value
    else:
        text = value.strip()
        if text.isdigit() and len(text) <= _MAX_DIGITS:
            raise DurationError(f"{shown} has no unit; write {text}ms, {text}s, or the integer")
        match = _PATTERN.fullmatch(text)
        if not text or match is None:
            raise DurationError(f"{shown} is not a duration; write {FORMS}")
        if any(part and len(part) > _MAX_DIGITS for part in match.groups()):
            raise DurationError(_too_long(shown))
        ms = sum(
            int(part) * factor
            for part, (_, factor) in zip(match.groups(), _UNITS, strict=True)
            if part
        )
    if ms <= 0:
        raise DurationError(f"{shown} is not a positive duration")
    if ms > MAX_DURATION_MS:
        raise DurationError(_too_long(shown))
    return ms


def _too_long(shown: str) -> str:
    return (
        f"{shown} is longer than {format_duration(MAX_DURATION_MS)} (a week), the longest "
        "duration caesar accepts"
    )


def _shown(value: str | int) -> str:
    """The value as an error quotes it, clipped: it may be anything a person pasted."""
    return quoted(value, 40)


def format_duration(ms: int) -> str:
    """The canonical spelling of ``ms`` (``5_400_000`` -> ``"1h30m"``); parses back to ``ms``."""
    if ms <= 0:
        raise ValueError(f"durations are positive, got {ms} ms")
    parts: list[str] = []
    rest = ms
    for unit, factor in _UNITS:
        count, rest = divmod(rest, factor)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


@dataclass(frozen=True, slots=True, order=True)
class Duration:
    """A positive span of time, read from and shown in the ``"1h30m"`` spelling.

    A type of its own (rather than a bare ``int``) keeps the unit out of guesswork: a field
    holding a ``Duration`` cannot be mistaken for seconds.
    """

    ms: int

    def __post_init__(self) -> None:
        if isinstance(self.ms, bool) or self.ms <= 0:
            raise ValueError(f"durations are positive, got {self.ms!r} ms")

    @classmethod
    def parse(cls, value: object) -> Duration:
        """A duration from ``"10m"``, ``600000`` or another :class:`Duration`."""
        return value if isinstance(value, Duration) else cls(parse_duration(value))

    @property
    def seconds(self) -> float:
        return self.ms / 1000

    @property
    def timedelta(self) -> timedelta:
        return timedelta(milliseconds=self.ms)

    def __str__(self) -> str:
        return format_duration(self.ms)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validate with :func:`parse_duration`, serialize as the canonical string."""

        def validate(value: object) -> Duration:
            try:
                return cls.parse(value)
            except DurationError as exc:
                raise PydanticCustomError("duration", "{problem}", {"problem": str(exc)}) from None

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )
