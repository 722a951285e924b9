"""``caesar answer`` on a question an agent wrote by hand, ``{id, question, options}`` alone."""

from __future__ import annotations

import json
from pathlib import Path

from caesar_core.store import TaskStore
from tests.runner.conftest import caesar
from tests.store.conftest import make_record


def test_a_hand_written_question_is_answered(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    paths.questions.mkdir()
    (paths.questions / "q1.json").write_text(
        '{"id": "q1", "question": "Which?", "options": ["a", "b"]}'
    )
    done = caesar(tmp_path, "answer", record.id, "q1", "a", "--json", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answered"] is True
    written = json.loads((paths.answers / "q1.json").read_text())
    assert (written["id"], written["answer"]) == ("q1", "a")


def test_a_broken_question_is_refused_in_one_line_naming_file_and_field(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    paths.questions.mkdir()
    (paths.questions / "q1.json").write_text('{"id": "q1", "question": ""}')
    done = caesar(tmp_path, "answer", record.id, "q1", "a", "--root", str(tmp_path))
    assert done.returncode == 1
    first, *rest = done.stderr.splitlines()
    assert first == (
        f"caesar: {paths.questions / 'q1.json'}: question: String should have at least 1 character"
    )
    assert all(line.startswith("  remedy:") for line in rest)
    assert "validation error" not in done.stderr and "pydantic" not in done.stderr
