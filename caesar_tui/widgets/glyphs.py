"""Status marks shared by the tree, the header and the text frame."""

from __future__ import annotations

from caesar_core.store.record import TaskStatus

STATUS_GLYPH = {
    TaskStatus.PENDING: "·",
    TaskStatus.RUNNING: "▶",
    TaskStatus.SUCCEEDED: "✓",
    TaskStatus.FAILED: "✗",
    TaskStatus.CANCELLED: "⊘",
    TaskStatus.TIMED_OUT: "⏱",
}
STATUS_STYLE = {
    TaskStatus.PENDING: "dim",
    TaskStatus.RUNNING: "bold cyan",
    TaskStatus.SUCCEEDED: "green",
    TaskStatus.FAILED: "red",
    TaskStatus.CANCELLED: "yellow",
    TaskStatus.TIMED_OUT: "red",
}
NEEDS_INPUT = "?"
STALLED = "…"


def age(seconds: float) -> str:
    """Compact elapsed time: 12s, 4m, 3h, 2d."""
    whole = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"
