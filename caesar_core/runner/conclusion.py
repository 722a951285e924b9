"""A task's conclusion, once its agent ended: what it changed, its report as retrieved and
reconciled with git, caesar's checks, one ``finished`` event, the final record.

``runner.engine`` hands a task over here when its agent's process has ended (or never started);
this module and what it imports are what :data:`caesar_core.runner.engine.CONCLUSION_MODULES`
loads on a thread while the agent works, off the critical path of a quick ``caesar run``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.config import LoadedConfig
from caesar_core.events.writer import EventWriter
from caesar_core.git import GitError, as_unicode
from caesar_core.git.recompute import changes
from caesar_core.protocol.documents import write_concluded_report
from caesar_core.protocol.event import Error, Finished
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.review.checks import (
    check_environment,
    failure_reason,
    first_failure,
    in_worktree,
    run_checks,
    state_of,
    with_checks,
)
from caesar_core.runner.outcome import Outcome, Prepared
from caesar_core.runner.reconcile import reconcile
from caesar_core.runner.retrieve import retrieve
from caesar_core.runner.unwritten import conclude_unwritten
from caesar_core.store.record import (
    NO_ENDING,
    CheckResult,
    Checks,
    ChecksState,
    ReportSource,
    TaskRecord,
    TaskStatus,
)
from caesar_core.store.store import TaskStore

if TYPE_CHECKING:
    from caesar_core.agents.base import Translator
    from caesar_core.git import TreeDiff
    from caesar_core.runner.retrieve import Retrieved
    from caesar_core.runner.supervise import Exit
    from caesar_core.store.record import VerifiedBy


class Concluder:
    """Concludes the tasks of one project root (``Runner``'s root, configuration, environment,
    store and clock)."""

    def __init__(
        self,
        root: Path,
        config: LoadedConfig,
        env: Mapping[str, str],
        store: TaskStore,
        clock: Callable[[], datetime],
    ) -> None:
        self.root = root
        self.config = config
        self.env = env
        self.store = store
        self.clock = clock

    def conclude(
        self, prepared: Prepared, ended: Exit, translator: Translator, until: Until
    ) -> Outcome:
        """Conclude; a write that fails on the way (a full disk) ends the task failed, with the
        reason, instead of a traceback and a task left ``running``."""
        try:
            return self._conclude(prepared, ended, translator, until)
        except OSError as error:
            record, report = conclude_unwritten(
                self.store,
                prepared.paths,
                prepared.task.id,
                error,
                findings=prepared.findings,
                exit_code=ended.exit_code,
                clock=self.clock,
            )
            return Outcome(record, report, None, prepared.paths)

    def _conclude(
        self, prepared: Prepared, ended: Exit, translator: Translator, until: Until
    ) -> Outcome:
        # Opening the writer claims the log and its lock now: whatever the agent put in their
        # place is moved aside before the report is assembled, so its findings can say so.
        with EventWriter(prepared.paths.events, prepared.task.id, clock=self.clock) as closing:
            return self._conclude_with(prepared, ended, translator, closing, until)

    def _conclude_with(
        self,
        prepared: Prepared,
        ended: Exit,
        translator: Translator,
        closing: EventWriter,
        until: Until,
    ) -> Outcome:
        task, paths, plan = prepared.task, prepared.paths, prepared.plan
        final_text, usage = translator.final_text, translator.usage
        record = self.store.get(task.id)
        findings = list(prepared.findings)
        try:
            diff, unverified = self._diff(record), None
        except GitError as error:  # e.g. the agent wrote over its worktree's git index
            diff, unverified = None, f"the task's changes could not be read: {error.reason}"
            findings.append(
                finding(Severity.HIGH, "Changes unverifiable", f"{error.reason}; {error.remedy}")
            )
        retrieved, report, verified = retrieve_and_reconcile(prepared, ended, final_text, diff)
        findings.extend(retrieved.findings)
        if ended.timed_out:
            findings.append(
                finding(
                    Severity.HIGH,
                    "Deadline reached",
                    f"The agent was stopped after {plan.timeout_ms} ms.",
                )
            )
        if ended.spawn_error:
            findings.append(finding(Severity.HIGH, "Agent did not start", ended.spawn_error))
        if ended.output_lost:
            detail = f"{ended.output_lost}. The agent was left to finish; judge it by its diff."
            findings.append(finding(Severity.HIGH, "Output lost", detail))
        if translator.skipped:
            findings.append(
                finding(
                    Severity.INFO,
                    "Output not understood",
                    f"{translator.skipped} line(s) of {plan.adapter.id}'s output were not JSON "
                    "events this adapter knows; they are kept in raw.log.",
                )
            )
        stream_failed = (
            translator.failure is not None and retrieved.source is ReportSource.SYNTHESIZED
        )
        if stream_failed:
            findings.append(finding(Severity.HIGH, "Agent run failed", str(translator.failure)))
        if report.usage is None and usage is not None:
            report = report.model_copy(update={"usage": usage})
        stopped = ended.timed_out or ended.cancelled or ended.spawn_error is not None
        stopped = stopped or stream_failed or unverified is not None
        # A report caesar refused is no report: the task cannot succeed on the agent's word.
        if (stopped or retrieved.refused) and report.status is not ReportStatus.FAILED:
            report = report.model_copy(update={"status": ReportStatus.FAILED})
        checked = self._checks(prepared, ended, until)
        report = with_checks(report, checked or ())
        report = report.model_copy(update={"findings": [*report.findings, *findings]})
        write_concluded_report(paths.report, report)

        status, reason = status_of(ended, plan.timeout_ms)
        if unverified and status is TaskStatus.SUCCEEDED:
            status, reason = TaskStatus.FAILED, unverified
        if retrieved.refused and status is TaskStatus.SUCCEEDED:
            status = TaskStatus.FAILED
            reason = f"the agent's report was refused: {retrieved.refused}"
            stopped = True
        status, reason = after_checks(status, reason, checked)
        if stopped and reason:
            closing.append(Error(message=reason, fatal=True))
        finished = closing.append(
            Finished(status=report.status, summary=report.summary, exit_code=ended.exit_code)
        )
        # The record names caesar's own finished event: readers show that one, never a
        # finished line the agent appended to its log.
        finished_seq = finished.seq if finished else NO_ENDING
        final, ours = self.store.conclude(
            task.id,
            status,
            now=self.clock(),
            exit_code=ended.exit_code,
            report_source=retrieved.source,
            changes_verified_by=verified,
            report_status=report.status,
            ended_reason=reason,
            finished_seq=finished_seq,
            **session_of(translator),
        )
        if not ours:
            # Someone concluded first (a cancel from another process); the facts still land.
            final = self.store.set(
                task.id,
                exit_code=ended.exit_code,
                report_source=retrieved.source,
                changes_verified_by=verified,
                report_status=report.status,
                finished_seq=finished_seq,
                **session_of(translator),
            )
        return Outcome(final, report, diff, paths)

    def _checks(self, prepared: Prepared, ended: Exit, until: Until) -> list[CheckResult] | None:
        """``[review] checks`` run in the task's worktree (read-only tasks too: they are
        caesar's, not the agent's), before the task concludes; None when none are configured
        or the agent was stopped (cancelled, out of time, never started): no work to check.

        Each carries the task's marker and is told to the record as its ``pid`` and ``cgroup``,
        so ``caesar cancel`` and the watchdog stop a check as they stop an agent; none runs
        past the task's deadline."""
        checks = self.config.config.review.checks
        if not checks or ended.timed_out or ended.cancelled or ended.spawn_error is not None:
            return None
        task_id = prepared.task.id
        started = Checks(state=ChecksState.RUNNING, started_at=self.clock(), pid=os.getpid())
        self.store.set(task_id, checks=started)

        def spawned(pid: int, cgroup: Path | None) -> None:
            self.store.set(task_id, pid=pid, cgroup=str(cgroup) if cgroup else None)

        def progress(results: list[CheckResult]) -> None:
            with contextlib.suppress(OSError):
                self.store.set(task_id, checks=started.model_copy(update={"results": results}))

        results = run_checks(
            checks,
            cwd=self._checks_directory(prepared),
            env=check_environment(self.env),
            marker=task_id,
            task_dir=prepared.paths.root,
            cancelled=until.cancelled,
            deadline=until.deadline,
            on_spawn=spawned,
            on_result=progress,
        )
        done = started.model_copy(
            update={
                "state": state_of(results),
                "results": results,
                "ended_at": self.clock(),
                "pid": None,
            }
        )
        self.store.set(task_id, checks=done)
        return results

    def _checks_directory(self, prepared: Prepared) -> Path:
        """The project's root as the task sees it: in its worktree, or the project itself."""
        worktree = self.store.get(prepared.task.id).worktree_path
        if worktree is None:
            return self.root
        return in_worktree(Path(worktree), self.root, prepared.plan.repo_root)

    def _diff(self, record: TaskRecord) -> TreeDiff | None:
        return turn_diff(record)


def retrieve_and_reconcile(
    prepared: Prepared, ended: Exit, final_text: str | None, diff: TreeDiff | None
) -> tuple[Retrieved, Report, VerifiedBy]:
    """The agent's report as caesar retrieved it, then reconciled with what git saw."""
    retrieved = retrieve(
        prepared.task,
        prepared.paths,
        prepared.tier,
        ended,
        final_text=final_text,
        changed_paths=[as_unicode(f.path) for f in diff.files] if diff else [],
    )
    report, verified = reconcile(retrieved.report, diff, prepared.plan.mode)
    return retrieved, report, verified


def turn_diff(record: TaskRecord) -> TreeDiff | None:
    """What a task's turn changed: a follow-up turn's own changes (since its ``turn_base``), else
    everything since the base. The ``git`` program answers when it can (``git.viagit``);
    ``git.diff`` (pygit2) is loaded only when it cannot, with the same answer."""
    if record.turn_base:
        workdir, base, peel = Path(record.workspace), record.turn_base, "tree"
    elif record.worktree_path and record.base_ref:
        workdir, base, peel = Path(record.worktree_path), record.base_ref, "commit"
    elif record.start_snapshot:
        workdir, base, peel = Path(record.workspace), record.start_snapshot, "tree"
    else:
        return None
    return changes(workdir, base, peel=peel, exclude=record.excluded_paths)


@dataclass(frozen=True)
class Until:
    """What bounds the checks at a task's end: its deadline (``time.monotonic()``) and its
    cancellation."""

    deadline: float
    cancelled: Callable[[], bool]


def after_checks(
    status: TaskStatus, reason: str | None, checked: list[CheckResult] | None
) -> tuple[TaskStatus, str | None]:
    """caesar's own checks have the last word on a success: one that failed fails the task;
    interrupted (Ctrl-C while they ran), it is cancelled."""
    if status is not TaskStatus.SUCCEEDED:
        return status, reason
    if any(result.cancelled for result in checked or ()):
        return TaskStatus.CANCELLED, "cancelled while caesar's checks ran"
    failed = first_failure(checked or ())
    return (status, reason) if failed is None else (TaskStatus.FAILED, failure_reason(failed))


def session_of(translator: Translator) -> dict[str, object]:
    """The CLI's session as its stream named it, for the record (a later turn resumes it)."""
    return {"session_id": translator.session} if translator.session else {}


def status_of(ended: Exit, timeout_ms: int) -> tuple[TaskStatus, str | None]:
    """The record's final status, from how the process ended, and why in words."""
    if ended.cancelled:
        return TaskStatus.CANCELLED, "cancelled"
    if ended.timed_out:
        return TaskStatus.TIMED_OUT, f"deadline of {timeout_ms} ms reached; the agent was stopped"
    if ended.spawn_error:
        return TaskStatus.FAILED, ended.spawn_error
    if ended.exit_code == 0:
        return TaskStatus.SUCCEEDED, None
    return TaskStatus.FAILED, f"exit code {ended.exit_code}"


def finding(severity: Severity, title: str, detail: str) -> Finding:
    return Finding(severity=severity, title=title, detail=detail)
