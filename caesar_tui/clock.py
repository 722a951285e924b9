"""The one place the app reads the time, so tests and snapshots can fix it, and the texts
that say how long (no Textual: ``caesar watch --once`` uses them too)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from caesar_core.protocol.approvals import Approval

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def fixed_clock(moment: datetime) -> Clock:
    return lambda: moment


def age(seconds: float) -> str:
    """Compact elapsed time: 12s, 4m, 3h, 2d."""
    whole = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"


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
    hours, rest = divmod(whole, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"times out in {hours}h {minutes:02d}m"
    return f"times out in {minutes}m {seconds:02d}s" if minutes else f"times out in {seconds}s"


def took(start: datetime, end: datetime) -> str:
    """How long a tool call ran: 0.4s, 12.0s, 3m05s."""
    seconds = max(0.0, (end - start).total_seconds())
    if seconds < 60:
        return f"{seconds:.1f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
