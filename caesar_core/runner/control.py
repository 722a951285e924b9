"""What any process may do to a task it does not run: cancel it, answer its questions.

These go through the store and the task directory only, so ``caesar cancel`` in one terminal
stops a task that ``caesar run`` drives in another, and the TUI and the MCP server do the same
by calling the same functions.
"""

from __future__ import annotations

from datetime import UTC, datetime

from caesar_core.events.writer import EventWriter
from caesar_core.executor.attach import ensure_shepherd
from caesar_core.protocol.event import Answered, Finished
from caesar_core.protocol.mailbox import MailboxAnswer
from caesar_core.protocol.report import ReportStatus
from caesar_core.runner import cgroup, proctree
from caesar_core.runner.closing import close_without_orchestrator, write_ending
from caesar_core.runner.slots import pid_alive
from caesar_core.store import mailbox
from caesar_core.store.record import TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore


def cancel(store: TaskStore, task_id: str, *, by: str = "user") -> tuple[TaskRecord, bool]:
    """Cancel a task: conclude it ``cancelled`` first, then stop every process it started.

    The status is written before the signal so the runner, seeing its agent die, finds the
    task already concluded and cannot call it ``failed``. Returns the record and whether this
    call cancelled it (False when it had already ended).
    """
    agent_pid = store.get(task_id).pid
    record, done = store.conclude(task_id, TaskStatus.CANCELLED, ended_reason=f"cancelled by {by}")
    if not done:
        return record, False
    if record.remote:  # it runs on another machine: its shepherd takes the cancel there
        ensure_shepherd(store, record)
        return store.get(task_id), True
    # A runner still alive also sees the cancellation within half a second and stops the
    # tree itself; stopping it here too covers a runner that is gone.
    stop_task(record, leader=agent_pid)
    orchestrator = record.orchestrator_pid
    if orchestrator is None or not pid_alive(orchestrator):
        _close_for_absent_orchestrator(store, record, by)
    return store.get(task_id), True


def stop_task(record: TaskRecord, *, leader: int | None = None) -> None:
    """Stop every process of the task, from any process: its cgroup, its marker, its group."""
    if leader is None:
        leader = record.pid
    group = cgroup.checked(record.cgroup, record.id)
    proctree.stop(record.id, leader=leader, cgroup=group)


def _close_for_absent_orchestrator(store: TaskStore, record: TaskRecord, by: str) -> None:
    """Nobody else will write the report and the final event: do it here."""
    report, source = close_without_orchestrator(
        store, record, summary=f"Cancelled by {by} before the agent reported."
    )
    store.set(record.id, report_status=report.status, report_source=source)
    finished = Finished(status=ReportStatus.FAILED, summary=report.summary)
    write_ending(store, record.id, f"cancelled by {by}", finished)


def answer(
    store: TaskStore, task_id: str, question_id: str, text: str, *, by: str = "cli"
) -> MailboxAnswer:
    """Answer a pending question: the answer file (exclusive), then an ``answer`` event."""
    record = store.get(task_id)  # an unknown task is refused before anything is written
    paths = store.paths(task_id)
    reply = mailbox.answer(paths, question_id, text, by=by, now=datetime.now(UTC))
    if record.remote:
        # Its log is the worker's, mirrored: the answer's event is written there, when its
        # shepherd has delivered it to the agent's mailbox.
        ensure_shepherd(store, record)
        return reply
    with EventWriter(paths.events, task_id) as events:
        events.append(Answered(id=question_id, answer=text))
    return reply
