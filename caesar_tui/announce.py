"""What in a project update deserves to interrupt a person: a new question, a tool call held
for approval, a task that ended. Pure: the main screen decides what is news, the app how to
say it (a toast, and the bell and a desktop notification for a task not on screen).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from caesar_core.store.ids import short_task_id
from caesar_core.store.record import TaskStatus
from caesar_core.terminal import safe_text
from caesar_core.watch import TaskView

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class News:
    task_id: str
    title: str
    text: str
    severity: Severity = "information"


def news(before: Mapping[str, TaskView], after: Mapping[str, TaskView]) -> list[News]:
    """What changed from ``before`` to ``after`` (the views an update brought) worth saying."""
    found: list[News] = []
    for task_id, view in after.items():
        old = before.get(task_id)
        short = short_task_id(task_id)
        asked = {q.id for q in old.pending} if old else set()
        fresh = [q for q in view.pending if q.id not in asked]
        if fresh:
            found.append(News(task_id, "Question", f"{short} asks: {safe_text(fresh[0].question)}"))
        held = {a.id for a in old.approvals} if old else set()
        if any(a.id not in held for a in view.approvals):
            found.append(
                News(task_id, "Approval (a, then y/n)", f"{short} {safe_text(view.asking)}")
            )
        status = view.record.status
        if status.terminal and (old is None or not old.record.status.terminal):
            found.append(
                News(
                    task_id,
                    "Task ended",
                    f"{short} {status.value}: {safe_text(view.activity.headline)}",
                    "information" if status is TaskStatus.SUCCEEDED else "error",
                )
            )
    return found
