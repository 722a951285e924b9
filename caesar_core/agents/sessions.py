"""An agent CLI's own session id: taken from its output, checked, and handed back next turn.

A follow-up turn resumes the session the previous turn's stream named (codex's thread id,
Claude Code's ``session_id``, opencode's ``sessionID``, Gemini CLI's and Qwen Code's
``session_id``, Copilot CLI's ``result`` ``sessionId``, or what a generic ``[[agent]]`` prints
at its ``session_from`` pointer). The id comes from an agent's
output, so it is hostile input: it goes on the next command line as one argument (never
through a shell), where one starting with a dash would read as an option. Only ids of ASCII
letters, digits and ``_ . : -`` (a letter or digit first), at most 128 characters, are kept.
"""

from __future__ import annotations

import re

from caesar_core import safefs
from caesar_core.agents.base import SilentTranslator
from caesar_core.protocol.event import EventPayload

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")


def session_id(value: object) -> str | None:
    """``value`` when it is a session id caesar passes back, else None."""
    return value if isinstance(value, str) and SESSION_ID.fullmatch(value) else None


class PointerError(ValueError):
    """Not a JSON pointer (RFC 6901): it must be empty or start with ``/``."""


def pointer_parts(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer, ``~1`` and ``~0`` unescaped."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"{pointer!r} is not a JSON pointer: it must start with '/'")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def resolve(document: object, parts: list[str]) -> object:
    """What the pointer names in ``document``, or None when it names nothing."""
    current = document
    for part in parts:
        if isinstance(current, dict):
            current = current.get(part)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


class PointerTranslator(SilentTranslator):
    """A generic agent's output: every line is just output, and each line that is a JSON
    object is looked up at ``session_from`` (a JSON pointer); the last valid id found is the
    session."""

    def __init__(self, session_from: str) -> None:
        super().__init__()
        self._parts = pointer_parts(session_from)

    def feed(self, line: str) -> list[EventPayload]:
        events = super().feed(line)
        text = line.strip()
        if text.startswith("{"):
            try:
                found = session_id(resolve(safefs.loads(text), self._parts))
            except ValueError:
                found = None
            if found is not None:
                self.session = found
        return events
