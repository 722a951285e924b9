"""``events.jsonl``: the live stream, one self-contained JSON line per event.

Each event type exists twice, on purpose: a *payload* (``ToolUse``) is what an adapter or a
tool produces, and a *wire* event (``ToolUseEvent``) is that payload inside the envelope
(``protocol``, ``seq``, ``at``, ``task_id``) that only the event writer assigns. Producers
therefore cannot invent a ``seq``; readers always get a complete, validated envelope.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import AwareDatetime, ConfigDict, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.report import ChangeAction, ReportStatus
from caesar_core.protocol.versions import EventProtocol


class ToolStatus(StrEnum):
    STARTED = "started"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class Started(ProtocolModel):
    """The agent process was spawned."""

    type: Literal["started"] = "started"
    agent: str
    command: str = ""


class Thinking(ProtocolModel):
    type: Literal["thinking"] = "thinking"
    text: str


class Message(ProtocolModel):
    """Something the agent said; consecutive fragments form one utterance."""

    type: Literal["message"] = "message"
    text: str


class ToolUse(ProtocolModel):
    """One edge of a tool call: its start, or its end.

    ``id`` pairs the two edges of one call. Claude's closing edge carries only the id, so a
    closing event may have an empty ``tool``; readers borrow the name from the opening.
    """

    type: Literal["tool_use"] = "tool_use"
    tool: str = ""
    id: str = ""
    input_summary: str = ""
    status: ToolStatus


class FileChanged(ProtocolModel):
    type: Literal["file_changed"] = "file_changed"
    path: str
    action: ChangeAction = ChangeAction.MODIFIED


class Progress(ProtocolModel):
    type: Literal["progress"] = "progress"
    message: str
    pct: Annotated[float, Field(ge=0, le=100)] | None = None


class QuestionAsked(ProtocolModel):
    """A question put to the orchestrator through the return channel (mailbox mirror)."""

    type: Literal["question"] = "question"
    id: str
    question: str
    options: list[str] = Field(default_factory=list)


class Answered(ProtocolModel):
    type: Literal["answer"] = "answer"
    id: str
    answer: str


class Error(ProtocolModel):
    type: Literal["error"] = "error"
    message: str
    fatal: bool = False


class Finished(ProtocolModel):
    """caesar's last word on a task (one per writer). Agents can append a line that looks like
    one: readers take the outcome from caesar's record (``TaskRecord.finished_seq``)."""

    type: Literal["finished"] = "finished"
    status: ReportStatus
    summary: str = ""
    exit_code: int | None = None


EventPayload: TypeAlias = Annotated[
    Started
    | Thinking
    | Message
    | ToolUse
    | FileChanged
    | Progress
    | QuestionAsked
    | Answered
    | Error
    | Finished,
    Field(discriminator="type"),
]


def _type_required(schema: dict[str, Any]) -> None:
    """A wire event's published schema requires ``type``, as its reader does (the discriminated
    union picks the model by it); the default only serves producers building a payload."""
    kind = schema.get("properties", {}).get("type")
    if isinstance(kind, dict):
        kind.pop("default", None)
        required = schema.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")


class Envelope(ProtocolModel):
    """What the writer adds to every payload."""

    model_config = ConfigDict(json_schema_extra=_type_required)

    protocol: EventProtocol
    seq: Annotated[int, Field(ge=0)]
    at: AwareDatetime
    task_id: str


class StartedEvent(Envelope, Started): ...


class ThinkingEvent(Envelope, Thinking): ...


class MessageEvent(Envelope, Message): ...


class ToolUseEvent(Envelope, ToolUse): ...


class FileChangedEvent(Envelope, FileChanged): ...


class ProgressEvent(Envelope, Progress): ...


class QuestionEvent(Envelope, QuestionAsked): ...


class AnswerEvent(Envelope, Answered): ...


class ErrorEvent(Envelope, Error): ...


class FinishedEvent(Envelope, Finished): ...


Event: TypeAlias = Annotated[
    StartedEvent
    | ThinkingEvent
    | MessageEvent
    | ToolUseEvent
    | FileChangedEvent
    | ProgressEvent
    | QuestionEvent
    | AnswerEvent
    | ErrorEvent
    | FinishedEvent,
    Field(discriminator="type"),
]
"""An event as read from ``events.jsonl``."""

EVENT_TYPES: tuple[str, ...] = (
    "started",
    "thinking",
    "message",
    "tool_use",
    "file_changed",
    "progress",
    "question",
    "answer",
    "error",
    "finished",
)

_DEFERRED = ConfigDict(defer_build=True)
# Built on first use, like the models: the union of every event is the largest validator of
# the contract, and a command that writes an event or two needs only those events' models.
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=_DEFERRED)
PAYLOAD_ADAPTER: TypeAdapter[EventPayload] = TypeAdapter(EventPayload, config=_DEFERRED)

WIRE_EVENTS: dict[str, type[Envelope]] = {
    "started": StartedEvent,
    "thinking": ThinkingEvent,
    "message": MessageEvent,
    "tool_use": ToolUseEvent,
    "file_changed": FileChangedEvent,
    "progress": ProgressEvent,
    "question": QuestionEvent,
    "answer": AnswerEvent,
    "error": ErrorEvent,
    "finished": FinishedEvent,
}
"""Each ``type``'s wire model: what :data:`EVENT_ADAPTER`'s discriminator picks for it, for a
writer that knows the type of what it writes and validates it with that model alone."""
