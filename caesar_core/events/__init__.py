"""The live event log: one writer that owns ``seq``, tails that follow the file, and the fold
that turns events into what a person wants to see.

Each name is loaded from its module on first use (PEP 562): ``caesar logs --json`` needs the
tail alone, not the fold or the writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from caesar_core.lazyexports import lazy_exports

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
    from caesar_core.events.fold import STALL_AFTER, ActivityFold
    from caesar_core.events.render import EventFormatter
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
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "activity": (
                "Activity",
                "ActivityStatus",
                "ErrorInfo",
                "FileTouch",
                "FinishInfo",
                "PendingQuestion",
                "ProgressInfo",
                "ToolCall",
            ),
            "fold": (
                "STALL_AFTER",
                "ActivityFold",
            ),
            "render": ("EventFormatter",),
            "tail": (
                "BadLine",
                "EventBatch",
                "EventTail",
                "LineChunk",
                "LineTail",
                "read_events",
                "read_last_events",
            ),
            "writer": (
                "EventWriter",
                "encode_line",
                "format_at",
                "lock_path_for",
                "utc_now",
            ),
        },
    )

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
