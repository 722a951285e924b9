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
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.agents.base import Invocation, Launch
from caesar_core.agents.brief import render_brief
from caesar_core.config import LoadedConfig
from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.executable import caesar_command
from caesar_core.fs import dump_json
from caesar_core.git import branch_name, create_worktree, task_lock_reason
from caesar_core.protocol.event import Error, Finished, Progress, Started
from caesar_core.protocol.report import Finding, Report, ReportStatus
from caesar_core.protocol.task import Channel, FollowUpComment, Isolation, Task
from caesar_core.protocol.taskdir import ENV_STREAM_EVENTS, TaskPaths, task_environment
from caesar_core.protocol.versions import REPORT_V1, TASK_V1
from caesar_core.reclaim import claim_write
from caesar_core.runner.delegation import Plan, Request, decide
from caesar_core.runner.injected import injected
from caesar_core.runner.outcome import Outcome, Prepared
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
    ReportSource,
    TaskRecord,
    TaskStatus,
)
from caesar_core.store.store import TaskStore

if TYPE_CHECKING:
    from caesar_core.runner.turns import Continuation

CONCLUSION_MODULES = ("caesar_core.runner.conclusion",)
"""What only a task's conclusion needs (``runner.conclusion``: its diff, report, checks, and
what they import). Imported when the agent has ended, and, once the agent runs, by
:func:`_load_conclusion` on a thread of its own: this process has nothing else to do while
the agent works, and a ``caesar run`` of a quick agent would otherwise import them after it,
on the command's critical path."""


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
        from caesar_core.runner.conclusion import Concluder, Until

        concluder = Concluder(self.root, self.config, self.env, self.store, self.clock)
        outcome = concluder.conclude(prepared, ended, translator, Until(deadline, cancel_requested))
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
