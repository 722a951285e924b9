"""The task directory and the ``CAESAR_*`` environment: where each file of a task lives.

The agent can write its task directory, so caesar trusts ``root`` as a path and nothing below
it: every read and write there goes through :mod:`caesar_core.safefs`, relative to ``root``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from caesar_core.errors import CaesarError
from caesar_core.protocol.versions import PROTOCOL_VERSION


class UnsafeTaskFileError(CaesarError):
    """caesar would not read or write an entry of a task directory: a link (perhaps to a file
    outside the project), a FIFO, a directory where a file belongs, a hard link."""

    def __init__(self, doing: str, error: OSError) -> None:
        super().__init__(
            f"{doing}: {error}",
            "the agent replaced part of its task directory, and caesar does not follow links "
            "or open FIFOs there; look at that entry (it may point outside the project), "
            "remove it, or cancel the task",
        )


@dataclass(frozen=True)
class TaskPaths:
    """Every path of one task directory (spec, "The task directory").

    Only ``task.json`` and ``report.json`` are required by the contract; the rest exist when
    something writes them.
    """

    root: Path

    @property
    def task_file(self) -> Path:
        return self.root / "task.json"

    @property
    def report(self) -> Path:
        return self.root / "report.json"

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def raw_log(self) -> Path:
        return self.root / "raw.log"

    @property
    def questions(self) -> Path:
        return self.root / "questions"

    @property
    def answers(self) -> Path:
        return self.root / "answers"

    @property
    def report_schema(self) -> Path:
        """The strict report schema handed to agents with native structured output."""
        return self.root / "report.schema.json"

    @property
    def final_message(self) -> Path:
        """The agent's last message, as its CLI wrote it (codex ``-o``)."""
        return self.root / "final-message.txt"


ENV_TASK_DIR = "CAESAR_TASK_DIR"
ENV_TASK_FILE = "CAESAR_TASK_FILE"
ENV_REPORT_PATH = "CAESAR_REPORT_PATH"
ENV_EVENTS_PATH = "CAESAR_EVENTS_PATH"
ENV_TASK_ID = "CAESAR_TASK_ID"
ENV_AGENT = "CAESAR_AGENT"
ENV_DEPTH = "CAESAR_DEPTH"
ENV_PROTOCOL_VERSION = "CAESAR_PROTOCOL_VERSION"
ENV_STREAM_EVENTS = "CAESAR_STREAM_EVENTS"
"""Not one of the contract's eight: ``1`` when caesar translates the agent's own JSON stream
into events, so the agent's hooks (``caesar hook``) do not report the same calls again."""


def task_environment(paths: TaskPaths, task_id: str, agent: str, depth: int) -> dict[str, str]:
    """The eight ``CAESAR_*`` variables every agent process receives."""
    return {
        ENV_TASK_DIR: str(paths.root),
        ENV_TASK_FILE: str(paths.task_file),
        ENV_REPORT_PATH: str(paths.report),
        ENV_EVENTS_PATH: str(paths.events),
        ENV_TASK_ID: task_id,
        ENV_AGENT: agent,
        ENV_DEPTH: str(depth),
        ENV_PROTOCOL_VERSION: PROTOCOL_VERSION,
    }
