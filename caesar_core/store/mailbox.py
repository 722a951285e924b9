"""The question/answer mailbox of a task: where ``ask_orchestrator`` and its answer meet.

A question is pending while ``questions/<id>.json`` exists without ``answers/<id>.json``.
Both files are created exclusively, so two people answering at once cannot both win, and an
answer is never silently overwritten. Both directories are the agent's to write: they are read
and written through :mod:`caesar_core.safefs`, so one replaced by a link is refused, never
followed (an answer is never created outside the task directory).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from caesar_core import safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import dump_json
from caesar_core.protocol.mailbox import (
    ANSWER_ADAPTER,
    QUESTION_ADAPTER,
    MailboxAnswer,
    MailboxQuestion,
    read_mailbox_file,
)
from caesar_core.protocol.taskdir import TaskPaths, UnsafeTaskFileError
from caesar_core.store.ids import check_name

QUESTIONS = "questions"
ANSWERS = "answers"


class UnknownQuestionError(CaesarError):
    exit_code = ExitCode.FAILURE

    def __init__(self, question_id: str) -> None:
        super().__init__(
            f"no question {question_id} in this task",
            "list the task's pending questions with `caesar ps` or `caesar watch`",
        )


class AlreadyAnsweredError(CaesarError):
    exit_code = ExitCode.FAILURE

    def __init__(self, answer: MailboxAnswer) -> None:
        super().__init__(
            f"question {answer.id} was already answered: {answer.answer!r}",
            "nothing to do; an answer is final once the agent may have read it",
        )
        self.answer = answer


def ask(
    paths: TaskPaths,
    question: str,
    options: Sequence[str] = (),
    *,
    now: datetime | None = None,
    question_id: str | None = None,
) -> MailboxQuestion:
    """Drop a question in the mailbox; its id is new unless the caller imposes one."""
    qid = check_name(question_id or "q_" + uuid.uuid4().hex[:12], "question id")
    asked = MailboxQuestion(
        id=qid, question=question, options=list(options), asked_at=now or datetime.now(UTC)
    )
    safefs.create_exclusive(paths.root, f"{QUESTIONS}/{qid}.json", dump_json(asked.to_json_dict()))
    return asked


def read_question(paths: TaskPaths, question_id: str) -> MailboxQuestion | None:
    """The question, None when there is none; ``MailboxFileError`` (naming the file and the
    field) when the file holds no question."""
    name = check_name(question_id, "question id")
    try:
        return _question(paths, f"{name}.json")
    except FileNotFoundError:
        return None


def read_answer(paths: TaskPaths, question_id: str) -> MailboxAnswer | None:
    name = check_name(question_id, "question id")
    try:
        return read_mailbox_file(
            paths.root, f"{ANSWERS}/{name}.json", ANSWER_ADAPTER, "answered_at"
        )
    except FileNotFoundError:
        return None


def _question(paths: TaskPaths, file_name: str) -> MailboxQuestion:
    """Read liberally: an agent's hand-written ``{id, question, options}`` was asked when its
    file was written."""
    return read_mailbox_file(paths.root, f"{QUESTIONS}/{file_name}", QUESTION_ADAPTER, "asked_at")


def questions(paths: TaskPaths) -> list[tuple[MailboxQuestion, MailboxAnswer | None]]:
    """Every readable question with its answer, if any, in the order they were asked.

    A malformed file is left out rather than failing the listing: the mailbox is written by
    agents, and one bad file must not hide the others.
    """
    try:
        files = safefs.entries(paths.root, QUESTIONS)
    except OSError:
        return []
    found: list[tuple[MailboxQuestion, MailboxAnswer | None]] = []
    for name, regular in files:
        if not regular or name.startswith(".") or not name.endswith(".json"):
            continue
        try:
            asked = _question(paths, name)
            found.append((asked, read_answer(paths, asked.id)))
        except (OSError, ValueError, CaesarError):
            continue
    found.sort(key=lambda pair: (pair[0].asked_at, pair[0].id))
    return found


def pending_questions(paths: TaskPaths) -> list[MailboxQuestion]:
    return [asked for asked, answer in questions(paths) if answer is None]


def answer(
    paths: TaskPaths,
    question_id: str,
    text: str,
    *,
    by: str = "",
    now: datetime | None = None,
) -> MailboxAnswer:
    """Answer a pending question; refuses an unknown or already answered one, and a mailbox
    the agent replaced (``UnsafeTaskFileError``)."""
    try:
        asked = read_question(paths, question_id)  # a file that is no question: refused by name
        if asked is None:
            raise UnknownQuestionError(question_id)
        reply = MailboxAnswer(
            id=question_id, answer=text, answered_at=now or datetime.now(UTC), answered_by=by
        )
        data = dump_json(reply.to_json_dict())
        try:
            safefs.create_exclusive(paths.root, f"{ANSWERS}/{question_id}.json", data)
        except FileExistsError:
            existing = read_answer(paths, question_id)
            raise AlreadyAnsweredError(existing or reply) from None
    except safefs.UnsafeFileError as error:
        raise UnsafeTaskFileError(f"question {question_id} was not answered", error) from None
    return reply
