from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from caesar_core.protocol import Isolation, Mode
from caesar_core.store import TaskRecord, TaskStore, new_task_id

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def make_record(
    task_id: str | None = None,
    *,
    parent_id: str | None = None,
    created_at: datetime = T0,
    agent: str = "demo",
) -> TaskRecord:
    return TaskRecord(
        id=task_id or new_task_id(),
        created_at=created_at,
        parent_id=parent_id,
        agent=agent,
        objective="do the thing",
        workspace="/tmp/ws",
        isolation=Isolation.WORKTREE,
        mode=Mode.WRITE,
    )


@pytest.fixture
def store(tmp_path: Path) -> TaskStore:
    return TaskStore(tmp_path)
