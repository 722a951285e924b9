"""The one place the app reads the time, so tests and snapshots can fix it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def fixed_clock(moment: datetime) -> Clock:
    return lambda: moment
