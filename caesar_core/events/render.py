"""Events as plain one-line text, for ``caesar logs`` and ``caesar demo`` (no Rich here:
the core prints for pipes and log files as readily as for terminals). What the agent wrote is
shown through ``caesar_core.terminal``: controls escaped, paths quoted."""

from __future__ import annotations

from caesar_core.events.pairing import OpenCalls
from caesar_core.humanize import clip, one_line, took
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
from caesar_core.terminal import quote_path, safe_text

_WIDTH = 160
_MARK = {ToolStatus.STARTED: "▸", ToolStatus.SUCCEEDED: "✓", ToolStatus.FAILED: "✗"}


class EventFormatter:
    """Formats events one at a time, remembering open calls to name and time their ends.

    Claude's closing edge carries only the call id; the formatter borrows the tool's name and
    summary from the opening, as the fold does, so the end line reads like the start line.
    """

    def __init__(self, width: int = _WIDTH) -> None:
        self.width = width
        self._open: OpenCalls[ToolUseEvent] = OpenCalls(cap=256)
        self._gated = False
        self._trusted: int | None = None

    def trust_finished(self, seq: int | None) -> None:
        """Only the ``finished`` event numbered ``seq`` (caesar's own, as its record names it;
        ``None``: none yet) reads as the task's ending; any other is shown as a line caesar
        did not write. A formatter never told this shows every ``finished`` as it is."""
        self._gated = True
        self._trusted = seq

    def trust_any(self) -> None:
        """Show every ``finished`` as it is (a record older than ``finished_seq``)."""
        self._gated = False

    def caesars(self, event: FinishedEvent) -> bool:
        """Whether ``event`` is caesar's own ending (always, for a formatter never told)."""
        return not self._gated or (self._trusted is not None and event.seq == self._trusted)

    def format(self, event: Event) -> str:
        stamp = event.at.astimezone().strftime("%H:%M:%S")
        # Every field but the stamp is the agent's: shown with its controls escaped.
        return clip(f"{stamp}  {safe_text(self._body(event))}", self.width)

    def _body(self, event: Event) -> str:
        match event:
            case StartedEvent():
                return f"started   {event.agent}  {event.command}".rstrip()
            case ThinkingEvent():
                return f"thinking  {one_line(event.text)}"
            case MessageEvent():
                return f"said      {one_line(event.text)}"
            case ToolUseEvent():
                return self._tool(event)
            case FileChangedEvent():
                return f"file      {event.action.value} {quote_path(event.path)}"
            case ProgressEvent():
                pct = "" if event.pct is None else f" ({event.pct:.0f}%)"
                return f"progress  {event.message}{pct}"
            case QuestionEvent():
                options = f"  [{' / '.join(event.options)}]" if event.options else ""
                return f"question  {event.id}: {event.question}{options}"
            case AnswerEvent():
                return f"answer    {event.id}: {event.answer}"
            case ErrorEvent():
                return f"{'FATAL' if event.fatal else 'error'}     {event.message}"
            case FinishedEvent():
                code = "" if event.exit_code is None else f" (exit {event.exit_code})"
                said = f"{event.status.value}{code}: {one_line(event.summary)}"
                if not self.caesars(event):
                    return f"ignored   a finished line caesar did not write ({said})"
                return f"finished  {said}"
        return event.type  # pragma: no cover - the union is exhaustive

    def _tool(self, event: ToolUseEvent) -> str:
        tool, summary, elapsed = event.tool, event.input_summary, ""
        if event.status is ToolStatus.STARTED:
            self._open.open(event.id, event.tool, event.input_summary, event)
        else:
            opening = self._open.close(event.id, event.tool, event.input_summary)
            if opening is not None:
                tool = tool or opening.tool
                summary = summary or opening.input_summary
                elapsed = f"  {took(opening.at, event.at)}"
        return f"{_MARK[event.status]} {tool or 'tool':<8}{one_line(summary)}{elapsed}"
