"""The one spelling of a clipped text, a quoted value, an age and a duration."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from caesar_core.humanize import age, clip, duration, one_line, quoted, took


def test_clip_keeps_a_short_text_and_marks_a_cut() -> None:
    assert clip("short", 10) == "short"
    assert clip("x" * 10, 10) == "x" * 10
    assert clip("x" * 11, 10) == "x" * 9 + "…"
    assert clip("a word and more", 8) == "a word…"  # no space left before the ellipsis
    assert clip("two\nlines", 20) == "two\nlines"  # prose keeps its newlines


def test_one_line_folds_whitespace_then_clips() -> None:
    assert one_line("a\tb\n\n  c ") == "a b c"
    assert one_line("a\nb " + "x" * 50, 10) == "a b xxxxx…"
    assert len(one_line("y" * 500, 48)) == 48


def test_quoted_says_the_length_of_what_it_cut() -> None:
    assert quoted("t_1") == "'t_1'"
    assert quoted("a\x1bb") == "'a\\x1bb'"
    long = quoted("z" * 10_000, 48)
    assert long.startswith("'zzz") and long.endswith("…' (10,000 characters)")
    assert len(long) < 80


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-3, "0s"),
        (0, "0s"),
        (59.9, "59s"),
        (60, "1m"),
        (3_599, "59m"),
        (7_200, "2h"),
        (86_400 * 3, "3d"),
    ],
)
def test_age_is_its_largest_whole_unit(seconds: float, shown: str) -> None:
    assert age(seconds) == shown


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-1, "0.0s"),
        (0.44, "0.4s"),
        (12, "12.0s"),
        (59.9, "59.9s"),
        (59.97, "59s"),  # never "60.0s"
        (65, "1m 05s"),
        (754, "12m 34s"),
        (3_725, "1h 02m"),
    ],
)
def test_duration_in_tenths_then_minutes_then_hours(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def test_duration_in_whole_seconds_and_between_two_moments() -> None:
    assert duration(12.7, tenths=False) == "12s"
    assert duration(90, tenths=False) == "1m 30s"
    start = datetime(2025, 1, 1, tzinfo=UTC)
    assert took(start, start + timedelta(seconds=3)) == "3.0s"
    assert took(start, start - timedelta(seconds=3)) == "0.0s"
