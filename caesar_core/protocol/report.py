"""``report.json``: what an agent hands back (spec, "report.json — the report").

Only ``protocol``, ``status`` and ``summary`` are required; every other field has a default,
so the three-field report of the spec's shell agent is valid.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, TypeAdapter

from caesar_core.actions import ChangeAction as ChangeAction  # noqa: PLC0414 (re-exported)
from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.versions import ReportProtocol

NonEmpty = Annotated[str, Field(min_length=1)]
Count = Annotated[int, Field(ge=0)]


class ReportStatus(StrEnum):
    """The agent's verdict, distinct from how its process ended."""

    SUCCESS = "success"
    """The acceptance criteria are met."""
    PARTIAL = "partial"
    """Part of the work is done; what remains is in ``next_steps``."""
    FAILED = "failed"
    """The agent did not succeed and has no way out."""
    BLOCKED = "blocked"
    """A decision outside its scope is required; it is asked in ``questions``."""


class Severity(StrEnum):
    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Change(ProtocolModel):
    """One file the agent says it changed; git has the last word where there is git."""

    path: NonEmpty
    action: ChangeAction = ChangeAction.MODIFIED
    summary: str = ""


class CommandRun(ProtocolModel):
    command: NonEmpty
    exit_code: int | None = None
    note: str = ""


class Finding(ProtocolModel):
    severity: Severity = Severity.INFO
    title: NonEmpty
    file: str | None = None
    line: Annotated[int, Field(ge=1)] | None = None
    detail: str = ""


class Question(ProtocolModel):
    """A question left open in the report (status ``blocked``), not one asked live."""

    id: NonEmpty
    question: NonEmpty
    options: list[str] = Field(default_factory=list)


class Artifact(ProtocolModel):
    path: NonEmpty
    description: str = ""


class Usage(ProtocolModel):
    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cost_usd: Annotated[float, Field(ge=0)] | None = None
    duration_ms: Count | None = None
    source: str | None = None
    """Where the numbers come from when caesar filled them in (``"codex stream"``); an
    agent's own report leaves it out."""


class Report(ProtocolModel):
    protocol: ReportProtocol
    task_id: str = ""
    status: ReportStatus
    summary: NonEmpty
    details: str = ""
    changes: list[Change] = Field(default_factory=list)
    commands_run: list[CommandRun] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    usage: Usage | None = None


REPORT_ADAPTER: TypeAdapter[Report] = TypeAdapter(Report)
