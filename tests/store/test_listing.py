"""The listing ``caesar ps`` reads: the store's records, taken from ``state/listing.json`` only
while each record file holds the very bytes the cache was made from."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from caesar_core.protocol.report import ReportStatus
from caesar_core.store import TaskStatus, TaskStore
from caesar_core.store.listing import TaskListing, list_tasks
from caesar_core.store.record import Checks, ChecksState, ExecutorInfo
from tests.store.conftest import T0, make_record

BASE = "a" * 40


def cache_of(root: Path) -> Path:
    return root / ".caesar" / "state" / "listing.json"


def shown(listing: TaskListing) -> tuple[list[dict[str, object]], list[tuple[Path, str]]]:
    return [task.data for task in listing.tasks], listing.problems


def store_view(store: TaskStore) -> tuple[list[dict[str, object]], list[tuple[Path, str]]]:
    listing = store.list()
    return [record.to_json_dict() for record in listing.records], listing.problems


def reference_record(store: TaskStore, task_id: str) -> None:
    """A record as the reference implementation writes it: no ``protocol``, its worktree as
    the workspace and its base commit only in ``task.json``."""
    worktree = store.home / "wt" / task_id
    worktree.mkdir(parents=True)
    record = {
        "id": task_id,
        "status": "succeeded",
        "created_at": (T0 + timedelta(minutes=9)).isoformat(),
        "agent": "codex",
        "objective": "theirs",
        "workspace": str(worktree),
        "isolation": "worktree",
        "mode": "write",
        "task_dir": str(store.tasks_dir / task_id),
        "report_via": "file",
    }
    store.records_dir.mkdir(parents=True, exist_ok=True)
    store.record_path(task_id).write_text(json.dumps(record))
    store.paths(task_id).root.mkdir(parents=True)
    store.paths(task_id).task_file.write_text(json.dumps({"base_ref": BASE}))


@pytest.fixture
def project(store: TaskStore) -> TaskStore:
    """Records of every shape a listing shows: ended and running, with checks, on a cluster,
    turns of a chain, delegated, one that is no record, and one the reference wrote."""
    first = make_record("t_" + "1" * 32, created_at=T0)
    store.create(first)
    store.conclude(first.id, TaskStatus.SUCCEEDED, report_status=ReportStatus.SUCCESS)
    checks = Checks(state=ChecksState.PASSED, started_at=T0, ended_at=T0)
    store.set(first.id, checks=checks, continued_by="t_" + "2" * 32, role="reviewer")
    turn = make_record("t_" + "2" * 32, created_at=T0 + timedelta(minutes=1))
    store.create(turn.model_copy(update={"continues": first.id, "chain": first.id, "turn": 2}))
    child = make_record("t_" + "3" * 32, parent_id=first.id, created_at=T0 + timedelta(minutes=2))
    store.create(child)
    store.set(child.id, status=TaskStatus.RUNNING, orchestrator_pid=os.getpid())
    remote = make_record("t_" + "4" * 32, created_at=T0 + timedelta(minutes=3))
    store.create(remote)
    executor = ExecutorInfo(address="tcp://10.0.0.9:8786", worker="tcp://10.0.0.7:4000")
    store.set(remote.id, executor=executor.model_copy(update={"settled": True}))
    store.conclude(remote.id, TaskStatus.FAILED)
    store.records_dir.joinpath("t_" + "5" * 32 + ".json").write_text("{not json")
    reference_record(store, "t_" + "6" * 32)
    return store


def test_the_listing_is_the_stores_whether_read_whole_or_from_the_cache(
    project: TaskStore,
) -> None:
    expected = store_view(project)
    assert len(expected[0]) == 5 and len(expected[1]) == 1
    assert not cache_of(project.root).exists()
    assert shown(list_tasks(project.root)) == expected  # read whole; the cache written
    assert cache_of(project.root).is_file()
    listing = list_tasks(project.root)  # from the cache
    assert shown(listing) == expected
    by_id = {task.id: task for task in listing.tasks}
    first = by_id["t_" + "1" * 32]
    assert (first.status, first.role, first.report_status) == (
        TaskStatus.SUCCEEDED,
        "reviewer",
        "success",
    )
    assert first.checks is not None and first.checks.state is ChecksState.PASSED
    assert first.chained and by_id["t_" + "2" * 32].turn == 2
    assert by_id["t_" + "3" * 32].parent_id == first.id
    assert by_id["t_" + "3" * 32].orchestrator_pid == os.getpid()
    remote = by_id["t_" + "4" * 32]
    assert remote.executor is not None and remote.executor.label == "on 10.0.0.7:4000"
    assert by_id["t_" + "6" * 32].data["base_ref"] == BASE  # completed from its task.json


def test_a_record_rewritten_behind_the_cache_is_read_again_however_alike_its_file(
    store: TaskStore,
) -> None:
    """Same size, same inode, same mtime: only the content differs, and the content is what
    the cache is keyed by."""
    record = make_record()
    store.create(record)
    store.conclude(record.id, TaskStatus.SUCCEEDED)
    assert [t.status for t in list_tasks(store.root).tasks] == [TaskStatus.SUCCEEDED]
    path = store.record_path(record.id)
    before = path.stat()
    text = path.read_text()
    forged = text.replace('"succeeded"', '"cancelled"')
    assert len(forged) == len(text) and forged != text
    with path.open("r+") as handle:
        handle.write(forged)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert [t.status for t in list_tasks(store.root).tasks] == [TaskStatus.CANCELLED]


def _made_by_others(cache: dict[str, Any]) -> dict[str, Any]:
    return {**cache, "made_by": [["/nowhere/listing.py", 1, 1]] * len(cache["made_by"])}


def _entries_spoiled(cache: dict[str, Any]) -> dict[str, Any]:
    """Each entry's digest right, its record not what caesar writes."""
    spoiled = {}
    for number, (name, (digest, data)) in enumerate(sorted(cache["records"].items())):
        bad = [{**data, "status": 7}, {**data, "created_at": "then"}, "no record", {}]
        spoiled[name] = [digest, bad[number % 4]]
    return {**cache, "records": spoiled}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda cache: b"\x00\xff not json",
        lambda cache: b"[" * 100_000 + b"]" * 100_000,
        lambda cache: json.dumps({**cache, "format": "caesar.listing/v0"}).encode(),
        lambda cache: json.dumps(_made_by_others(cache)).encode(),
        lambda cache: json.dumps(_entries_spoiled(cache)).encode(),
        lambda cache: json.dumps({**cache, "records": [1, 2]}).encode(),
    ],
    ids=["garbage", "deep", "other-format", "other-code", "spoiled-entries", "not-a-map"],
)
def test_a_cache_that_is_not_what_caesar_writes_is_ignored(
    project: TaskStore, spoil: Callable[[dict[str, Any]], bytes]
) -> None:
    expected = store_view(project)
    list_tasks(project.root)
    cache = json.loads(cache_of(project.root).read_bytes())
    cache_of(project.root).write_bytes(spoil(cache))
    assert shown(list_tasks(project.root)) == expected
    assert shown(list_tasks(project.root)) == expected


def test_only_caesars_own_records_are_kept_and_a_reference_record_is_completed_each_time(
    project: TaskStore,
) -> None:
    list_tasks(project.root)
    kept = json.loads(cache_of(project.root).read_bytes())["records"]
    assert "t_" + "6" * 32 + ".json" not in kept
    assert "t_" + "5" * 32 + ".json" not in kept  # no record at all
    assert {"t_" + n * 32 + ".json" for n in "1234"} == set(kept)
    other = "b" * 40
    project.paths("t_" + "6" * 32).task_file.write_text(json.dumps({"base_ref": other}))
    listed = {t.id: t for t in list_tasks(project.root).tasks}
    assert listed["t_" + "6" * 32].data["base_ref"] == other


def test_a_removed_record_leaves_the_listing_and_a_new_one_joins_it(project: TaskStore) -> None:
    list_tasks(project.root)
    project.record_path("t_" + "2" * 32).unlink()
    late = make_record("t_" + "7" * 32, created_at=T0 - timedelta(days=1))
    project.create(late)
    ids = [t.id for t in list_tasks(project.root).tasks]
    assert ids == [late.id, "t_" + "1" * 32, "t_" + "3" * 32, "t_" + "4" * 32, "t_" + "6" * 32]
    assert shown(list_tasks(project.root)) == store_view(project)


def test_a_project_that_cannot_keep_a_cache_is_listed_all_the_same(project: TaskStore) -> None:
    expected = store_view(project)
    cache_of(project.root).mkdir()  # the cache's name taken: it cannot be written
    assert shown(list_tasks(project.root)) == expected
    assert shown(list_tasks(project.root)) == expected


def test_a_project_without_tasks_lists_none(tmp_path: Path) -> None:
    assert shown(list_tasks(tmp_path)) == ([], [])
    assert not cache_of(tmp_path).exists()
