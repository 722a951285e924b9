"""Approvals (tool calls the bridge holds for a person) in the monitor's task views."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from caesar_core.fs import create_exclusive
from caesar_core.store import TaskStatus, TaskStore, ask
from caesar_core.store.approvals import answer_approval, answer_file
from caesar_core.watch import ProjectMonitor
from tests.store.conftest import make_record

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def hold(
    task_dir: Path,
    approval_id: str = "ap_0123456789ab",
    *,
    tool: str = "Bash",
    summary: str = "git push origin main",
    reason: str = "pushing needs a person",
    asked_at: datetime = T0,
    timeout_s: float | None = 120,
) -> Path:
    """Write a held tool call the way the bridge does: stdlib JSON, created exclusively."""
    directory = task_dir / "approvals"
    directory.mkdir(exist_ok=True)
    path = directory / f"{approval_id}.json"
    body = {
        "id": approval_id,
        "admission_id": "adm_" + "0" * 32,
        "tool": tool,
        "summary": summary,
        "reason": reason,
        "asked_at": asked_at.isoformat(),
        "timeout_s": timeout_s,
    }
    create_exclusive(path, json.dumps(body).encode())
    return path


def time_out(task_dir: Path, approval_id: str, decision: str = "deny") -> Path:
    """The bridge's answer when nobody decided in time."""
    path = answer_file(task_dir, approval_id)
    body = {
        "id": approval_id,
        "decision": decision,
        "answered_at": (T0 + timedelta(minutes=2)).isoformat(),
        "answered_by": "timeout",
    }
    create_exclusive(path, json.dumps(body).encode())
    return path


def test_a_held_call_is_read_on_scan_and_waits_for_input(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    hold(paths.root)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    view = monitor.view(record.id, T0)
    assert [a.id for a in view.approvals] == ["ap_0123456789ab"]
    assert view.needs_input and not view.pending
    assert view.asking == "approve Bash: git push origin main"
    monitor.close()


def test_refresh_follows_the_approvals_directory(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    assert monitor.view(record.id, T0).approvals == ()

    first = hold(paths.root, "ap_000000000001")
    assert monitor.refresh([first]) == {record.id}
    second = hold(paths.root, "ap_000000000002", asked_at=T0 + timedelta(seconds=5))
    monitor.refresh([second])
    view = monitor.view(record.id, T0)
    assert [a.id for a in view.approvals] == ["ap_000000000001", "ap_000000000002"]

    answer_approval(paths.root, "ap_000000000001", "allow", by="cli")
    monitor.refresh([answer_file(paths.root, "ap_000000000001")])
    monitor.refresh([time_out(paths.root, "ap_000000000002")])
    view = monitor.view(record.id, T0)
    assert view.approvals == () and not view.needs_input
    assert [(a.id, answer.decision, answer.answered_by) for a, answer in view.decided] == [
        ("ap_000000000001", "allow", "cli"),
        ("ap_000000000002", "deny", "timeout"),
    ]
    monitor.close()


def test_a_question_and_an_approval_the_approval_is_asked_first(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    ask(paths, "Proceed?", ["yes", "no"], now=T0, question_id="q_go")
    hold(paths.root, summary="rm -rf   build\n")
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    view = monitor.view(record.id, T0)
    assert view.asking == "approve Bash: rm -rf build"
    assert [q.id for q in view.pending] == ["q_go"]
    monitor.close()


def test_an_ended_task_no_longer_needs_input_and_bad_files_are_skipped(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    record = make_record()
    paths = store.create(record)
    hold(paths.root)
    (paths.root / "approvals" / "ap_broken.json").write_text("{not json")
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    assert [a.id for a in monitor.view(record.id, T0).approvals] == ["ap_0123456789ab"]
    store.set(record.id, status=TaskStatus.FAILED)
    monitor.refresh([store.record_path(record.id)])
    view = monitor.view(record.id, T0)
    assert view.approvals and not view.needs_input
    monitor.close()


def test_a_new_task_seen_first_through_an_approval(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    monitor = ProjectMonitor(tmp_path)
    monitor.scan()
    record = make_record()
    paths = store.create(record)
    assert monitor.refresh([hold(paths.root)]) == {record.id}
    assert monitor.view(record.id, T0).needs_input
    monitor.close()
