"""The one place the app reads the time, so tests and snapshots can fix it, and how long a
held tool call has left (no Textual: ``caesar watch --once`` uses it too). Ages and durations
are spelled by ``caesar_core.humanize``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from caesar_core.humanize import duration
from caesar_core.protocol.approvals import Approval

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def fixed_clock(moment: datetime) -> Clock:
    return lambda: moment


def remaining(approval: Approval, now: datetime) -> float | None:
    """Seconds until the bridge stops waiting (negative once past); None: it never does."""
    if approval.timeout_s is None:
        return None
    deadline = approval.asked_at + timedelta(seconds=approval.timeout_s)
    return (deadline - now).total_seconds()


def countdown(approval: Approval, now: datetime) -> str:
    left = remaining(approval, now)
    if left is None:
        return "no timeout: the tool call waits for you"
    if left <= 0:
        return "timed out: the bridge applies its default"
    whole = int(left + 0.999)  # 0.4 s left still reads "1s", never "0s" while it waits
    return f"times out in {duration(whole, tenths=False)}"
