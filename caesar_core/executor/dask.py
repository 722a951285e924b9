"""The Dask executor, client side: a task laid out here, run on a cluster's worker.

``start`` writes the task's record here at once (``executor``: the scheduler's address, later
the worker) and the job (``.caesar/state/remote/<id>.json``), then starts its shepherd: a
detached process (a fork of ``caesar run --on``, else ``caesar remote shepherd ID``) that
submits the job, mirrors the task's log, questions and record while it runs, forwards answers
and a cancel, and lands the result (``executor.landing``). The shepherd is the task's
orchestrator: when it is gone, any command that shows tasks (``ps``, ``watch``, ``logs``)
starts another, which reattaches through the scheduler or concludes the task; one lock
(``<id>.lock``) keeps it to one at a time.

This module does not import ``distributed``: only the shepherd does (``executor.shepherd``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.executor.attach import ensure_shepherd
from caesar_core.executor.base import Executor
from caesar_core.executor.fork import fork_shepherd
from caesar_core.executor.shepherd_state import job_path
from caesar_core.executor.wire import FollowUpWire, Job, RequestWire, start_ref
from caesar_core.fs import atomic_write
from caesar_core.protocol.task import Isolation, Mode
from caesar_core.store.ids import new_task_id
from caesar_core.store.record import ExecutorInfo, TaskRecord, TaskStatus

if TYPE_CHECKING:
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.outcome import Outcome
    from caesar_core.store.store import TaskStore

SETTLE_POLL_S = 0.02
"""How often ``wait`` looks at the record (a stat; it is read only when it changed)."""
ATTACH_EVERY_S = 2.0


class RemoteRefused(CaesarError):
    """The task cannot run on a cluster as asked; nothing was written."""

    exit_code = ExitCode.USAGE


class DaskExecutor(Executor):
    kind = "dask"

    def __init__(self, store: TaskStore, address: str, *, fork: bool = False) -> None:
        """``fork``: a task started here gets a fork of this process as its shepherd
        (``attach.ensure_shepherd``), for a command that only waits afterwards."""
        super().__init__(store)
        self.address = address
        self.fork = fork

    def start(
        self, request: Request, workspace: Path, *, continues: str | None = None, message: str = ""
    ) -> str:
        from caesar_core.git import find_repository, head_commit

        if request.isolation == "inplace":
            raise RemoteRefused(
                "a task on another machine cannot work in place",
                "drop --isolation inplace (it runs in a worktree there), or use --on local",
            )
        if not request.objective.strip():
            raise RemoteRefused("the objective is empty", "say what the agent should do")
        if request.agent is None and request.role is None and continues is None:
            raise RemoteRefused(
                "no agent and no role: caesar cannot tell who should do this",
                "pass --agent ID or --role NAME (see `caesar doctor --on ADDRESS`)",
            )
        repo = find_repository(workspace)
        base = head_commit(repo) if repo is not None else None
        if repo is None or base is None:
            raise RemoteRefused(
                f"{workspace} is not in a git repository with a commit",
                "git init && git commit: the work travels to the worker as git objects",
            )
        task_id = request.task_id or new_task_id()
        if continues is not None:
            return self._start_followup(task_id, request, continues, message, repo)
        from caesar_core.config import load_config

        policy = load_config(self.store.root).config.policy
        inside = Path(os.path.relpath(workspace, repo)) if workspace != repo else Path()
        record = TaskRecord(
            id=task_id,
            created_at=datetime.now(UTC),
            agent=request.agent or "?",
            role=request.role,
            objective=request.objective,
            workspace=str(self.store.home / "wt" / task_id / inside),
            source_workspace=str(workspace),
            isolation=Isolation.WORKTREE,
            mode=request.mode or Mode(policy.default_mode),
            base_ref=base,
            deadline_ms=request.timeout_ms or policy.timeout_ms,
            model=request.model,
            network_asked=request.network,
            executor=ExecutorInfo(address=self.address),
        )
        job = Job(
            task_id=task_id,
            address=self.address,
            request=wire_request(request),
            workspace=inside.as_posix() if inside != Path() else "",
            base=base,
            start=base,
        )
        atomic_write(job_path(self.store, task_id), job.model_dump_json().encode())
        self.store.create(record)
        ensure_shepherd(self.store, record, fork=fork_shepherd if self.fork else None)
        return task_id

    def _start_followup(
        self, task_id: str, request: Request, continues: str, message: str, repo: Path
    ) -> str:
        from caesar_core.executor import bundle
        from caesar_core.git import snapshot
        from caesar_core.runner.turns import claim, continuation, release, turn_base

        continuing = continuation(self.store, continues, message)
        previous = continuing.previous
        if previous.base_ref is None or previous.worktree_path is None:
            raise RemoteRefused(
                f"task {continues} has no worktree and base to continue from",
                f"start a new task: caesar run OBJECTIVE --agent {previous.agent}",
            )
        worktree = Path(previous.worktree_path)
        # What the reviewer left in the worktree (rejected hunks reverted...) is where the
        # next turn starts: its content as a commit, sent to the worker.
        content = snapshot(worktree, exclude=previous.excluded_paths)
        start = bundle.commit(
            repo,
            content.tree,
            bundle.head(worktree),
            f"caesar: the work of {continues} as turn {continuing.turn} starts",
            start_ref(task_id),
        )
        asked = continuing.request(request.timeout_ms)
        record = TaskRecord(
            id=task_id,
            created_at=datetime.now(UTC),
            agent=previous.agent,
            role=previous.role,
            objective=continuing.objective,
            workspace=previous.workspace,
            isolation=Isolation.WORKTREE,
            mode=previous.mode,
            deadline_ms=asked.timeout_ms,
            model=previous.model,
            network_asked=previous.network_asked,
            report_tier=previous.report_tier,
            executor=ExecutorInfo(address=self.address),
        ).model_copy(update=continuing.record_fields())
        job = Job(
            task_id=task_id,
            address=self.address,
            request=wire_request(asked),
            workspace=_inside(Path(previous.source_workspace or repo), repo),
            base=previous.base_ref,
            start=start,
            followup=FollowUpWire(
                previous=previous.model_dump(mode="json"),
                first_turn=continuing.first_turn,
                first_objective=continuing.first_objective,
                message=continuing.message,
                comments=list(continuing.comments),
            ),
        )
        atomic_write(job_path(self.store, task_id), job.model_dump_json().encode())
        claim(self.store, continues, task_id)
        try:
            self.store.create(record.model_copy(update={"turn_base": turn_base(record)}))
        except BaseException:
            release(self.store, continues, task_id)
            raise
        ensure_shepherd(
            self.store, self.store.get(task_id), fork=fork_shepherd if self.fork else None
        )
        return task_id

    def wait(self, task_id: str, *, interrupted: Callable[[], bool] = lambda: False) -> Outcome:
        """Until the shepherd has settled the task (its result landed here, or it concluded
        without one); a shepherd gone meanwhile is replaced."""
        from caesar_core.runner.control import cancel

        asked_cancel = False
        attached = time.monotonic()
        path = self.store.record_path(task_id)
        seen, record = _version(path), self.store.get(task_id)
        while True:
            now = _version(path)
            if now is None or now != seen:  # records are replaced whole (a new inode)
                seen, record = now, self.store.get(task_id)
            if record.executor is None or record.executor.settled:
                return outcome_of(self.store, record)
            if interrupted() and not asked_cancel:
                asked_cancel = True
                cancel(self.store, task_id, by="user (Ctrl-C)")
            if time.monotonic() - attached > ATTACH_EVERY_S:
                ensure_shepherd(self.store, record)
                attached = time.monotonic()
            time.sleep(SETTLE_POLL_S)

    def deliver(self, record: TaskRecord, question_id: str) -> None:
        ensure_shepherd(self.store, record)

    def cancel(self, record: TaskRecord) -> None:
        ensure_shepherd(self.store, record)

    def recover(self, record: TaskRecord) -> None:
        ensure_shepherd(self.store, record)


def _version(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of a file from the next, or None when it cannot be told."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def wire_request(request: Request) -> RequestWire:
    return RequestWire(
        objective=request.objective,
        agent=request.agent,
        role=request.role,
        mode=request.mode,
        network=request.network,
        timeout_ms=request.timeout_ms,
        model=request.model,
        context=request.context,
        constraints=list(request.constraints),
        acceptance_criteria=list(request.acceptance_criteria),
        channel=request.channel,
        extra_args=list(request.extra_args),
    )


def _inside(workspace: Path, repo: Path) -> str:
    try:
        inside = workspace.resolve().relative_to(repo.resolve())
    except ValueError:
        return ""
    return "" if inside == Path() else inside.as_posix()


def outcome_of(store: TaskStore, record: TaskRecord) -> Outcome:
    """The task's outcome as ``caesar run`` shows it, from what landed here."""
    from caesar_core.git import GitError
    from caesar_core.protocol.documents import read_shown_report
    from caesar_core.protocol.report import Report, ReportStatus
    from caesar_core.protocol.versions import REPORT_V1
    from caesar_core.runner.conclusion import turn_diff
    from caesar_core.runner.outcome import Outcome

    paths = store.paths(record.id)
    try:
        report = read_shown_report(paths.report)
    except (CaesarError, OSError, ValueError):
        report = Report(
            protocol=REPORT_V1,
            task_id=record.id,
            status=ReportStatus.FAILED,
            summary=record.ended_reason or "no report came back",
        )
    try:
        diff = turn_diff(record) if record.worktree_path else None
    except GitError:
        diff = None
    return Outcome(record, report, diff, paths)


def is_remote_running(record: TaskRecord) -> bool:
    return record.remote and record.status in (TaskStatus.PENDING, TaskStatus.RUNNING)
