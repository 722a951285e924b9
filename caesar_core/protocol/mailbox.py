"""The return channel's mailbox: ``questions/<id>.json`` and ``answers/<id>.json``.

The spec names the files but not their fields; these match the reference implementation
(``{id, question, options, asked_at}``) and add who answered, for the record. The files are
read liberally (:func:`read_mailbox_file`): an agent that writes its question by hand with
``{id, question, options}`` has asked it when the file was written.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AwareDatetime, Field, TypeAdapter

from caesar_core import safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.parse import parse, problem_text

M = TypeVar("M", bound=ProtocolModel)

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


class MailboxFileError(CaesarError):
    """A mailbox file that is not what its directory says, named with the field at fault."""

    exit_code = ExitCode.FAILURE

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(
            f"{path}: {problem}",
            "the agent wrote that file; ask again through the return channel "
            "(ask_orchestrator), or fix the file",
        )


def read_mailbox_file(task_dir: Path, relative: str, adapter: TypeAdapter[M], time_field: str) -> M:
    """A question or an answer file of the task directory ``task_dir``, read liberally.

    Its time (``time_field``: ``asked_at``, ``answered_at``), when absent, is the file's
    modification time;
    its ``id``, when absent, the file's name. ``FileNotFoundError`` when there is no file,
    ``UnsafeFileError`` (an ``OSError``) for a link, a FIFO...; :class:`MailboxFileError`,
    naming the file and the field, for content that is no such document.
    """
    stem = Path(relative).name.removesuffix(".json")
    fd = safefs.open_file(task_dir, relative)
    try:
        modified = os.fstat(fd).st_mtime
        raw = safefs.read_fd(fd, safefs.MAX_DOCUMENT_BYTES, task_dir / relative)
    finally:
        os.close(fd)
    try:
        data: Any = safefs.loads(raw)
        if isinstance(data, dict):
            if data.get(time_field) is None:
                data[time_field] = datetime.fromtimestamp(modified, UTC).isoformat()
            if data.get("id") is None:
                data["id"] = stem
        document = parse(adapter, data)
    except (ValueError, CaesarError) as error:
        raise MailboxFileError(task_dir / relative, problem_text(error)) from None
    found = getattr(document, "id", stem)
    if found != stem:  # its answer is looked up by the file's name: they must agree
        raise MailboxFileError(
            task_dir / relative, f"id: {found!r} is not the file's name ({stem}.json)"
        )
    return document
