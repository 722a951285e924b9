"""What runs on a Dask worker: a task run by the same local runner as on one machine.

``run_task`` is the function submitted to the cluster. It recreates a repository from the
bundle it was sent in the worker's own local directory (``<local_directory>/caesar/<task
id>/repo``), at the task's ``base_ref``, writes the client's configuration there, and runs
``Runner.prepare`` and ``Runner.execute`` as ``caesar run`` would: worktree, ``CAESAR_*``,
adapter, deadline, report tiers, reconciliation, checks. At its end the worktree's content
(committed and uncommitted work) becomes a commit on ``refs/caesar/<task id>``, bundled.

The client reads everything else out of band with ``Client.run`` on this worker
(:mod:`caesar_core.executor.worker_calls`).

Nothing here imports ``distributed`` at module level: the functions get the worker they run
on from Dask (``dask_worker``, ``get_worker``).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any, Literal

from caesar_core.errors import CaesarError
from caesar_core.executor import bundle
from caesar_core.executor.wire import (
    Submission,
    base_ref_name,
    result_ref,
    start_ref,
)
from caesar_core.fs import atomic_write
from caesar_core.store.record import TaskRecord

WORK_DIR = "caesar"
STATE_FILE = "state.json"
CANCEL_FILE = "cancel"
OUT_BUNDLE = "out.bundle"
PROBLEM_FILE = "problem.txt"

State = Literal["preparing", "running", "done", "refused", "unknown"]


def distributed() -> Any:
    """The ``distributed`` module, imported when a function here runs on a worker (its API
    is untyped: it is used as ``Any``)."""
    import importlib

    return importlib.import_module("distributed")


def home_of(local_directory: str | Path, task_id: str) -> Path:
    return Path(local_directory) / WORK_DIR / task_id


# -- the submitted function -----------------------------------------------------------------


def run_task(submission: dict[str, Any]) -> dict[str, str]:
    """Run one task on this worker; what it did is read back with ``poll`` and ``result``.

    Dask runs a task again elsewhere when its worker dies: the task's claim (a Variable naming
    the worker that started it) makes that second run refuse, so a task never runs twice."""
    dist = distributed()
    sub = Submission.model_validate(submission)
    task_id = sub.job.task_id
    worker = dist.get_worker()
    claim = dist.Variable(f"caesar-worker-{task_id}")
    try:
        ran_on = claim.get(timeout=0)  # set long before by a run that was lost: no waiting
    except TimeoutError:
        ran_on = None
    if ran_on:
        return {"state": "refused", "reason": f"it started on {ran_on}, which was lost"}
    home = home_of(worker.local_directory, task_id)
    home.mkdir(parents=True, exist_ok=True)
    set_state(home, "preparing")  # before the claim names this worker: a poll finds it
    claim.set(worker.address)
    return run_here(home, sub)


def run_here(home: Path, sub: Submission) -> dict[str, str]:
    """The task, run in ``home`` (this worker's directory of it) to its end."""
    from caesar_core.config import load_config
    from caesar_core.runner.control import cancel
    from caesar_core.runner.engine import Runner, StartFailed

    task_id = sub.job.task_id
    home.mkdir(parents=True, exist_ok=True)
    set_state(home, "preparing")
    try:
        repo = lay_out(home, sub)
        runner = Runner(repo, load_config(repo, config_home=home / "config-home"))
        try:
            prepared = _prepare(runner, repo, sub)
        except StartFailed:
            commit_result(home, repo, task_id, sub)
            set_state(home, "done")
            return {"state": "done"}
    except CaesarError as refusal:
        why = refusal.reason + (f" ({refusal.remedy})" if refusal.remedy else "")
        set_state(home, "refused", why)
        return {"state": "refused", "reason": why}
    except Exception as error:  # anything else is the worker's trouble, said as such
        why = f"the worker could not prepare the task: {type(error).__name__}: {error}"
        set_state(home, "refused", why)
        return {"state": "refused", "reason": why}
    set_state(home, "running")
    if (home / CANCEL_FILE).exists():
        cancel(runner.store, task_id, by="user")
    runner.execute(prepared, interrupted=(home / CANCEL_FILE).exists)
    commit_result(home, repo, task_id, sub)
    set_state(home, "done")
    return {"state": "done"}


def lay_out(home: Path, sub: Submission) -> Path:
    """The repository at ``base_ref`` (its files checked out), the client's configuration and
    the ``[worktree] copy`` files: the project as the task sees it on its own machine."""
    job = sub.job
    repo = home / "repo"
    bundle.init(repo, branch="caesar-base")
    incoming = home / "in.bundle"
    incoming.write_bytes(sub.bundle)
    refs = [start_ref(job.task_id), base_ref_name(job.task_id)]
    fetched = bundle.fetch(repo, incoming, refs)
    incoming.unlink()
    if fetched[refs[0]] != job.start or fetched[refs[1]] != job.base:
        raise bundle.BundleError(
            "the bundle's commits are not the task's", "nothing ran; submit the task again"
        )
    bundle.git(repo, "reset", "-q", "--hard", job.base)  # the unborn caesar-base born there
    sub.config.write(repo, home / "config-home")
    if sub.copies:
        with tarfile.open(fileobj=io.BytesIO(sub.copies), mode="r:") as archive:
            archive.extractall(repo, filter="data")
    return repo


def _prepare(runner: Any, repo: Path, sub: Submission) -> Any:
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.outcome import Prepared

    job = sub.job
    wire = job.request
    request = Request(
        objective=wire.objective,
        agent=wire.agent,
        role=wire.role,
        mode=wire.mode,
        isolation="worktree",
        network=wire.network,
        timeout_ms=wire.timeout_ms,
        model=wire.model,
        context=wire.context,
        constraints=tuple(wire.constraints),
        acceptance_criteria=tuple(wire.acceptance_criteria),
        channel=wire.channel,
        extra_args=tuple(wire.extra_args),
        task_id=job.task_id,
    )
    workspace = repo / job.workspace
    if job.followup is None:
        prepared: Prepared = runner.prepare(request, workspace)
        return prepared
    from caesar_core.git import create_worktree
    from caesar_core.runner.turns import Continuation

    follow = job.followup
    previous = TaskRecord.model_validate(follow.previous)
    tree = repo / ".caesar" / "wt" / previous.id
    create_worktree(repo, tree, previous.branch, at=job.start)
    inside = Path()
    if previous.worktree_path and previous.workspace.startswith(previous.worktree_path):
        inside = Path(os.path.relpath(previous.workspace, previous.worktree_path))
    here = previous.model_copy(
        update={
            "workspace": str(tree / inside),
            "worktree_path": str(tree),
            "source_workspace": str(workspace),
            "continued_by": None,
            "executor": None,
            "pid": None,
            "cgroup": None,
            "orchestrator_pid": None,
            "discarded_at": None,
        }
    )
    runner.store.create(here)
    continuing = Continuation(
        here, follow.first_turn, follow.first_objective, follow.message, tuple(follow.comments)
    )
    asked = dataclasses.replace(continuing.request(wire.timeout_ms), task_id=job.task_id)
    return runner.prepare(asked, continuing.workspace, continuing=continuing)


def commit_result(home: Path, repo: Path, task_id: str, sub: Submission) -> None:
    """The worktree's content as a commit on ``refs/caesar/<task id>``, and its bundle."""
    from caesar_core.git import GitError, snapshot
    from caesar_core.store.store import TaskStore

    try:
        record = TaskStore(repo).get(task_id)
        if record.worktree_path is None:
            raise bundle.BundleError("the task has no worktree", "nothing to send back")
        tree = Path(record.worktree_path)
        content = snapshot(tree, exclude=record.excluded_paths)
        parent = bundle.head(tree)
        message = f"caesar: task {task_id} as it ended (committed and uncommitted work)"
        bundle.commit(repo, content.tree, parent, message, result_ref(task_id))
        known = {sub.job.start, sub.job.base}
        bundle.create(repo, [result_ref(task_id)], home / OUT_BUNDLE, known=sorted(known))
    except (CaesarError, GitError, OSError) as error:
        why = error.reason if isinstance(error, CaesarError) else str(error)
        (home / PROBLEM_FILE).write_text(f"the work could not be committed: {why}"[:4000])


def set_state(home: Path, state: State, reason: str = "") -> None:
    atomic_write(home / STATE_FILE, json.dumps({"state": state, "reason": reason}).encode())


def read_state(home: Path) -> tuple[State, str]:
    try:
        data = json.loads((home / STATE_FILE).read_text())
        return data["state"], str(data.get("reason", ""))
    except (OSError, ValueError, KeyError):
        return "preparing", ""
