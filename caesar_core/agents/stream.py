"""The common half of every JSON-stream translator: decoding, counting, pairing, closing.

Agent CLIs change their streams often and without notice, so a translator must take any
line: a banner, a half-written line from a process that died, an event type nobody has seen.
This base decodes each line once, hands objects to the CLI-specific ``handle``, and keeps
the facts every adapter needs the same way: the lines it could not use (counted, never
fatal; the raw text is already in ``raw.log``), the tool calls still open (closed as failed
when the stream ends mid-call, so every start has its end), the last message, the usage and
whether the stream itself said the run failed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from caesar_core import safefs
from caesar_core.agents.sessions import session_id
from caesar_core.bridge.scan import clip, redact
from caesar_core.protocol.event import EventPayload, ToolStatus, ToolUse
from caesar_core.protocol.report import Usage

_N = TypeVar("_N", int, float)

SUMMARY_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "path",
    "absolute_path",
    "pattern",
    "query",
    "url",
    "prompt",
    "description",
)
"""Where a tool's input says what it does, most telling first (shared by the CLIs' tools)."""


class JsonStreamTranslator:
    """Base for translators of JSONL streams; subclasses implement ``handle``.

    ``workspace`` is where the agent works: paths it reports become relative to it, since
    ``file_changed`` paths are workspace-relative by contract.
    """

    agent = "agent"

    def __init__(self, workspace: str | Path) -> None:
        self.workspace = Path(workspace)
        self.skipped = 0
        """Lines that were not JSON objects, or objects of a type never seen before."""
        self.failure: str | None = None
        """Set when the stream itself says the run failed (a failed turn, an error result)."""
        self.session: str | None = None
        """The CLI's own session id, the last valid one the stream named (``saw_session``)."""
        self._final_text: str | None = None
        self._usage: Usage | None = None
        self._open: dict[str, tuple[str, str]] = {}

    # -- the Translator protocol -------------------------------------------------------------

    def feed(self, line: str) -> list[EventPayload]:
        text = line.strip()
        if not text:
            return []
        try:
            obj = safefs.loads(text)
        except ValueError:
            self.skipped += 1
            return []
        if not isinstance(obj, dict):
            self.skipped += 1
            return []
        return self.handle(obj)

    def close(self) -> list[EventPayload]:
        """The stream ended: every call still open ends as failed, oldest first."""
        ends = [
            ToolUse(tool=tool, id=call_id, input_summary=summary, status=ToolStatus.FAILED)
            for call_id, (tool, summary) in self._open.items()
        ]
        self._open.clear()
        return list(ends)

    @property
    def final_text(self) -> str | None:
        return self._final_text

    @property
    def usage(self) -> Usage | None:
        return self._usage

    # -- for subclasses ----------------------------------------------------------------------

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        raise NotImplementedError

    def ignore(self) -> list[EventPayload]:
        """A known object with nothing to show (an init line, a rate-limit notice)."""
        return []

    def unknown(self) -> list[EventPayload]:
        """An object of a type this translator was not written for: counted, not shown."""
        self.skipped += 1
        return []

    def start_call(self, call_id: str, tool: str, summary: str) -> list[EventPayload]:
        """A call's opening edge; a second opening of an open id is not repeated."""
        if call_id in self._open:
            return []
        self._open[call_id] = (tool, summary)
        return [ToolUse(tool=tool, id=call_id, input_summary=summary, status=ToolStatus.STARTED)]

    def end_call(
        self, call_id: str, ok: bool, tool: str = "", summary: str = ""
    ) -> list[EventPayload]:
        """A call's closing edge. One that never opened gets its opening first, so a reader
        always sees the pair (CLIs that report calls only when done rely on this)."""
        opened = self._open.pop(call_id, None)
        events: list[EventPayload] = []
        if opened is None:
            events.append(
                ToolUse(tool=tool, id=call_id, input_summary=summary, status=ToolStatus.STARTED)
            )
        else:
            tool = tool or opened[0]
            summary = summary or opened[1]
        status = ToolStatus.SUCCEEDED if ok else ToolStatus.FAILED
        events.append(ToolUse(tool=tool, id=call_id, input_summary=summary, status=status))
        return events

    def is_open(self, call_id: str) -> bool:
        return call_id in self._open

    def saw_session(self, value: object) -> None:
        """The stream named its session: kept when it is an id caesar can pass back."""
        found = session_id(value)
        if found is not None:
            self.session = found

    def said(self, text: str) -> None:
        """Remember the agent's latest message (the degraded tier's first place to look)."""
        if text.strip():
            self._final_text = text

    def add_usage(
        self,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cost_usd: float | None = None,
        *,
        replace: bool = False,
        source: str | None = None,
    ) -> None:
        """Accumulate usage (``replace`` for streams whose numbers are already totals);
        ``source`` says where they come from when it is not the stream."""
        previous = None if replace else self._usage
        self._usage = Usage(
            input_tokens=_plus(previous.input_tokens if previous else None, input_tokens),
            output_tokens=_plus(previous.output_tokens if previous else None, output_tokens),
            cost_usd=_plus(previous.cost_usd if previous else None, cost_usd),
            source=source or f"{self.agent} stream",
        )

    def relative(self, path: str) -> str:
        """``path`` relative to the workspace when it is inside it, else as given."""
        if not path:
            return path
        candidate = Path(path)
        if not candidate.is_absolute():
            return candidate.as_posix()
        for base in _spellings(self.workspace):
            try:
                return candidate.relative_to(base).as_posix()
            except ValueError:
                continue
        return path


def summarize(value: object) -> str:
    """A tool input in one line of at most ``scan.SUMMARY_MAX`` (200) characters."""
    if isinstance(value, Mapping):
        for key in SUMMARY_KEYS:
            found = value.get(key)
            if isinstance(found, str) and found.strip():
                return _clip(found)
            if isinstance(found, list) and found and all(isinstance(x, str) for x in found):
                return _clip(" ".join(found))
        if not value:
            return ""
        return _clip(json.dumps(value, ensure_ascii=False, sort_keys=True))
    if value is None:
        return ""
    return _clip(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def _clip(text: str) -> str:
    """Secrets replaced by their kind (the bridge's scanner), then one line of at most
    ``scan.SUMMARY_MAX`` characters: a summary lands in events.jsonl, which every view shows."""
    return clip(redact(text))


def _plus(a: _N | None, b: _N | None) -> _N | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _spellings(workspace: Path) -> list[Path]:
    """The workspace as given and with symlinks resolved (``/tmp`` vs ``/private/tmp``)."""
    found = [workspace]
    resolved = Path(os.path.realpath(workspace))
    if resolved != workspace:
        found.append(resolved)
    return found


def as_int(value: object) -> int | None:
    """A token count from a stream: ints only (a bool or a string is not a count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def as_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value >= 0 else None
