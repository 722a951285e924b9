"""The monitor reads only what changed, and its views match the files."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from caesar_core.events import EventWriter
from caesar_core.protocol import Message, ToolStatus, ToolUse
from caesar_core.store import TaskStatus, TaskStore, answer, ask
from caesar_core.watch import ProjectMonitor
from tests.store.conftest import make_record

NOW = datetime(2026, 11, 30, 12, 0, 30, tzinfo=UTC)


def test_scan_then_refresh_by_path(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    monitor = ProjectMonitor(tmp_path)
    assert monitor.scan() == {record.id}
    assert monitor.view(record.id, NOW).activity.events == 0

    with EventWriter(paths.events, record.id) as events:
        events.append(ToolUse(tool="bash", id="c1", input_summary="ls", status=ToolStatus.STARTED))
    assert monitor.refresh([paths.events]) == {record.id}
    view = monitor.view(record.id, NOW)
    assert view.activity.running[0].tool == "bash"
    fresh, reset = monitor.take_fresh(record.id)
    assert len(fresh) == 1 and not reset
    assert monitor.take_fresh(record.id) == ([], False)

    question = ask(paths, "Proceed?", ["yes", "no"])
    assert monitor.refresh([paths.questions / f"{question.id}.json"]) == {record.id}
    assert monitor.view(record.id, NOW).needs_input
    answer(paths, question.id, "yes")
    monitor.refresh([paths.answers / f"{question.id}.json"])
    view = monitor.view(record.id, NOW)
    assert not view.needs_input and view.answered[0][1].answer == "yes"

    store.set(record.id, status=TaskStatus.RUNNING)
    monitor.refresh([store.record_path(record.id)])
    assert monitor.view(record.id, NOW).record.status is TaskStatus.RUNNING
    monitor.close()


def test_unrelated_paths_change_nothing(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    store.create(record)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    noise: list[Path | str] = [
        tmp_path / "src" / "x.py",
        store.home / "wt" / record.id / "a.txt",
        "/etc/passwd",
    ]
    assert monitor.refresh(noise) == set()


def test_a_new_task_appears_on_its_first_file(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    record = make_record()
    paths = store.create(record)
    with EventWriter(paths.events, record.id) as events:
        events.append(Message(text="hello"))
    assert monitor.refresh([paths.events]) == {record.id}
    assert monitor.view(record.id, NOW).activity.speech == "hello"


def test_a_replaced_log_resets_the_fold(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    with EventWriter(paths.events, record.id) as events:
        events.append(Message(text="first"))
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    monitor.take_fresh(record.id)
    paths.events.unlink()
    with EventWriter(paths.events, record.id) as events:
        events.append(Message(text="second"))
    monitor.refresh([paths.events])
    fresh, reset = monitor.take_fresh(record.id)
    assert reset and [e.type for e in fresh] == ["message"]
    assert monitor.view(record.id, NOW).activity.speech == "second"


def test_catch_up_returns_only_the_tasks_that_changed_and_keeps_their_new_events(
    tmp_path: Path,
) -> None:
    """What is written between the first scan and a watcher's start is not lost."""
    store = TaskStore(tmp_path)
    quiet, busy = make_record(), make_record()
    store.create(quiet)
    paths = store.create(busy)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    with EventWriter(paths.events, busy.id) as events:
        events.append(Message(text="written before the watcher ran"))

    assert monitor.catch_up() == {busy.id}
    fresh, _ = monitor.take_fresh(busy.id)
    assert [e.text for e in fresh if e.type == "message"] == ["written before the watcher ran"]
    assert monitor.catch_up() == set()
    monitor.close()


def _tasks_with_logs(tmp_path: Path, count: int) -> list[str]:
    """``count`` tasks in creation order, each having said its own index."""
    store = TaskStore(tmp_path)
    ids = []
    for n in range(count):
        record = make_record(created_at=NOW - timedelta(minutes=count - n))
        paths = store.create(record)
        with EventWriter(paths.events, record.id) as events:
            events.append(Message(text=f"task {n}"))
        ids.append(record.id)
    return ids


def test_a_first_scan_reads_the_logs_of_the_first_tasks_and_the_others_after(
    tmp_path: Path,
) -> None:
    """A first screen needs the logs of the tasks it shows: the others are read after, in
    tree order, and shown meanwhile as being read (never as tasks that said nothing)."""
    ids = _tasks_with_logs(tmp_path, 5)
    monitor = ProjectMonitor(tmp_path)
    assert monitor.scan(first=2) == set(ids)
    views = {task_id: monitor.view(task_id, NOW) for task_id in ids}
    assert [views[i].activity.speech for i in ids[:2]] == ["task 0", "task 1"]
    assert [views[i].reading for i in ids] == [False, False, True, True, True]
    assert monitor.unread == 3

    assert monitor.catch_up() == set()  # a log waiting to be read still waits
    assert monitor.read_more(2) == set(ids[2:4])
    assert monitor.view(ids[3], NOW).activity.speech == "task 3"
    assert monitor.take_fresh(ids[3]) == ([], False)  # history, not news
    assert monitor.read_more(2) == {ids[4]}
    assert monitor.unread == 0 and monitor.read_more(2) == set()
    assert not any(monitor.view(task_id, NOW).reading for task_id in ids)
    monitor.close()


def test_a_log_read_late_hands_its_end_to_whoever_read_its_history(tmp_path: Path) -> None:
    """A view that read a task's history before the monitor first read its log gets what was
    appended in between as fresh events (it shows each seq once)."""
    ids = _tasks_with_logs(tmp_path, 3)
    store = TaskStore(tmp_path)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan(first=1)
    assert [e.type for e in monitor.history(ids[2])] == ["message"]
    with EventWriter(store.paths(ids[2]).events, ids[2]) as events:
        events.append(Message(text="after the history"))
    monitor.read_more(5)
    fresh, _ = monitor.take_fresh(ids[2])
    assert [e.text for e in fresh if e.type == "message"] == ["task 2", "after the history"]
    assert monitor.take_fresh(ids[1]) == ([], False)
    monitor.close()


def test_a_change_to_a_task_not_read_yet_reads_its_log(tmp_path: Path) -> None:
    ids = _tasks_with_logs(tmp_path, 3)
    store = TaskStore(tmp_path)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan(first=1)
    store.set(ids[2], status=TaskStatus.RUNNING)
    assert monitor.refresh([store.record_path(ids[2])]) == {ids[2]}
    view = monitor.view(ids[2], NOW)
    assert not view.reading and view.activity.speech == "task 2"
    assert monitor.unread == 1 and monitor.read_more(5) == {ids[1]}
    monitor.close()


def test_a_full_read_finds_a_mailbox_that_appeared_and_forgets_one_that_went(
    tmp_path: Path,
) -> None:
    """Reading every task lists each task directory once, and reads the mailbox of those that
    have one: a question asked before the watcher began is found, a mailbox removed is gone."""
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    assert not monitor.view(record.id, NOW).needs_input
    ask(paths, "Proceed?", ["yes", "no"])
    assert monitor.catch_up() == {record.id}
    assert monitor.view(record.id, NOW).pending[0].question == "Proceed?"
    shutil.rmtree(paths.questions)
    assert monitor.catch_up() == {record.id}
    assert not monitor.view(record.id, NOW).needs_input
    monitor.close()
