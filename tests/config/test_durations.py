"""Durations: the spellings people write, the ones refused, and the canonical round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from caesar_core.config import Duration, DurationError, format_duration, parse_duration
from caesar_core.config.durations import MAX_DURATION_MS


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("500ms", 500),
        ("90s", 90_000),
        ("10m", 600_000),
        ("1h", 3_600_000),
        ("1h30m", 5_400_000),
        ("1m30s", 90_000),
        ("1s500ms", 1_500),
        ("2h0m5s", 7_205_000),
        (" 10m ", 600_000),
        (750, 750),
        ("168h", MAX_DURATION_MS),
    ],
)
def test_accepted_spellings(text: str | int, ms: int) -> None:
    assert parse_duration(text) == ms


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("5x", "is not a duration"),
        ("10", "has no unit"),
        ("30m1h", "is not a duration"),
        ("1.5h", "is not a duration"),
        ("", "is not a duration"),
        ("0s", "not a positive duration"),
        (0, "not a positive duration"),
        (-5, "not a positive duration"),
        (True, "expected a duration"),
        (1.5, "expected a duration"),
        ([1], "expected a duration"),
        ("99999999999999999h", "longer than 168h"),
        ("169h", "longer than 168h"),
        ("9" * 5000 + "s", "longer than 168h"),
        (MAX_DURATION_MS + 1, "longer than 168h"),
    ],
)
def test_refused_spellings_say_what_is_accepted(value: object, fragment: str) -> None:
    with pytest.raises(DurationError, match=fragment):
        parse_duration(value)


def test_format_is_canonical() -> None:
    assert format_duration(5_400_000) == "1h30m"
    assert format_duration(90_000) == "1m30s"
    assert format_duration(1) == "1ms"
    with pytest.raises(ValueError, match="positive"):
        format_duration(0)


def test_a_pasted_value_is_clipped_in_the_error() -> None:
    with pytest.raises(DurationError) as refused:
        parse_duration("x" * 100_000)
    assert len(str(refused.value)) < 300 and "100,000 characters" in str(refused.value)


@given(st.integers(min_value=1, max_value=MAX_DURATION_MS))
def test_format_then_parse_round_trips(ms: int) -> None:
    assert parse_duration(format_duration(ms)) == ms


@given(
    st.tuples(
        *(st.integers(min_value=0, max_value=top) for top in (100, 3_000, 10_000, 10_000))
    ).filter(any),
)
def test_any_written_duration_parses_to_its_sum(parts: tuple[int, int, int, int]) -> None:
    """Components need not be reduced ("90m" is fine); zeros may be written or left out (all
    within the week a duration may last)."""
    hours, minutes, seconds, millis = parts
    text = "".join(
        f"{count}{unit}"
        for count, unit in zip(parts, ("h", "m", "s", "ms"), strict=True)
        if count or unit == "m"
    )
    expected = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
    assert parse_duration(text) == expected
    assert parse_duration(format_duration(expected)) == expected


def test_duration_type() -> None:
    duration = Duration.parse("1h30m")
    assert duration == Duration(5_400_000)
    assert str(duration) == "1h30m"
    assert duration.seconds == 5400.0
    assert duration.timedelta.total_seconds() == 5400
    assert Duration.parse(duration) is duration
    assert Duration(1) < Duration(2)
    with pytest.raises(ValueError, match="positive"):
        Duration(0)


class _Holder(BaseModel):
    timeout: Duration


def test_duration_in_a_model_validates_and_serializes_as_text() -> None:
    assert _Holder.model_validate({"timeout": "2m"}).timeout.ms == 120_000
    assert _Holder(timeout=Duration(120_000)).model_dump() == {"timeout": "2m"}
    with pytest.raises(ValidationError, match="is not a duration"):
        _Holder.model_validate({"timeout": "2 minutes"})
