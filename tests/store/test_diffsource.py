"""``store.diffsource`` reads a record's diff fields without pydantic only where the record's
model reads the same bytes the same way: whatever it accepts, ``TaskStore`` accepts, with the
same values; hostile records (wrong types, extra keys, nulls, keys twice, surrogates, the
reference's records) it declines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caesar_core.errors import CaesarError
from caesar_core.store.diffsource import (
    BOUNDED_INTEGER,
    CHOICES,
    OPTIONAL_INTEGER,
    OPTIONAL_TEXT,
    OPTIONAL_TIME,
    Declined,
    diff_source,
    read_diff_source,
)
from caesar_core.store.ids import TASK_ID_PATTERN
from caesar_core.store.store import TaskStore

TASK_ID = "t_" + "a" * 32
BASE: dict[str, Any] = {
    "protocol": "caesar.record/v1",
    "id": TASK_ID,
    "status": "succeeded",
    "created_at": "2026-01-02T03:04:05.123456Z",
    "ended_at": "2026-01-02T03:04:06+01:00",
    "depth": 0,
    "agent": "sh",
    "objective": "do it",
    "workspace": "/tmp/p/.caesar/wt/x",
    "source_workspace": "/tmp/p",
    "isolation": "worktree",
    "mode": "write",
    "base_ref": "a" * 40,
    "worktree_path": "/tmp/p/.caesar/wt/x",
    "excluded_paths": ["node_modules", "é/\u202e"],
    "applied_hunks": [],
    "rejected_hunks": [],
    "turn": 1,
    "task_dir": "/tmp/p/.caesar/tasks/x",
    "report_via": "file",
}
KEYS = sorted(
    {*BASE, *OPTIONAL_TEXT, *OPTIONAL_INTEGER, *OPTIONAL_TIME, *CHOICES, *BOUNDED_INTEGER}
    | {"checks", "selection_checks", "executor", "applied_patch_digest", "extra"}
)
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(
        [
            "2026-01-02T03:04:05Z",
            "2026-01-02T03:04:05",
            "2026-01-02 03:04:05+00:00",
            "2026-02-30T00:00:00Z",
            "2026-01-02T03:04:05.1234567Z",
            "2026-01-02T03:04:05+24:00",
            "2026-01-02T03:04:05-23:59",
            "0001-01-01T00:00:00Z",
            "inplace",
            "worktree",
            "read-only",
            "succeeded",
            "git",
            "success",
            "file",
        ]
    ),
    st.lists(st.text(max_size=4), max_size=3),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def model_reading(tmp_path: Path, raw: bytes) -> object:
    """What ``TaskStore`` reads of ``raw``: the record's diff fields, or the refusal."""
    store = TaskStore(tmp_path)
    try:
        record = store.read(store.record_path(TASK_ID), raw)
    except (CaesarError, ValueError) as error:
        return type(error)
    return fields_of(record)


def fields_of(record: Any) -> tuple[object, ...]:
    return (
        record.id,
        record.workspace,
        record.worktree_path,
        record.base_ref,
        record.start_snapshot,
        list(record.excluded_paths),
    )


def agrees(tmp_path: Path, raw: bytes) -> bool:
    """Whether ``diff_source`` declines ``raw`` or reads it as the model does."""
    try:
        source = diff_source(raw)
    except Declined:
        return True
    return model_reading(tmp_path, raw) == fields_of(source)


def test_a_record_caesar_writes_is_read_as_the_model_reads_it(tmp_path: Path) -> None:
    raw = json.dumps(BASE).encode()
    assert fields_of(diff_source(raw)) == model_reading(tmp_path, raw)


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps({**BASE, "unknown": 1}),
        json.dumps({k: v for k, v in BASE.items() if k != "protocol"}),  # the reference's
        json.dumps({**BASE, "protocol": "caesar.record/v2"}),
        json.dumps({**BASE, "excluded_paths": None}),  # null read as absent, on a retry
        json.dumps({**BASE, "status": None}),
        json.dumps({**BASE, "depth": True}),
        json.dumps({**BASE, "depth": 1.0}),
        json.dumps({**BASE, "turn": 0}),
        json.dumps({**BASE, "pid": "12"}),
        json.dumps({**BASE, "created_at": "2026-01-02T03:04:05"}),
        json.dumps({**BASE, "checks": {"state": "passed", "results": []}}),
        json.dumps({**BASE, "applied_hunks": [{"id": "h_0"}]}),
        json.dumps({**BASE, "worktree_path": "\ud800"}),
        json.dumps({**BASE, "excluded_paths": [1]}),
        json.dumps({**BASE, "task_dir": {"deep": [[[]]]}}),
        json.dumps(BASE)[:-1] + ', "base_ref": "b"}',  # a key twice
        json.dumps([BASE]),
        "not json",
        json.dumps({**BASE, "exit_code": 2**70}),
        json.dumps({**BASE, "deadline_ms": float("nan")}),
    ],
)
def test_hostile_records_are_declined(tmp_path: Path, raw: str) -> None:
    with pytest.raises(Declined):
        diff_source(raw.encode("utf-8", "surrogatepass"))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), HOSTILE, max_size=4), st.sets(st.sampled_from(KEYS)))
def test_whatever_it_accepts_the_model_reads_the_same(
    tmp_path_factory: pytest.TempPathFactory, changes: dict[str, Any], dropped: set[str]
) -> None:
    record = {k: v for k, v in BASE.items() if k not in dropped}
    record.update(changes)
    raw = json.dumps(record).encode("utf-8", "surrogatepass")
    assert agrees(tmp_path_factory.mktemp("r"), raw)


def test_only_an_existing_record_of_a_full_task_id_is_read(tmp_path: Path) -> None:
    records = tmp_path / ".caesar" / "state" / "tasks"
    records.mkdir(parents=True)
    (records / f"{TASK_ID}.json").write_text(json.dumps(BASE))
    (records / "t_imposed.json").write_text(json.dumps({**BASE, "id": "t_imposed"}))
    source = read_diff_source(tmp_path, TASK_ID)
    assert source is not None and source.base_ref == BASE["base_ref"]
    assert read_diff_source(tmp_path, "t_imposed") is None  # the store's own id rules
    assert read_diff_source(tmp_path, TASK_ID[:10]) is None
    assert read_diff_source(tmp_path, "t_" + "b" * 32) is None
    assert TASK_ID_PATTERN.fullmatch(TASK_ID)
