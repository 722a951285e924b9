"""The task store under real files and several real processes."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from caesar_core.errors import ExitCode, UsageError
from caesar_core.store import (
    CorruptRecordError,
    DuplicateTaskError,
    TaskStatus,
    TaskStore,
    UnknownTaskError,
    check_name,
    check_task_id,
    new_task_id,
)
from caesar_core.store.record import NO_ENDING
from tests.store.conftest import T0, make_record


def test_new_ids_are_well_formed_and_distinct() -> None:
    ids = {new_task_id() for _ in range(1000)}
    assert len(ids) == 1000
    for task_id in ids:
        assert check_task_id(task_id) == task_id


@pytest.mark.parametrize(
    "bad",
    [
        "",
        ".",
        "..",
        "../t_" + "0" * 32,
        "t_" + "0" * 31 + "/",
        "t_" + "0" * 32 + "\x00",
        "a\\b",
        "a..b",
        ".t_" + "0" * 32,
        "t_x\n",
        "t_\u202ex",
        " t_x",
        "x" * 129,
        "\u00e9" * 65,
    ],
)
def test_malformed_task_ids_never_reach_a_path(store: TaskStore, bad: str) -> None:
    with pytest.raises(UsageError) as caught:
        store.paths(bad)
    assert caught.value.exit_code is ExitCode.USAGE
    assert caught.value.remedy


@pytest.mark.parametrize(
    "good", ["t_imposed", "fix-login.2", "T_" + "0" * 32, "my task", "x" * 128]
)
def test_ids_the_reference_accepts_name_a_task_directory(store: TaskStore, good: str) -> None:
    assert store.paths(good).root == store.tasks_dir / good
    assert store.record_path(good).parent == store.records_dir


@pytest.mark.parametrize("bad", ["", "..", "a/b", "a\\b", ".hidden", "a..b", "x\x00", "a" * 200])
def test_malformed_mailbox_ids_are_refused(bad: str) -> None:
    with pytest.raises(UsageError):
        check_name(bad)


@pytest.mark.parametrize("good", ["q1", "q_0123abcd", "approval-7.2"])
def test_reasonable_mailbox_ids_pass(good: str) -> None:
    assert check_name(good) == good


def test_create_get_list(store: TaskStore) -> None:
    first = make_record(created_at=T0)
    second = make_record(created_at=T0 + timedelta(seconds=1))
    paths = store.create(second)
    store.create(first)
    assert paths.root.is_dir()
    assert paths.root == store.root / ".caesar" / "tasks" / second.id
    assert store.get(first.id) == first
    assert [r.id for r in store.list().records] == [first.id, second.id]


def test_create_refuses_an_existing_id(store: TaskStore) -> None:
    record = make_record()
    store.create(record)
    with pytest.raises(DuplicateTaskError):
        store.create(record.model_copy(update={"objective": "other"}))
    assert store.get(record.id).objective == "do the thing"


def test_unknown_task_names_the_remedy(store: TaskStore) -> None:
    with pytest.raises(UnknownTaskError) as caught:
        store.get(new_task_id())
    assert "caesar ps" in caught.value.remedy


def test_a_terminal_status_is_never_overwritten(store: TaskStore) -> None:
    record = make_record()
    store.create(record)
    store.set(record.id, status=TaskStatus.RUNNING, pid=1234)
    concluded, did = store.conclude(record.id, TaskStatus.CANCELLED, ended_reason="by user")
    assert did and concluded.status is TaskStatus.CANCELLED and concluded.pid is None
    again, did_again = store.conclude(record.id, TaskStatus.FAILED, exit_code=143)
    assert not did_again and again.status is TaskStatus.CANCELLED
    # Other facts may still be filled in after the conclusion; the status stays.
    later = store.set(record.id, status=TaskStatus.FAILED, exit_code=143)
    assert later.status is TaskStatus.CANCELLED and later.exit_code == 143
    assert later.ended_at == concluded.ended_at


def test_invalid_update_leaves_the_record_untouched(store: TaskStore) -> None:
    record = make_record()
    store.create(record)
    with pytest.raises(ValueError):
        store.set(record.id, depth=-1)
    assert store.get(record.id) == record


def test_unreadable_records_are_reported_not_fatal(store: TaskStore) -> None:
    good = make_record()
    store.create(good)
    bad = store.records_dir / f"{new_task_id()}.json"
    bad.write_text("{ truncated")
    listing = store.list()
    assert [r.id for r in listing.records] == [good.id]
    assert listing.problems and listing.problems[0][0] == bad
    with pytest.raises(CorruptRecordError):
        store.get(bad.stem)


def test_an_empty_project_lists_nothing(tmp_path: Path) -> None:
    assert TaskStore(tmp_path).list().records == []


_APPENDER = """
import sys
from pathlib import Path
from caesar_core.store import TaskStore
store = TaskStore(Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    store.update(sys.argv[2], lambda r: r.model_copy(
        update={"excluded_paths": [*r.excluded_paths, f"{sys.argv[4]}-{i}"]}))
"""


def test_concurrent_updates_from_two_processes_lose_nothing(store: TaskStore) -> None:
    record = make_record()
    store.create(record)
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(store.root), record.id, "150", name])
        for name in ("a", "b")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    paths = store.get(record.id).excluded_paths
    assert len(paths) == 300
    assert [p for p in paths if p.startswith("a-")] == [f"a-{i}" for i in range(150)]
    assert [p for p in paths if p.startswith("b-")] == [f"b-{i}" for i in range(150)]


def test_a_conclusion_names_no_ending_until_caesar_writes_one(store: TaskStore) -> None:
    """A record concluded without ``finished_seq`` says caesar's ending is not written yet, so
    no ``finished`` line an agent wrote passes for it; only an older record (no field at all)
    takes the last ``finished`` of its log, as the caesar that wrote it did."""
    store.create(make_record("t_" + "a" * 32))
    concluded, _ = store.conclude("t_" + "a" * 32, TaskStatus.FAILED)
    assert concluded.finished_seq == NO_ENDING
    assert concluded.ending_seq is None and not concluded.legacy_ending
    named = store.set(concluded.id, finished_seq=7)
    assert named.ending_seq == 7 and not named.legacy_ending
    older = make_record("t_" + "b" * 32).model_copy(update={"status": TaskStatus.SUCCEEDED})
    assert older.finished_seq is None and older.legacy_ending
