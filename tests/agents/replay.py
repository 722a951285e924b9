"""What the per-CLI translator tests share: replaying lines, reading the calls, a task to launch."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from caesar_core.agents.base import Invocation, ReportTier
from caesar_core.agents.stream import JsonStreamTranslator
from caesar_core.protocol import TASK_V1, Isolation, Mode, Task
from caesar_core.protocol.event import EventPayload, ToolStatus, ToolUse
from caesar_core.protocol.taskdir import TaskPaths

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"
WORKSPACE = "/capture/workspace"

T = TypeVar("T", bound=JsonStreamTranslator)


def replay_into(translator: T, lines: list[str]) -> tuple[T, list[Any]]:
    """Every line fed to ``translator``, then closed: what a user would have seen."""
    events: list[EventPayload] = []
    for text in lines:
        events += translator.feed(text)
    events += translator.close()
    return translator, events


def calls(events: list[Any]) -> list[ToolUse]:
    return [e for e in events if isinstance(e, ToolUse)]


def assert_paired(events: list[Any]) -> None:
    """Every call that starts ends, once, with the same id, after its start."""
    open_ids: list[str] = []
    for event in calls(events):
        if event.status is ToolStatus.STARTED:
            assert event.id not in open_ids
            open_ids.append(event.id)
        else:
            assert event.id in open_ids, f"{event.id} ended without a start"
            open_ids.remove(event.id)
    assert open_ids == []


def invocation_for(
    agent: str,
    tasks: Path,
    workspace: str | Path,
    *,
    mode: Mode,
    tier: ReportTier,
    prompt: str,
    isolation: Isolation = Isolation.WORKTREE,
    task_fields: dict[str, Any] | None = None,
    **overrides: Any,
) -> Invocation:
    """Task ``t_1`` of ``agent``, its directory at ``tasks``, ready for the adapter's launch."""
    fields: dict[str, Any] = {
        "objective": "Fix it.",
        "deadline_ms": 600_000,
        **(task_fields or {}),
    }
    task = Task(
        protocol=TASK_V1,
        id="t_1",
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        agent=agent,
        mode=mode,
        isolation=isolation,
        workspace=str(workspace),
        report_path=str(tasks / "report.json"),
        events_path=str(tasks / "events.jsonl"),
        **fields,
    )
    return Invocation(task=task, paths=TaskPaths(tasks), prompt=prompt, tier=tier, **overrides)


def worktree_invocation(
    agent: str,
    tmp_path: Path,
    mode: Mode = Mode.WRITE,
    tier: ReportTier = "file",
    **overrides: Any,
) -> Invocation:
    """Task ``t_1`` of ``agent`` in its worktree, its directory made under ``tmp_path``, with
    the brief ``# the brief`` unless ``overrides`` say otherwise."""
    root = tmp_path / "repo" / ".caesar" / "tasks" / "t_1"
    root.mkdir(parents=True, exist_ok=True)
    fields: dict[str, Any] = {"prompt": "# the brief", "tier": tier, **overrides}
    return invocation_for(agent, root, "/repo/.caesar/wt/t_1", mode=mode, **fields)
