"""``caesar check ID [--hunk …]`` (and the MCP ``caesar_check``): the project's checks on
demand, on a task's whole work in its worktree, or on a selection of its hunks alone in a
scratch worktree (``review/scratch.py``) at its ``base_ref``.

A run is kept in the task's record (``checks``, or ``selection_checks`` with the hunks it ran
on), ``running`` while it runs: one run per task at a time, the second refused. The task's
report is not rewritten: it is the one of the task's end, and its checks then.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from caesar_core.config import LoadedConfig, layer_path
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git import find_repository
from caesar_core.review.checks import (
    CHECKS_DIR,
    check_environment,
    in_worktree,
    no_checks_error,
    run_checks,
    state_of,
)
from caesar_core.review.hunks import Pick
from caesar_core.review.scratch import scratch_worktree
from caesar_core.runner.slots import pid_alive
from caesar_core.runner.sweep import abandoned
from caesar_core.runner.worktrees import NoWorktreeError
from caesar_core.store.record import CheckResult, Checks, ChecksState, TaskRecord
from caesar_core.store.store import TaskStore

SELECTION_DIR = f"{CHECKS_DIR}/selection"
"""Where the output of checks on a selection goes in the task directory."""


def check_task(
    root: Path,
    config: LoadedConfig,
    task_id: str,
    picks: Sequence[Pick] = (),
    *,
    env: Mapping[str, str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Checks:
    """Run the checks on the task (``picks``: on those hunks alone); the run as recorded."""
    store = TaskStore(root)
    record = store.get(task_id)
    checks = config.config.review.checks
    if not checks:
        raise no_checks_error(str(layer_path(root, "project")))
    if not record.status.terminal and not abandoned(record):
        raise CaesarError(
            f"task {record.id} is still {record.status.value}",
            "caesar runs its checks when the agent has finished; wait for it "
            f"(caesar logs {record.id} --follow), then check again",
            exit_code=ExitCode.USAGE,
        )
    marker = f"{record.id}.check-{secrets.token_hex(4)}"
    check_env = check_environment(os.environ if env is None else env)
    repo = find_repository(root)
    if not picks:
        cwd = _task_directory(root, record, repo)
        run = _Run(store, record.id, "checks", [])
        return run.execute(
            lambda progress: run_checks(
                checks,
                cwd=cwd,
                env=check_env,
                marker=marker,
                task_dir=store.paths(record.id).root,
                cancelled=cancelled,
                on_result=progress,
            )
        )
    from caesar_core.review.selection import selected_sides

    sides = selected_sides(record, picks)  # an unknown or stale hunk is refused here, first
    run = _Run(store, record.id, "selection_checks", [str(pick) for pick in picks])

    def in_scratch(progress: Callable[[list[CheckResult]], None]) -> list[CheckResult]:
        with scratch_worktree(root, record, sides, config.config.worktree, check_env) as dest:
            return run_checks(
                checks,
                cwd=in_worktree(dest, root, repo),
                env=check_env,
                marker=marker,
                task_dir=store.paths(record.id).root,
                log_dir=SELECTION_DIR,
                cancelled=cancelled,
                on_result=progress,
            )

    return run.execute(in_scratch)


def _task_directory(root: Path, record: TaskRecord, repo: Path | None) -> Path:
    """The task's worktree (at the project's root in it), or the project for an in-place task."""
    if record.worktree_path is None:
        return root
    worktree = Path(record.worktree_path)
    if not worktree.is_dir():
        raise NoWorktreeError(record, "check")
    return in_worktree(worktree, root, repo)


class _Run:
    """One run of checks as the record shows it: ``running`` (refused when another run of
    this task is), then its results, or ``interrupted`` when it ends otherwise."""

    def __init__(self, store: TaskStore, task_id: str, field: str, hunks: list[str]) -> None:
        self.store, self.task_id, self.field = store, task_id, field
        self.checks = Checks(
            state=ChecksState.RUNNING,
            started_at=datetime.now(UTC),
            hunks=hunks,
            pid=os.getpid(),
        )

    def execute(
        self, work: Callable[[Callable[[list[CheckResult]], None]], list[CheckResult]]
    ) -> Checks:
        self._begin()
        results: list[CheckResult] = []

        def progress(so_far: list[CheckResult]) -> None:
            results[:] = so_far
            self._save(results=so_far)

        try:
            results = work(progress)
        except BaseException:
            self._save(state=ChecksState.INTERRUPTED, results=results, ended_at=_now(), pid=None)
            raise
        return self._save(state=state_of(results), results=results, ended_at=_now(), pid=None)

    def _begin(self) -> None:
        def claim(record: TaskRecord) -> TaskRecord:
            current: Checks | None = getattr(record, self.field)
            busy = current is not None and current.state is ChecksState.RUNNING
            if busy and current is not None and current.pid and pid_alive(current.pid):
                raise CaesarError(
                    f"checks of task {record.id} are already running (caesar process "
                    f"{current.pid})",
                    "wait for them to end, then check again",
                    exit_code=ExitCode.USAGE,
                )
            return record.model_copy(update={self.field: self.checks})

        self.store.update(self.task_id, claim)

    def _save(self, **changes: object) -> Checks:
        self.checks = self.checks.model_copy(update=changes)
        self.store.set(self.task_id, **{self.field: self.checks})
        return self.checks


def _now() -> datetime:
    return datetime.now(UTC)
