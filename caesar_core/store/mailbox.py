"""The question/answer mailbox of a task: where ``ask_orchestrator`` and its answer meet.

A question is pending while ``questions/<id>.json`` exists without ``answers/<id>.json``.
Both files are created exclusively, so two people answering at once cannot both win, and an
answer is never silently overwritten.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import create_exclusive, dump_json
from caesar_core.protocol.mailbox import (
    ANSWER_ADAPTER,
    QUESTION_ADAPTER,
    MailboxAnswer,
    MailboxQuestion,
)
from caesar_core.protocol.parse import parse
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.store.ids import check_name


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
    create_exclusive(paths.questions / f"{qid}.json", dump_json(asked.to_json_dict()))
    return asked


def read_question(paths: TaskPaths, question_id: str) -> MailboxQuestion | None:
    path = paths.questions / f"{check_name(question_id, 'question id')}.json"
    try:
        return parse(QUESTION_ADAPTER, path.read_bytes())
    except FileNotFoundError:
        return None


def read_answer(paths: TaskPaths, question_id: str) -> MailboxAnswer | None:
    path = paths.answers / f"{check_name(question_id, 'question id')}.json"
    try:
        return parse(ANSWER_ADAPTER, path.read_bytes())
    except FileNotFoundError:
        return None


def questions(paths: TaskPaths) -> list[tuple[MailboxQuestion, MailboxAnswer | None]]:
    """Every readable question with its answer, if any, in the order they were asked.

    A malformed file is left out rather than failing the listing: the mailbox is written by
    agents, and one bad file must not hide the others.
    """
    try:
        files = list(paths.questions.glob("*.json"))
    except OSError:
        return []
    found: list[tuple[MailboxQuestion, MailboxAnswer | None]] = []
    for path in files:
        try:
            asked = parse(QUESTION_ADAPTER, path.read_bytes())
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
    """Answer a pending question; refuses an unknown or already answered one."""
    if read_question(paths, question_id) is None:
        raise UnknownQuestionError(question_id)
    reply = MailboxAnswer(
        id=question_id, answer=text, answered_at=now or datetime.now(UTC), answered_by=by
    )
    try:
        create_exclusive(paths.answers / f"{question_id}.json", dump_json(reply.to_json_dict()))
    except FileExistsError:
        existing = read_answer(paths, question_id)
        raise AlreadyAnsweredError(existing or reply) from None
    return reply
