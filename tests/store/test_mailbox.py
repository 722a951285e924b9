from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta

import pytest

from caesar_core.protocol.mailbox import MailboxFileError
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.store import (
    AlreadyAnsweredError,
    TaskStore,
    UnknownQuestionError,
    answer,
    ask,
    pending_questions,
    questions,
    read_answer,
)
from tests.store.conftest import T0, make_record


def test_questions_pend_until_answered_in_asking_order(store: TaskStore) -> None:
    paths = store.create(make_record())
    later = ask(paths, "Keep the old API?", ["yes", "no"], now=T0 + timedelta(seconds=2))
    first = ask(paths, "Which branch?", now=T0)
    assert [q.id for q in pending_questions(paths)] == [first.id, later.id]
    reply = answer(paths, later.id, "yes", by="cli")
    assert read_answer(paths, later.id) == reply
    assert [q.id for q in pending_questions(paths)] == [first.id]
    assert [(q.id, a is not None) for q, a in questions(paths)] == [
        (first.id, False),
        (later.id, True),
    ]


def test_answering_twice_fails_and_keeps_the_first(store: TaskStore) -> None:
    paths = store.create(make_record())
    question = ask(paths, "Proceed?")
    answer(paths, question.id, "yes")
    with pytest.raises(AlreadyAnsweredError) as caught:
        answer(paths, question.id, "no")
    assert caught.value.answer.answer == "yes"
    stored = read_answer(paths, question.id)
    assert stored is not None and stored.answer == "yes"


def test_answering_an_unknown_question_fails(store: TaskStore) -> None:
    paths = store.create(make_record())
    with pytest.raises(UnknownQuestionError):
        answer(paths, "q_nope", "yes")
    assert not paths.answers.exists()


def test_a_malformed_question_file_hides_nothing_else(store: TaskStore) -> None:
    paths = store.create(make_record())
    good = ask(paths, "Proceed?")
    (paths.questions / "broken.json").write_text("{")
    assert [q.id for q in pending_questions(paths)] == [good.id]


_RACER = """
import sys
from pathlib import Path
from caesar_core.protocol import TaskPaths
from caesar_core.store import answer, AlreadyAnsweredError
try:
    answer(TaskPaths(Path(sys.argv[1])), sys.argv[2], sys.argv[3])
    print("won")
except AlreadyAnsweredError:
    print("lost")
"""


def test_racing_answers_have_exactly_one_winner(store: TaskStore) -> None:
    paths = store.create(make_record())
    question = ask(paths, "Proceed?")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, str(paths.root), question.id, f"answer-{n}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    outcomes = sorted(p.communicate(timeout=60)[0].strip() for p in procs)
    assert outcomes == ["lost", "lost", "lost", "won"]


# -- questions an agent writes by hand (the spec names the file, not its fields) ---------


def hand_written(paths: TaskPaths, name: str, body: str, mtime: float | None = None) -> None:
    paths.questions.mkdir(exist_ok=True)
    path = paths.questions / name
    path.write_text(body)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def test_a_hand_written_question_is_asked_when_its_file_was_written(store: TaskStore) -> None:
    paths = store.create(make_record())
    hand_written(
        paths,
        "q1.json",
        '{"id": "q1", "question": "Which?", "options": ["a", "b"]}',
        mtime=T0.timestamp(),
    )
    (pending,) = pending_questions(paths)
    assert (pending.id, pending.question, pending.options) == ("q1", "Which?", ["a", "b"])
    assert pending.asked_at == T0
    reply = answer(paths, "q1", "a", by="cli")
    assert reply.answer == "a" and pending_questions(paths) == []


def test_a_question_without_id_takes_its_file_name(store: TaskStore) -> None:
    paths = store.create(make_record())
    hand_written(paths, "pick.json", '{"question": "Pick one"}')
    assert [q.id for q in pending_questions(paths)] == ["pick"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"id": "q1", "question": ""}', "question: String should have at least 1 character"),
        ('{"id": "q1", "question": "ok", "options": "yes"}', "options: Input should be"),
        ('{"id": "q2", "question": "ok"}', "id: 'q2' is not the file's name (q1.json)"),
        ("{nope", "not JSON"),
    ],
)
def test_answering_a_broken_question_names_the_file_and_the_field(
    store: TaskStore, body: str, field: str
) -> None:
    paths = store.create(make_record())
    hand_written(paths, "q1.json", body)
    with pytest.raises(MailboxFileError) as caught:
        answer(paths, "q1", "yes")
    reason = caught.value.reason
    assert reason.startswith(f"{paths.questions / 'q1.json'}: ") and field in reason
    assert "\n" not in reason and "pydantic" not in reason
    assert not paths.answers.exists()
