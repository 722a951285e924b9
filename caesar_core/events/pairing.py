"""Which open tool call a closing edge ends: the contract's pairing rules, in one place.

The fold, the Activity tab's rows and anything else that shows calls use this, so a call is
paired the same way everywhere: by call id; else the same tool with the same input; else the
oldest open call of the same tool (two identical commands without ids pair first-in
first-out). A call opened under another id is another call and is never taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

V = TypeVar("V")
_DROPPED_KEPT = 4
"""Dropped ids remembered, in multiples of the cap."""


class OpenCalls(Generic[V]):
    """Open calls, oldest first, each carrying a value (the opening event, a row key...).

    ``cap`` bounds a stream whose calls never close: past it the oldest open call is dropped
    and counted in ``lost`` until its end arrives (the ids of the dropped calls are kept, a
    few times ``cap`` of them). Lookups by id are O(1); the fallbacks scan the (bounded) list.
    """

    def __init__(self, cap: int | None = None) -> None:
        self.cap = cap
        self.lost = 0
        self._calls: dict[int, tuple[str, str, str, V]] = {}
        self._by_id: dict[str, int] = {}
        self._dropped: dict[str, None] = {}
        """Ids of dropped calls whose end has not come, oldest first (bounded)."""
        self._next = 0

    def open(self, call_id: str, tool: str, summary: str, value: V) -> bool:
        """Register an opening; False (and nothing changes) when that id is already open."""
        if call_id and call_id in self._by_id:
            return False
        if self.cap is not None and len(self._calls) >= self.cap:
            oldest = next(iter(self._calls))
            dropped_id = self._calls.pop(oldest)[0]
            if dropped_id:
                del self._by_id[dropped_id]
                self._dropped[dropped_id] = None
                if len(self._dropped) > _DROPPED_KEPT * self.cap:
                    del self._dropped[next(iter(self._dropped))]
            self.lost += 1
        self._calls[self._next] = (call_id, tool, summary, value)
        if call_id:
            self._by_id[call_id] = self._next
        self._next += 1
        return True

    def close(self, call_id: str, tool: str, summary: str) -> V | None:
        """The value of the call this closing edge ends (removed), or None for an orphan."""
        key = self._by_id.get(call_id) if call_id else None
        if key is None and call_id in self._dropped:
            del self._dropped[call_id]  # a call dropped past the cap ended after all
            self.lost -= 1
            return None
        if key is None and self._calls:
            key = self._match(call_id, tool, summary)
        if key is None:
            return None
        opened_id, _, _, value = self._calls.pop(key)
        if opened_id:
            del self._by_id[opened_id]
        return value

    def _match(self, call_id: str, tool: str, summary: str) -> int | None:
        same_tool: int | None = None
        for key, (opened_id, opened_tool, opened_summary, _) in self._calls.items():
            if (call_id and opened_id) or opened_tool != tool:
                continue
            if tool and opened_summary == summary:
                return key
            if same_tool is None:
                same_tool = key
        return same_tool

    def values(self) -> Iterator[V]:
        """Oldest first."""
        return (entry[3] for entry in self._calls.values())

    def newest(self) -> V | None:
        return next(reversed(self._calls.values()))[3] if self._calls else None

    def __len__(self) -> int:
        return len(self._calls)

    def __bool__(self) -> bool:
        return bool(self._calls)
