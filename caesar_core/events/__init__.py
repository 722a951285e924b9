"""The live event log: one writer that owns ``seq``, tails that follow the file, and the fold
that turns events into what a person wants to see.

Each name loads with its module on first use (:mod:`caesar_core.lazy`): ``caesar run`` writes
and follows a log without building the fold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from caesar_core.lazy import exports

if TYPE_CHECKING:
    from caesar_core.events.activity import (
        Activity,
        ActivityStatus,
        ErrorInfo,
        FileTouch,
        FinishInfo,
        PendingQuestion,
        ProgressInfo,
        ToolCall,
    )
    from caesar_core.events.fold import (
        STALL_AFTER,
        ActivityFold,
    )
    from caesar_core.events.render import (
        EventFormatter,
    )
    from caesar_core.events.tail import (
        BadLine,
        EventBatch,
        EventTail,
        LineChunk,
        LineTail,
        read_events,
        read_last_events,
    )
    from caesar_core.events.writer import (
        EventWriter,
        encode_line,
        format_at,
        lock_path_for,
        utc_now,
    )

_HOMES = {
    "caesar_core.events.activity": (
        "Activity",
        "ActivityStatus",
        "ErrorInfo",
        "FileTouch",
        "FinishInfo",
        "PendingQuestion",
        "ProgressInfo",
        "ToolCall",
    ),
    "caesar_core.events.fold": (
        "STALL_AFTER",
        "ActivityFold",
    ),
    "caesar_core.events.render": ("EventFormatter",),
    "caesar_core.events.tail": (
        "BadLine",
        "EventBatch",
        "EventTail",
        "LineChunk",
        "LineTail",
        "read_events",
        "read_last_events",
    ),
    "caesar_core.events.writer": (
        "EventWriter",
        "encode_line",
        "format_at",
        "lock_path_for",
        "utc_now",
    ),
}
__getattr__ = exports(__name__, _HOMES)

__all__ = [
    "STALL_AFTER",
    "Activity",
    "ActivityFold",
    "ActivityStatus",
    "BadLine",
    "ErrorInfo",
    "EventBatch",
    "EventFormatter",
    "EventTail",
    "EventWriter",
    "FileTouch",
    "FinishInfo",
    "LineChunk",
    "LineTail",
    "PendingQuestion",
    "ProgressInfo",
    "ToolCall",
    "encode_line",
    "format_at",
    "lock_path_for",
    "read_events",
    "read_last_events",
    "utc_now",
]
