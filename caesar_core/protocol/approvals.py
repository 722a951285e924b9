"""``approvals/<id>.json`` and ``approvals/<id>.answer.json``: tool calls waiting for a person.

The bridge asks when a rule says ``require_approval`` for an agent seen through its hooks;
``caesar approve`` and ``caesar watch`` answer. They sit in the task directory beside the
questions so every front end finds them the same way. The bridge writes them without
pydantic (it runs once per tool call); these models are how everything else reads them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel

NonEmpty = Annotated[str, Field(min_length=1)]
ApprovalDecision = Literal["allow", "deny"]


class Approval(ProtocolModel):
    """A tool call held until someone allows or denies it; only a redacted summary of its
    input is ever written."""

    id: NonEmpty
    admission_id: str = ""
    tool: NonEmpty
    summary: str = ""
    reason: str = ""
    asked_at: AwareDatetime
    timeout_s: Annotated[float, Field(ge=0)] | None = None


class ApprovalAnswer(ProtocolModel):
    id: NonEmpty
    decision: ApprovalDecision
    answered_at: AwareDatetime
    answered_by: str = ""
    """``cli``, ``watch``, ``mcp``, or ``timeout`` when nobody answered in time."""


APPROVAL_ADAPTER: TypeAdapter[Approval] = TypeAdapter(Approval)
APPROVAL_ANSWER_ADAPTER: TypeAdapter[ApprovalAnswer] = TypeAdapter(ApprovalAnswer)
