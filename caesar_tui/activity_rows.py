"""Events as the Activity tab's rows: one row per tool call, start and end merged.

Pure (no Textual), so it is tested on its own and the rows a person sees are exactly what the
events say. A call's row appears at its start (running) and is updated in place at its end;
pairing follows the fold's rules (call id, then tool and input, then the oldest open call of
the tool; Claude's id-only end borrows the opening's name).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from caesar_core.events.pairing import OpenCalls
from caesar_core.protocol.event import (
    AnswerEvent,
    ErrorEvent,
    Event,
    FileChangedEvent,
    FinishedEvent,
    MessageEvent,
    ProgressEvent,
    QuestionEvent,
    StartedEvent,
    ThinkingEvent,
    ToolStatus,
    ToolUseEvent,
)


@dataclass(frozen=True)
class Row:
    key: str
    """Stable across updates: a tool call's row keeps its key from start to end."""
    at: datetime
    kind: str
    """tool, message, thinking, progress, file, question, answer, error, started, finished."""
    title: str
    text: str
    status: str = ""
    """For tool rows: started, succeeded, failed."""
    ended_at: datetime | None = None


class RowBuilder:
    """Turns events into rows incrementally; ``feed`` returns the rows added or changed."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}
        self._open: OpenCalls[str] = OpenCalls()
        """Open calls and their row keys, paired by the contract's rules."""
        self._said: str | None = None

    def feed(self, events: list[Event]) -> list[Row]:
        touched: dict[str, Row] = {}
        for event in events:
            row = self._row(event)
            if row is not None:
                self.rows[row.key] = row
                touched[row.key] = row
        return list(touched.values())

    def _row(self, event: Event) -> Row | None:
        key = f"e{event.seq}"
        match event:
            case ToolUseEvent():
                self._said = None
                return self._tool(event, key)
            case MessageEvent():
                if self._said is not None and self._said in self.rows:
                    glued = self.rows[self._said]
                    return replace(glued, text=glued.text + event.text)
                self._said = key
                return Row(key, event.at, "message", "said", event.text)
            case _:
                self._said = None
        match event:
            case ThinkingEvent():
                return Row(key, event.at, "thinking", "thinking", event.text)
            case ProgressEvent():
                pct = "" if event.pct is None else f" ({event.pct:.0f}%)"
                return Row(key, event.at, "progress", "progress", event.message + pct)
            case FileChangedEvent():
                return Row(key, event.at, "file", event.action.value, event.path)
            case QuestionEvent():
                return Row(key, event.at, "question", "question", event.question)
            case AnswerEvent():
                return Row(key, event.at, "answer", "answer", event.answer)
            case ErrorEvent():
                return Row(
                    key, event.at, "error", "FATAL" if event.fatal else "error", event.message
                )
            case StartedEvent():
                return Row(key, event.at, "started", "started", f"{event.agent}  {event.command}")
            case FinishedEvent():
                return Row(
                    key, event.at, "finished", event.status.value, event.summary, event.status.value
                )
        return None

    def _tool(self, event: ToolUseEvent, key: str) -> Row:
        if event.status is ToolStatus.STARTED:
            row = Row(key, event.at, "tool", event.tool, event.input_summary, "started")
            self._open.open(event.id, event.tool, event.input_summary, key)
            return row
        opened = self._open.close(event.id, event.tool, event.input_summary)
        if opened is None:
            # The end came alone (opencode reports tools once finished): a completed row.
            return Row(
                key,
                event.at,
                "tool",
                event.tool or "tool",
                event.input_summary,
                event.status.value,
                event.at,
            )
        start = self.rows[opened]
        return replace(
            start,
            title=event.tool or start.title,
            text=event.input_summary or start.text,
            status=event.status.value,
            ended_at=event.at,
        )
