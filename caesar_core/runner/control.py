"""What any process may do to a task it does not run: cancel it, answer its questions.

These go through the store and the task directory only, so ``caesar cancel`` in one terminal
stops a task that ``caesar run`` drives in another, and the TUI and the MCP server do the same
by calling the same functions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.events.writer import EventWriter
from caesar_core.executor.attach import ensure_shepherd
from caesar_core.protocol.event import Answered, Finished
from caesar_core.protocol.mailbox import MailboxAnswer
from caesar_core.protocol.report import ReportStatus
from caesar_core.runner import cgroup, proctree
from caesar_core.runner.closing import close_without_orchestrator, write_ending
from caesar_core.runner.slots import pid_alive
from caesar_core.store import foreign, mailbox
from caesar_core.store.record import TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore

REFERENCE_RUNNER_WAIT_S = 15.0
"""How long ``cancel`` waits for the reference's runner to conclude a task whose agent it
stopped (it diffs, writes the report and the record, then drops its lease)."""
_POLL_S = 0.05


@dataclass(frozen=True)
class Cancellation:
    """What a cancel did, for a person to read: the task as it now stands, whether this call
    cancelled it, the processes it signalled and those still alive, who wrote the ending."""

    record: TaskRecord
    cancelled: bool
    signalled: list[int] = field(default_factory=list)
    alive: list[int] = field(default_factory=list)
    concluded_by: str = ""
    """``caesar`` (the task's own runner, or this cancel when that runner is gone), or the
    reference's runner with its pid."""
    notes: list[str] = field(default_factory=list)


class AgentSurvivedError(CaesarError):
    """The task's processes outlived SIGKILL: never reported cancelled while they run."""

    exit_code = ExitCode.FAILURE

    def __init__(self, task_id: str, alive: list[int]) -> None:
        pids = ", ".join(map(str, alive))
        super().__init__(
            f"task {task_id}: its processes {pids} are still alive after SIGTERM and SIGKILL "
            "(stuck in the kernel, or another user's)",
            f"look at them with `ps -o pid,stat,user,cmd -p {pids}`; cancel again once they "
            "are gone",
        )


def cancel(store: TaskStore, task_id: str, *, by: str = "user") -> tuple[TaskRecord, bool]:
    """Cancel a task; returns the record and whether this call cancelled it (False when it
    had already ended). :func:`cancel_task` says what it did."""
    done = cancel_task(store, task_id, by=by)
    return done.record, done.cancelled


def cancel_task(store: TaskStore, task_id: str, *, by: str = "user") -> Cancellation:
    """Cancel a task: stop every process it started, check they are gone, conclude it.

    A caesar task is concluded ``cancelled`` first, then stopped: its runner, seeing its agent
    die, finds it concluded and cannot call it ``failed``. A task the reference implementation
    runs is stopped first and left to its runner, which writes its report, its ``finished``
    event and its record whatever was written before (its writes take no lock and keep no
    status): once that runner is done, and only then, the record is named ``cancelled``, so
    nothing of caesar's is overwritten and its log gets no second ending. Raises
    :class:`AgentSurvivedError` when a process of the task outlives SIGKILL.
    """
    before = store.get(task_id)
    if before.status.terminal:
        return Cancellation(before, False)
    runner = None if before.orchestrator_pid else foreign.reference_runner(store.root, task_id)
    if runner is not None:
        return _cancel_reference_task(store, before, runner, by)
    record, done = store.conclude(task_id, TaskStatus.CANCELLED, ended_reason=f"cancelled by {by}")
    if not done:
        return Cancellation(record, False)
    if record.remote:  # it runs on another machine: its shepherd takes the cancel there
        ensure_shepherd(store, record)
        return Cancellation(store.get(task_id), True, concluded_by="its shepherd, on its worker")
    # A runner still alive also sees the cancellation within half a second and stops the
    # tree itself; stopping it here too covers a runner that is gone.
    stopped = stop_task(record, leader=before.pid)
    orchestrator = record.orchestrator_pid
    concluded_by = f"caesar (pid {orchestrator})"
    if orchestrator is None or not pid_alive(orchestrator):
        _close_for_absent_orchestrator(store, record, by)
        concluded_by = "caesar (this cancel: the task's runner is gone)"
    if stopped.alive:
        raise AgentSurvivedError(task_id, stopped.alive)
    return Cancellation(store.get(task_id), True, stopped.signalled, [], concluded_by)


def _cancel_reference_task(
    store: TaskStore, record: TaskRecord, runner: int, by: str
) -> Cancellation:
    """Stop the agent of a task the reference's process ``runner`` drives, wait for that
    runner to conclude it, then name it cancelled."""
    stopped = stop_task(record, leader=record.pid)
    if stopped.alive:
        raise AgentSurvivedError(record.id, stopped.alive)
    if not _runner_ended(store, record.id, runner):
        # Its runner outlived the wait (it may hang on its own): concluded here, said so.
        concluded, _ = store.conclude(
            record.id, TaskStatus.CANCELLED, ended_reason=f"cancelled by {by}"
        )
        note = (
            f"the reference's runner (pid {runner}) had not ended {REFERENCE_RUNNER_WAIT_S:g} s "
            "after its agent: it may still rewrite this record and append to the log when it ends"
        )
        return Cancellation(concluded, True, stopped.signalled, [], "caesar (this cancel)", [note])
    ended = store.get(record.id)
    notes = []
    if ended.status.terminal:
        code = "no exit code" if ended.exit_code is None else f"exit code {ended.exit_code}"
        notes.append(
            f"the reference's runner concluded it {ended.status.value} ({code}), not knowing "
            "why its agent ended; named cancelled after it"
        )
    why = f"cancelled by {by}: its agent stopped, the reference's runner (pid {runner}) ended"
    changes = {"status": TaskStatus.CANCELLED, "pid": None, "ended_reason": why}
    relabelled = store.update(
        record.id,
        lambda r: r.model_copy(update={**changes, "ended_at": r.ended_at or datetime.now(UTC)}),
        keep_terminal=False,
    )
    by_runner = f"the reference's runner (pid {runner})"
    return Cancellation(relabelled, True, stopped.signalled, [], by_runner, notes)


def _runner_ended(store: TaskStore, task_id: str, runner: int) -> bool:
    """Whether the reference's ``runner`` let go of the task (its lease gone, or its pid)
    within ``REFERENCE_RUNNER_WAIT_S``."""
    deadline = time.monotonic() + REFERENCE_RUNNER_WAIT_S
    while foreign.reference_runner(store.root, task_id) == runner:
        if time.monotonic() > deadline:
            return False
        time.sleep(_POLL_S)
    return True


def stop_task(record: TaskRecord, *, leader: int | None = None) -> proctree.Stopped:
    """Stop every process of the task, from any process: its cgroup, its marker, its group
    (or, for a pid that leads no group, that process and its descendants)."""
    if leader is None:
        leader = record.pid
    group = cgroup.checked(record.cgroup, record.id)
    return proctree.stop_tree(record.id, leader=leader, cgroup=group)


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
