"""The task's live log, fed from hooks: an agent seen only through them shows in ``caesar watch``.

Only when ``CAESAR_TASK_DIR`` is set, and not when the runner already reads the agent's own
stream (``CAESAR_STREAM_EVENTS=1``: the same calls would show twice). Events are collected
during the hook and appended in one batch at the end, through
:class:`caesar_core.events.writer.EventWriter` (the only producer of ``seq``); that import
pulls in pydantic, which is why it happens here, lazily, and only then.

``started`` and ``finished`` are never written: the runner owns them, and an agent seen only
through hooks without a runner has no task lifecycle to report. Every text is redacted first:
tool summaries come from the bridge's scanner, messages are redacted and capped, and every
string of every event (the tool's name, the client's call id) is scanned again as the batch
is written (:func:`caesar_core.bridge.scan.scrubbed`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ENV_TASK_DIR = "CAESAR_TASK_DIR"
ENV_TASK_ID = "CAESAR_TASK_ID"
ENV_EVENTS_PATH = "CAESAR_EVENTS_PATH"
ENV_STREAM_EVENTS = "CAESAR_STREAM_EVENTS"
"""Set to ``1`` by caesar's runner when it already turns the agent's own JSON stream into the
task's events (``caesar run --agent claude``): the hooks then gate and record, but do not
write the same tool calls a second time."""
MESSAGE_MAX = 4000


def redacted(text: str, limit: int = MESSAGE_MAX) -> str:
    """Secrets replaced by their kind, then capped; newlines kept (a message is prose)."""
    from caesar_core.bridge.scan import redact
    from caesar_core.humanize import clip

    return clip(redact(text), limit)


def tool_summary(tool_input: object) -> str:
    from caesar_core.bridge.scan import summary

    return summary(tool_input)


class TaskLog:
    """Events for the task in ``env``, if any; :meth:`flush` writes them, never raising."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.pending: list[dict[str, Any]] = []

    @property
    def active(self) -> bool:
        return bool(self.env.get(ENV_TASK_DIR, "")) and self.env.get(ENV_STREAM_EVENTS) != "1"

    def tool(self, status: str, tool: str, tool_use_id: str | None, tool_input: object) -> None:
        if self.active:
            self.pending.append(
                {
                    "type": "tool_use",
                    "status": status,
                    "tool": tool,
                    "id": tool_use_id or "",
                    "input_summary": tool_summary(tool_input),
                }
            )

    def message(self, text: str | None) -> None:
        if self.active and text and text.strip():
            self.pending.append({"type": "message", "text": redacted(text)})

    def error(self, text: str) -> None:
        if self.active:
            self.pending.append({"type": "error", "message": redacted(text, 500), "fatal": False})

    def progress(self, text: str) -> None:
        if self.active and text.strip():
            self.pending.append({"type": "progress", "message": redacted(text, 500)})

    def flush(self) -> str:
        """Append what was collected; a warning for stderr when that failed, else ``""``."""
        if not self.pending:
            return ""
        from pathlib import Path  # only with a task: pydantic is loaded below anyway

        task_dir = self.env[ENV_TASK_DIR]
        path = Path(self.env.get(ENV_EVENTS_PATH) or os.path.join(task_dir, "events.jsonl"))
        task_id = self.env.get(ENV_TASK_ID) or os.path.basename(os.path.normpath(task_dir))
        try:
            from caesar_core.bridge.scan import scrubbed
            from caesar_core.events.writer import EventWriter
            from caesar_core.protocol.event import PAYLOAD_ADAPTER

            payloads = [PAYLOAD_ADAPTER.validate_python(scrubbed(item)) for item in self.pending]
            with EventWriter(path, task_id) as writer:
                writer.append_many(payloads)
        except Exception as exc:
            return f"caesar hook: events not appended to {path}: {type(exc).__name__}"
        finally:
            self.pending.clear()
        return ""
