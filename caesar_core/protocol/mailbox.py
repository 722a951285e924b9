"""The return channel's mailbox: ``questions/<id>.json`` and ``answers/<id>.json``.

The spec names the files but not their fields; these match the reference implementation
(``{id, question, options, asked_at}``) and add who answered, for the record.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel

NonEmpty = Annotated[str, Field(min_length=1)]


class MailboxQuestion(ProtocolModel):
    """A question an agent is waiting on; pending until its answer file exists."""

    id: NonEmpty
    question: NonEmpty
    options: list[str] = Field(default_factory=list)
    asked_at: AwareDatetime


class MailboxAnswer(ProtocolModel):
    id: NonEmpty
    answer: str
    answered_at: AwareDatetime
    answered_by: str = ""
    """Who answered: ``cli``, ``watch``, ``mcp``; informational only."""


QUESTION_ADAPTER: TypeAdapter[MailboxQuestion] = TypeAdapter(MailboxQuestion)
ANSWER_ADAPTER: TypeAdapter[MailboxAnswer] = TypeAdapter(MailboxAnswer)
