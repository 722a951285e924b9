"""A follow-up turn's resumed session: whether the agent worked, and what to say when not.

A resumed run that fails before the agent did anything means its CLI could not load the
session (gone, or never saved); the runner then starts the turn again as a fresh session with
the full brief (``Runner._fresh_session``), and the report says so in a ``Fresh session``
finding, as it does when the CLI cannot resume at all or names another session than asked.
"""

from __future__ import annotations

from caesar_core.agents.base import Invocation, Translator
from caesar_core.protocol.event import Error, EventPayload, Progress
from caesar_core.protocol.report import Finding, Severity, Usage
from caesar_core.runner.supervise import Exit


def fresh_session(detail: str) -> Finding:
    return Finding(severity=Severity.INFO, title="Fresh session", detail=detail)


class WatchedTranslator:
    """A translator that also tells whether the agent did anything at all: a message, a
    thought, a tool call, a file (an error or a progress note is no work)."""

    def __init__(self, inner: Translator) -> None:
        self.inner = inner
        self.worked = False

    def feed(self, line: str) -> list[EventPayload]:
        events = self.inner.feed(line)
        self.worked = self.worked or any(not isinstance(e, Error | Progress) for e in events)
        return events

    def close(self) -> list[EventPayload]:
        return self.inner.close()

    @property
    def skipped(self) -> int:
        return self.inner.skipped

    @property
    def failure(self) -> str | None:
        return self.inner.failure

    @property
    def final_text(self) -> str | None:
        return self.inner.final_text

    @property
    def usage(self) -> Usage | None:
        return self.inner.usage

    @property
    def session(self) -> str | None:
        return self.inner.session


def session_lost(invocation: Invocation, ended: Exit, translator: WatchedTranslator) -> bool:
    """A resumed run that failed before the agent did anything: its CLI could not load the
    session (gone, or never saved: codex and gemini exit, Claude Code says "No conversation
    found"), and the turn is worth a fresh start."""
    return (
        invocation.resume_session is not None
        and ended.exit_code not in (0, None)
        and not (ended.timed_out or ended.cancelled or ended.spawn_error)
        and not translator.worked
    )


def other_session(asked: str | None, translator: Translator) -> Finding | None:
    """The finding for a CLI that named another session than the one it was asked to resume
    (it started a new one): the turn went on without the earlier turns' memory."""
    if asked is None or translator.session is None or translator.session == asked:
        return None
    return fresh_session(
        f"the agent was asked to resume its session {asked} and ran in session "
        f"{translator.session}: it may not remember the earlier turns."
    )
