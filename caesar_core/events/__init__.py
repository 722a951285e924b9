"""The live event log: one writer that owns ``seq``, and tails that follow the file."""

from __future__ import annotations

from caesar_core.events.tail import (
    BadLine,
    EventBatch,
    EventTail,
    LineChunk,
    LineTail,
    read_events,
)
from caesar_core.events.writer import (
    EventWriter,
    encode_line,
    format_at,
    lock_path_for,
    utc_now,
)

__all__ = [
    "BadLine",
    "EventBatch",
    "EventTail",
    "EventWriter",
    "LineChunk",
    "LineTail",
    "encode_line",
    "format_at",
    "lock_path_for",
    "read_events",
    "utc_now",
]
