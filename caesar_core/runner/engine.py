"""The task lifecycle, in order: prepare (record, worktree, task.json), execute (slot, spawn,
deadline), then conclude (diff, report, reconciliation, final event, final status).

``prepare`` is separate so that an MCP ``caesar_delegate`` can answer with the task id at once
and run ``execute`` in the background. Whatever fails after the record exists, the task ends
with a status, a report and a ``finished`` event: no task is left running by an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.agents.base import Invocation, Launch, ReportTier, Translator
from caesar_core.agents.brief import render_brief
from caesar_core.config import LoadedConfig
from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.executable import caesar_command
from caesar_core.fs import dump_json
from caesar_core.git import GitError, branch_name, create_worktree, task_lock_reason
from caesar_core.protocol.event import Error, Finished, Progress, Started
from caesar_core.protocol.report import Finding, Report, ReportStatus, Severity
from caesar_core.protocol.task import Channel, FollowUpComment, Isolation, Task
from caesar_core.protocol.taskdir import ENV_STREAM_EVENTS, TaskPaths, task_environment
from caesar_core.protocol.versions import REPORT_V1, TASK_V1
from caesar_core.reclaim import claim_write
from caesar_core.runner.delegation import Plan, Request, decide
from caesar_core.runner.injected import injected
from caesar_core.runner.resume import (
    WatchedTranslator,
    fresh_session,
    other_session,
    session_lost,
)
from caesar_core.runner.slots import Holder, Slots, SlotWaitCancelled
from caesar_core.runner.supervise import Exit, run_agent
from caesar_core.runner.watchdog import Watchdog
from caesar_core.runner.workshop import SetupFailed, lay_down, run_setup
from caesar_core.store.ids import new_task_id
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
    from caesar_core.git import TreeDiff
    from caesar_core.runner.retrieve import Retrieved
    from caesar_core.runner.turns import Continuation
    from caesar_core.store.record import VerifiedBy

CONCLUSION_MODULES = (
    "caesar_core.git.recompute",
    "caesar_core.protocol.documents",
    "caesar_core.review.checks",
    "caesar_core.runner.reconcile",
    "caesar_core.runner.retrieve",
    "caesar_core.runner.unwritten",
)
"""What only a task's conclusion needs (its diff, report, checks). Imported by the functions
that use them, and, once the agent runs, by :func:`_load_conclusion` on a thread of its own:
this process has nothing else to do while the agent works, and a ``caesar run`` of a quick
agent would otherwise import them after it, on the command's critical path."""


def _load_conclusion() -> None:
    """Import :data:`CONCLUSION_MODULES` (an error is left for the import that needs it)."""
    for name in CONCLUSION_MODULES:
        with contextlib.suppress(Exception):
            __import__(name)


def load_conclusion_meanwhile() -> None:
    """:func:`_load_conclusion` on a daemon thread, unless everything is already loaded."""
    import sys
    import threading

    if all(name in sys.modules for name in CONCLUSION_MODULES):
        return
    threading.Thread(target=_load_conclusion, name="caesar-load-conclusion", daemon=True).start()


class StartFailed(CaesarError):
    """The task was created but could not start (worktree, setup); it is concluded failed."""

    def __init__(self, cause: str, outcome: Outcome) -> None:
        super().__init__(
            f"task {outcome.record.id} could not start: {cause}",
            f"see its report: caesar logs {outcome.record.id}",
        )
        self.outcome = outcome


@dataclass
class Prepared:
    plan: Plan
    task: Task
    paths: TaskPaths
    tier: ReportTier
    prompt: str
    findings: list[Finding] = field(default_factory=list)
    resume_session: str | None = None
    """A follow-up turn: the agent's session to resume with ``prompt``."""
    fresh_prompt: str = ""
    """The brief of a fresh session, for a follow-up whose session cannot be resumed."""


@dataclass(frozen=True)
class Outcome:
    record: TaskRecord
    report: Report
    diff: TreeDiff | None
    paths: TaskPaths


class Runner:
    """Runs tasks for one project root."""

    def __init__(
        self,
        root: Path,
        config: LoadedConfig,
        *,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.root = root
        self.config = config
        self.env = dict(os.environ if env is None else env)
        self.clock = clock
        self.store = TaskStore(root)
        self.slots = Slots(self.store.home / "state" / "slots", config.config.policy.max_parallel)

    # -- prepare -----------------------------------------------------------------------------

    def prepare(
        self, request: Request, workspace: Path, *, continuing: Continuation | None = None
    ) -> Prepared:
        """Decide, then lay the task out on disk. Refusals happen before anything is written.

        ``continuing``: a follow-up turn (``runner.turns``), which reuses the previous turn's
        workspace and base instead of making its own, and names itself its one follow-up."""
        plan = decide(request, self.config, workspace=workspace, root=self.root, env=self.env)
        if continuing is not None and plan.isolation is not continuing.previous.isolation:
            plan = dataclasses.replace(plan, isolation=continuing.previous.isolation)
        task_id = request.task_id or new_task_id()
        now = self.clock()
        tier = plan.adapter.preferred_tier(request.channel)
        label = plan.role.name if plan.role else plan.adapter.id
        record = TaskRecord(
            id=task_id,
            created_at=now,
            parent_id=plan.parent_id,
            depth=plan.depth,
            agent=plan.adapter.id,
            role=plan.role.name if plan.role else None,
            objective=request.objective,
            workspace=str(workspace),
            source_workspace=str(workspace),
            isolation=plan.isolation,
            mode=plan.mode,
            orchestrator_pid=os.getpid(),
            orchestrator_host=socket.gethostname(),
            report_tier=tier,
            deadline_ms=plan.timeout_ms,
            model=plan.model,
            network_asked=request.network,
        )
        resume: str | None = None
        findings = list(plan.findings)
        if continuing is not None:
            from caesar_core.runner.turns import claim, release, turn_base  # a follow-up turn

            record = record.model_copy(update=continuing.record_fields())
            resume, fresh = continuing.session_for(plan.adapter)
            findings += [fresh] if fresh else []
            record = record.model_copy(update={"resumed_session": resume, "session_id": resume})
            claim(self.store, continuing.previous.id, task_id)
        try:
            paths = self.store.create(record)
        except BaseException:
            if continuing is not None:
                release(self.store, continuing.previous.id, task_id)
            raise
        try:
            if continuing is None:
                agent_workspace, base_ref = self._isolate(plan, record, paths, label, findings)
            else:
                self.store.set(task_id, turn_base=turn_base(record))
                agent_workspace, base_ref = Path(record.workspace), record.base_ref
            task = Task(
                protocol=TASK_V1,
                id=task_id,
                created_at=now,
                role=record.role,
                agent=plan.adapter.id,
                objective=request.objective,
                context=request.context,
                constraints=list(request.constraints),
                acceptance_criteria=list(request.acceptance_criteria),
                mode=plan.mode,
                isolation=plan.isolation,
                network=plan.network,
                workspace=str(agent_workspace),
                base_ref=base_ref,
                deadline_ms=plan.timeout_ms,
                depth=plan.depth,
                report_path=str(paths.report),
                events_path=str(paths.events),
                channel=channel_for(paths) if tier == "channel" else None,
                followup=continuing.followup() if continuing is not None else None,
            )
            # The agent's input, read by nothing of caesar's once its task ended: a crash that
            # loses it ends the task all the same (abandoned), so it is not fsynced.
            task_json = dump_json(task.to_json_dict())
            claim_write(paths.root, paths.task_file.name, task_json, durable=False)
            if tier == "schema":
                from caesar_core.published import schema_text

                schema = schema_text("report", strict=True).encode()
                claim_write(paths.root, paths.report_schema.name, schema, durable=False)
            prompt = render_brief(
                task, tier=tier, system_prompt=plan.system_prompt, resumed=resume is not None
            )
            fresh_prompt = render_brief(task, tier=tier, system_prompt=plan.system_prompt)
        except Exception as error:
            outcome = self._fail_early(record, paths, error, findings)
            raise StartFailed(_reason(error), outcome) from error
        return Prepared(plan, task, paths, tier, prompt, findings, resume, fresh_prompt)

    def prepare_followup(
        self,
        task_id: str,
        message: str = "",
        *,
        timeout_ms: int | None = None,
        comments: Sequence[FollowUpComment] = (),
    ) -> Prepared:
        """A follow-up turn of ``task_id`` (``caesar continue``), laid out like any task;
        ``comments``: the reviewer's open comments its brief carries (by default, those of
        ``caesar comment`` still open)."""
        from caesar_core.runner.turns import continuation

        continuing = continuation(self.store, task_id, message, comments=comments)
        return self.prepare(
            continuing.request(timeout_ms), continuing.workspace, continuing=continuing
        )

    def _isolate(
        self,
        plan: Plan,
        record: TaskRecord,
        paths: TaskPaths,
        label: str,
        findings: list[Finding],
    ) -> tuple[Path, str | None]:
        """The directory the agent works in, and the frozen ``base_ref`` under a worktree."""
        if plan.isolation is Isolation.INPLACE:
            if plan.repo_root is not None:
                from caesar_core.git import snapshot

                start = snapshot(plan.workspace)
                self.store.set(record.id, start_snapshot=start.tree)
            return plan.workspace, None
        assert plan.repo_root is not None
        repo = plan.repo_root
        dest = self.store.home / "wt" / record.id
        branch = branch_name(f"{label} {plan.request.objective}", record.id)
        base_ref = create_worktree(repo, dest, branch, lock=task_lock_reason(record.id))
        worktree_cfg = self.config.config.worktree
        shop = lay_down(repo, dest, worktree_cfg.copy, worktree_cfg.link)
        findings.extend(shop.findings)
        relative = plan.workspace.relative_to(repo) if plan.workspace != repo else Path()
        self.store.set(
            record.id,
            workspace=str(dest / relative),
            worktree_path=str(dest),
            branch=branch,
            base_ref=base_ref,
            excluded_paths=shop.laid_down,
        )
        if worktree_cfg.setup:
            env = {**self.env, **task_environment(paths, record.id, plan.adapter.id, plan.depth)}
            run_setup(dest, worktree_cfg.setup, env)
        return dest / relative, base_ref

    def _fail_early(
        self, record: TaskRecord, paths: TaskPaths, error: Exception, findings: list[Finding]
    ) -> Outcome:
        """A task that could not even start still ends properly: a report, an event, a status."""
        from caesar_core.protocol.documents import write_concluded_report

        detail = error.output if isinstance(error, SetupFailed) else ""
        reason = _reason(error)
        report = Report(
            protocol=REPORT_V1,
            task_id=record.id,
            status=ReportStatus.FAILED,
            summary=f"The task could not start: {reason}",
            details=detail,
            findings=findings,
        )
        write_concluded_report(paths.report, report)
        with EventWriter(paths.events, record.id, clock=self.clock) as events:
            events.append(Error(message=reason, fatal=True))
            finished = events.append(Finished(status=ReportStatus.FAILED, summary=report.summary))
        final, _ = self.store.conclude(
            record.id,
            TaskStatus.FAILED,
            now=self.clock(),
            report_status=ReportStatus.FAILED,
            report_source=ReportSource.SYNTHESIZED,
            ended_reason=reason,
            finished_seq=finished.seq if finished else NO_ENDING,
        )
        return Outcome(final, report, None, paths)

    # -- execute -----------------------------------------------------------------------------

    def execute(
        self,
        prepared: Prepared,
        *,
        on_wait: Callable[[list[Holder]], None] | None = None,
        interrupted: Callable[[], bool] = lambda: False,
        on_spawn: Callable[[], None] | None = None,
    ) -> Outcome:
        """Run the prepared task to its conclusion. ``on_spawn``: called once the agent's
        process runs (``caesar run`` starts following the log then, not while this thread
        spawns it: both want the interpreter)."""
        task, paths, plan = prepared.task, prepared.paths, prepared.plan
        adapter = plan.adapter

        def cancel_requested() -> bool:
            return interrupted() or self.store.get(task.id).status is TaskStatus.CANCELLED

        invocation = Invocation(
            task=task,
            paths=paths,
            prompt=prepared.prompt,
            tier=prepared.tier,
            model=plan.model,
            network_off=plan.network_off,
            extra_args=plan.request.extra_args,
            channel_command=_channel_argv(task.channel),
            resume_session=prepared.resume_session,
        )
        launch = adapter.launch(invocation)
        translator = WatchedTranslator(adapter.translator(invocation))
        env = {
            **self.env,
            **task_environment(paths, task.id, adapter.id, plan.depth),
        }
        if adapter.capabilities.json_events:
            env[ENV_STREAM_EVENTS] = "1"
        timeout_s = plan.timeout_ms / 1000
        watchdog = Watchdog(self.root, task.id, self.store.record_path(task.id), timeout_s)
        deadline = time.monotonic() + timeout_s  # the watchdog's, or a moment before it

        def spawned(pid: int, cgroup: Path | None) -> None:
            with contextlib.suppress(OSError):  # a full disk: it is still found by its marker
                self.store.set(task.id, pid=pid, cgroup=str(cgroup) if cgroup else None)
            load_conclusion_meanwhile()
            if on_spawn is not None:
                on_spawn()

        try:
            with self.slots.hold(
                f"{task.id} {adapter.id}", cancelled=cancel_requested, on_wait=on_wait
            ):
                self.store.set(task.id, status=TaskStatus.RUNNING, started_at=self.clock())
                with EventWriter(paths.events, task.id, clock=self.clock) as opening:
                    opening.append(
                        Started(agent=adapter.id, command=_shown(launch.argv, prepared.prompt))
                    )
                with (
                    injected(launch.files, (Path(task.workspace), paths.root)),
                    EventWriter(paths.events, task.id, clock=self.clock) as stream,
                ):
                    watchdog.arm()

                    def attempt(
                        launch: Launch, translator: WatchedTranslator, timeout_s: float
                    ) -> Exit:
                        return run_agent(
                            launch,
                            task_id=task.id,
                            env=env,
                            raw_log=paths.raw_log,
                            translator=translator,
                            events=stream,
                            timeout_s=timeout_s,
                            cancel_requested=cancel_requested,
                            on_spawn=spawned,
                        )

                    ended = attempt(launch, translator, timeout_s)
                    if session_lost(invocation, ended, translator):
                        invocation, translator, ended = self._fresh_session(
                            prepared, invocation, ended, stream, attempt, timeout_s
                        )
                    elif other := other_session(invocation.resume_session, translator):
                        prepared.findings.append(other)
        except SlotWaitCancelled:
            ended = Exit(None, cancelled=True)
        except OSError as error:  # a full disk before the agent ran: its task still concludes
            from caesar_core.runner.unwritten import io_reason

            ended = Exit(None, spawn_error=f"the agent could not be started: {io_reason(error)}")
        outcome = self._conclude_or_fail(
            prepared, ended, translator, _Until(deadline, cancel_requested)
        )
        watchdog.disarm()  # left running when the record could not be written: it retries
        return outcome

    def _fresh_session(
        self,
        prepared: Prepared,
        invocation: Invocation,
        failed: Exit,
        stream: EventWriter,
        attempt: Callable[[Launch, WatchedTranslator, float], Exit],
        timeout_s: float,
    ) -> tuple[Invocation, WatchedTranslator, Exit]:
        """The resumed session could not be loaded: the turn starts a fresh one, with the full
        brief and what is left of its time, and its report says so."""
        adapter, lost = prepared.plan.adapter, invocation.resume_session
        why = (
            f"{adapter.id} could not resume its session {lost} (exit {failed.exit_code}, "
            "before the session started)"
        )
        stream.append(Progress(message=f"{why}: starting a fresh session"))
        prepared.findings.append(
            fresh_session(f"{why}; this turn started a new one with the full brief.")
        )
        with contextlib.suppress(OSError):
            self.store.set(prepared.task.id, resumed_session=None, session_id=None)
        fresh = dataclasses.replace(invocation, prompt=prepared.fresh_prompt, resume_session=None)
        translator = WatchedTranslator(adapter.translator(fresh))
        left = max(0.0, timeout_s - failed.duration_ms / 1000)
        return fresh, translator, attempt(adapter.launch(fresh), translator, left)

    def run(
        self,
        request: Request,
        workspace: Path,
        *,
        on_wait: Callable[[list[Holder]], None] | None = None,
        interrupted: Callable[[], bool] = lambda: False,
    ) -> Outcome:
        prepared = self.prepare(request, workspace)
        return self.execute(prepared, on_wait=on_wait, interrupted=interrupted)

    # -- conclude ----------------------------------------------------------------------------

    def _conclude_or_fail(
        self, prepared: Prepared, ended: Exit, translator: Translator, until: _Until
    ) -> Outcome:
        """Conclude; a write that fails on the way (a full disk) ends the task failed, with the
        reason, instead of a traceback and a task left ``running``."""
        try:
            return self._conclude(prepared, ended, translator, until)
        except OSError as error:
            from caesar_core.runner.unwritten import conclude_unwritten

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
        self, prepared: Prepared, ended: Exit, translator: Translator, until: _Until
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
        until: _Until,
    ) -> Outcome:
        from caesar_core.protocol.documents import write_concluded_report
        from caesar_core.review.checks import with_checks

        task, paths, plan = prepared.task, prepared.paths, prepared.plan
        final_text, usage = translator.final_text, translator.usage
        record = self.store.get(task.id)
        findings = list(prepared.findings)
        try:
            diff, unverified = self._diff(record), None
        except GitError as error:  # e.g. the agent wrote over its worktree's git index
            diff, unverified = None, f"the task's changes could not be read: {error.reason}"
            findings.append(
                _finding(Severity.HIGH, "Changes unverifiable", f"{error.reason}; {error.remedy}")
            )
        retrieved, report, verified = _retrieve_and_reconcile(prepared, ended, final_text, diff)
        findings.extend(retrieved.findings)
        if ended.timed_out:
            findings.append(
                _finding(
                    Severity.HIGH,
                    "Deadline reached",
                    f"The agent was stopped after {plan.timeout_ms} ms.",
                )
            )
        if ended.spawn_error:
            findings.append(_finding(Severity.HIGH, "Agent did not start", ended.spawn_error))
        if ended.output_lost:
            detail = f"{ended.output_lost}. The agent was left to finish; judge it by its diff."
            findings.append(_finding(Severity.HIGH, "Output lost", detail))
        if translator.skipped:
            findings.append(
                _finding(
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
            findings.append(_finding(Severity.HIGH, "Agent run failed", str(translator.failure)))
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

        status, reason = _status_of(ended, plan.timeout_ms)
        if unverified and status is TaskStatus.SUCCEEDED:
            status, reason = TaskStatus.FAILED, unverified
        if retrieved.refused and status is TaskStatus.SUCCEEDED:
            status = TaskStatus.FAILED
            reason = f"the agent's report was refused: {retrieved.refused}"
            stopped = True
        status, reason = _after_checks(status, reason, checked)
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
            **_session_of(translator),
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
                **_session_of(translator),
            )
        return Outcome(final, report, diff, paths)

    def _checks(self, prepared: Prepared, ended: Exit, until: _Until) -> list[CheckResult] | None:
        """``[review] checks`` run in the task's worktree (read-only tasks too: they are
        caesar's, not the agent's), before the task concludes; None when none are configured
        or the agent was stopped (cancelled, out of time, never started): no work to check.

        Each carries the task's marker and is told to the record as its ``pid`` and ``cgroup``,
        so ``caesar cancel`` and the watchdog stop a check as they stop an agent; none runs
        past the task's deadline."""
        from caesar_core.review.checks import check_environment, run_checks, state_of

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
        from caesar_core.review.checks import in_worktree

        worktree = self.store.get(prepared.task.id).worktree_path
        if worktree is None:
            return self.root
        return in_worktree(Path(worktree), self.root, prepared.plan.repo_root)

    def _diff(self, record: TaskRecord) -> TreeDiff | None:
        return task_diff(record)


def _retrieve_and_reconcile(
    prepared: Prepared, ended: Exit, final_text: str | None, diff: TreeDiff | None
) -> tuple[Retrieved, Report, VerifiedBy]:
    """The agent's report as caesar retrieved it, then reconciled with what git saw."""
    from caesar_core.git import as_unicode
    from caesar_core.runner.reconcile import reconcile
    from caesar_core.runner.retrieve import retrieve

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


def task_diff(record: TaskRecord) -> TreeDiff | None:
    """What a task changed: a follow-up turn's own changes (since its ``turn_base``), else
    everything since the base. The ``git`` program answers when it can (``git.viagit``);
    ``git.diff`` (pygit2) is loaded only when it cannot, with the same answer."""
    from caesar_core.git.recompute import changes

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
class _Until:
    """What bounds the checks at a task's end: its deadline (``time.monotonic()``) and its
    cancellation."""

    deadline: float
    cancelled: Callable[[], bool]


def _after_checks(
    status: TaskStatus, reason: str | None, checked: list[CheckResult] | None
) -> tuple[TaskStatus, str | None]:
    """caesar's own checks have the last word on a success: one that failed fails the task;
    interrupted (Ctrl-C while they ran), it is cancelled."""
    from caesar_core.review.checks import failure_reason, first_failure

    if status is not TaskStatus.SUCCEEDED:
        return status, reason
    if any(result.cancelled for result in checked or ()):
        return TaskStatus.CANCELLED, "cancelled while caesar's checks ran"
    failed = first_failure(checked or ())
    return (status, reason) if failed is None else (TaskStatus.FAILED, failure_reason(failed))


def _session_of(translator: Translator) -> dict[str, object]:
    """The CLI's session as its stream named it, for the record (a later turn resumes it)."""
    return {"session_id": translator.session} if translator.session else {}


def _status_of(ended: Exit, timeout_ms: int) -> tuple[TaskStatus, str | None]:
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


def channel_for(paths: TaskPaths) -> Channel:
    """The return channel's coordinates: this installation's ``caesar channel serve``
    (``caesar_command``), so the agent's CLI starts it with no PATH or virtualenv of its own."""
    command, *prefix = caesar_command()
    return Channel(
        command=command, args=[*prefix, "channel", "serve", "--task-dir", str(paths.root)]
    )


def _channel_argv(channel: Channel | None) -> list[str]:
    return [] if channel is None else [channel.command, *channel.args]


def _reason(error: Exception) -> str:
    return error.reason if isinstance(error, CaesarError) else f"{type(error).__name__}: {error}"


def _shown(argv: list[str], prompt: str) -> str:
    """The command line for the ``started`` event, with the brief elided: it can be pages."""
    return shlex.join(
        f"<brief: {len(prompt)} chars>" if prompt and prompt in arg else arg for arg in argv
    )


def _finding(severity: Severity, title: str, detail: str) -> Finding:
    return Finding(severity=severity, title=title, detail=detail)
