"""What runs on a Dask worker: a task run by the same local runner as on one machine.

``run_task`` is the function submitted to the cluster. It recreates a repository from the
bundle it was sent in the worker's own local directory (``<local_directory>/caesar/<task
id>/repo``), at the task's ``base_ref``, writes the client's configuration there, and runs
``Runner.prepare`` and ``Runner.execute`` as ``caesar run`` would: worktree, ``CAESAR_*``,
adapter, deadline, report tiers, reconciliation, checks. At its end the worktree's content
(committed and uncommitted work) becomes a commit on ``refs/caesar/<task id>``, bundled.

The client reads everything else out of band with ``Client.run`` on this worker: ``poll``
(the log's new lines by byte offset, the record, the mailbox; it forwards answers and a
cancel), ``result`` (the bundle, the task directory's files, caesar's report) and ``forget``.
A pull by offset, not a push, so a client that went away and came back, or a second one,
loses nothing and applies nothing twice.

Nothing here imports ``distributed`` at module level: the functions get the worker they run
on from Dask (``dask_worker``, ``get_worker``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import os
import shutil
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from caesar_core import safefs
from caesar_core.errors import CaesarError
from caesar_core.executor import bundle
from caesar_core.executor.wire import (
    MAX_EVENTS_CHUNK,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_FILES_TOTAL,
    MAX_QUESTIONS,
    RecordView,
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
SKIPPED = {"events.jsonl", "task.json", "report.json"}
"""Task-directory files that do not come back as files: the log comes by offset, the task
file and the report are rewritten by the client from what it validated."""
MAX_DEPTH = 4
POLL_S = 0.01
"""How often a poll waiting for news looks whether anything changed (``versions``)."""
LOOK_S = 0.1
"""How often it looks at everything whatever the versions say."""

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
    layers = sub.config
    for text, path in (
        (layers.project_text, repo / ".caesar" / "config.toml"),
        (layers.local_text, repo / ".caesar" / "config.local.toml"),
        (layers.global_text, home / "config-home" / "caesar" / "config.toml"),
    ):
        if text is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
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


# -- out of band: Client.run on this worker ---------------------------------------------------


async def poll(
    task_id: str,
    offset: int,
    *,
    known_state: str = "",
    known_questions: int = 0,
    wait_s: float = 1.0,
    cancel: bool = False,
    answers: Sequence[tuple[str, str, str]] = (),
    dask_worker: Any = None,
) -> dict[str, Any]:
    """What is new since ``offset`` of the log, waiting up to ``wait_s`` for something to be;
    first forwarding a cancel and answers ``(question id, text, by)``."""
    home = home_of(dask_worker.local_directory, task_id)
    if not home.is_dir():
        return {"state": "unknown", "reason": f"worker {dask_worker.address} has no such task"}
    answered: list[str] = []
    if cancel:
        await asyncio.to_thread(request_cancel, home, task_id)
    if answers:
        answered = await asyncio.to_thread(deliver_answers, home, task_id, answers)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    version = versions(home, task_id)  # before the look: a change after it is seen next time
    seen, looked = look(home, task_id, offset), loop.time()
    while True:
        news = seen["state"] != known_state or seen["events"]
        news = news or len(seen["questions"]) != known_questions
        if news or loop.time() >= deadline:
            seen["answered"] = sorted({*answered, *seen["answered"]})
            return seen
        await asyncio.sleep(POLL_S)
        now = versions(home, task_id)
        # A change shows in the versions at once; one they miss (two within a tick of the
        # file system's clock) in the whole look made at least every LOOK_S.
        if now != version or loop.time() - looked >= LOOK_S:
            version, seen, looked = now, look(home, task_id, offset), loop.time()


def versions(home: Path, task_id: str) -> tuple[tuple[int, int, int], ...]:
    """What tells the state, the log and the questions from their next versions (by
    ``lstat``: nothing opened, no link followed); looked at every ``POLL_S``, which only a
    change makes a whole ``look``."""
    from caesar_core.store.store import TaskStore

    root = TaskStore(home / "repo").paths(task_id)
    found: list[tuple[int, int, int]] = []
    for path in (home / STATE_FILE, root.events, root.questions):
        try:
            st = os.lstat(path)
        except OSError:
            found.append((0, 0, 0))
            continue
        found.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(found)


def look(home: Path, task_id: str, offset: int) -> dict[str, Any]:
    """The task's state on this worker: log bytes after ``offset``, record, mailbox."""
    from caesar_core.store.store import TaskStore

    state, reason = read_state(home)  # first: a log read after an ended state is whole
    seen: dict[str, Any] = {"state": state, "reason": reason, "events": b"", "log_size": 0}
    seen.update(questions={}, answered=[], record=None)
    repo = home / "repo"
    if not (repo / ".caesar" / "state" / "tasks" / f"{task_id}.json").exists():
        return seen
    store = TaskStore(repo)
    with contextlib.suppress(CaesarError, OSError, ValueError):
        seen["record"] = view_of(store.get(task_id))
    root = store.paths(task_id).root
    seen["events"], seen["log_size"] = _log_after(root, offset)
    seen["questions"] = _mailbox(root, "questions", read=True)
    seen["answered"] = list(_mailbox(root, "answers", read=False))
    return seen


def _log_after(root: Path, offset: int) -> tuple[bytes, int]:
    try:
        fd = safefs.open_file(root, "events.jsonl")
    except OSError:
        return b"", 0
    try:
        size = os.fstat(fd).st_size
        if size <= offset:
            return b"", size
        data = os.pread(fd, min(MAX_EVENTS_CHUNK, size - offset), offset)
    finally:
        os.close(fd)
    cut = data.rfind(b"\n")
    if cut >= 0:
        data = data[: cut + 1]
    elif offset + len(data) < size and len(data) < MAX_EVENTS_CHUNK:
        data = b""  # a line still being written: it comes whole next time
    return data, size


def _mailbox(root: Path, folder: str, *, read: bool) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    try:
        names = safefs.entries(root, folder)
    except OSError:
        return found
    for name, regular in names[:MAX_QUESTIONS]:
        if not regular or name.startswith(".") or not name.endswith(".json"):
            continue
        with contextlib.suppress(OSError):
            found[name[:-5]] = safefs.read_bytes(root, f"{folder}/{name}") if read else b""
    return found


def view_of(record: TaskRecord) -> dict[str, Any]:
    return RecordView.model_validate(record.model_dump()).model_dump()


def request_cancel(home: Path, task_id: str) -> None:
    """The client's ``caesar cancel``: the marker the runner watches, and the cancel of the
    record here, which stops the agent's process tree as ``caesar cancel`` does locally."""
    from caesar_core.runner.control import cancel
    from caesar_core.store.store import TaskStore

    (home / CANCEL_FILE).touch()
    repo = home / "repo"
    if (repo / ".caesar" / "state" / "tasks" / f"{task_id}.json").exists():
        with contextlib.suppress(CaesarError, OSError):
            cancel(TaskStore(repo), task_id, by="user")


def deliver_answers(home: Path, task_id: str, answers: Sequence[tuple[str, str, str]]) -> list[str]:
    """Answers given on the client, into the agent's mailbox here: the ids delivered (or
    answered already)."""
    from caesar_core.runner.control import answer
    from caesar_core.store.mailbox import AlreadyAnsweredError
    from caesar_core.store.store import TaskStore

    store = TaskStore(home / "repo")
    done: list[str] = []
    for question_id, text, by in answers:
        try:
            answer(store, task_id, question_id, text, by=by or "remote")
        except AlreadyAnsweredError:
            pass
        except (CaesarError, OSError):
            continue
        done.append(question_id)
    return done


def result(task_id: str, dask_worker: Any = None) -> dict[str, Any]:
    """Everything that comes back once the task ended here."""
    from caesar_core.layout import kept_report
    from caesar_core.store.store import TaskStore

    home = home_of(dask_worker.local_directory, task_id)
    state, reason = read_state(home)
    if state not in ("done", "refused"):
        return {"problem": f"the task is {state} on {dask_worker.address}, not ended"}
    out: dict[str, Any] = {"problem": reason}
    problem = home / PROBLEM_FILE
    if problem.exists():
        out["problem"] = problem.read_text()[:4000]
    if (home / OUT_BUNDLE).exists():
        out["ref"] = result_ref(task_id)
        out["bundle"] = (home / OUT_BUNDLE).read_bytes()
    repo = home / "repo"
    if not (repo / ".caesar" / "state" / "tasks" / f"{task_id}.json").exists():
        return out
    store = TaskStore(repo)
    out["record"] = view_of(store.get(task_id))
    root = store.paths(task_id).root
    kept = kept_report(root)
    if kept is not None:
        with contextlib.suppress(OSError):
            out["report"] = safefs.read_bytes(*kept)
    out["files"] = task_files(root)
    with contextlib.suppress(OSError):
        out["task"] = safefs.read_bytes(root, "task.json")
    return out


def task_files(root: Path) -> dict[str, bytes]:
    """The task directory's regular files (bounded in number, size and depth; no link
    followed), but the log, the task file and the report."""
    files: dict[str, bytes] = {}
    total = 0
    pending: list[tuple[str, int]] = [("", 0)]
    while pending and len(files) < MAX_FILES:
        folder, depth = pending.pop()
        try:
            names = safefs.entries(root, folder)
        except OSError:
            continue
        for name, regular in names:
            rel = f"{folder}/{name}" if folder else name
            if name.startswith(".") or rel in SKIPPED:
                continue
            if not regular:
                with contextlib.suppress(OSError):
                    if depth < MAX_DEPTH and safefs.lstat(root, rel).st_mode & 0o170000 == 0o40000:
                        pending.append((rel, depth + 1))
                continue
            try:
                data = safefs.read_bytes(root, rel, limit=MAX_FILE_BYTES)
            except OSError:
                continue
            if total + len(data) > MAX_FILES_TOTAL or len(files) >= MAX_FILES:
                return files
            files[rel] = data
            total += len(data)
    return files


def forget(task_id: str, dask_worker: Any = None) -> bool:
    """The client has the result: this worker's copy of the task goes."""
    home = home_of(dask_worker.local_directory, task_id)
    shutil.rmtree(home, ignore_errors=True)
    return True


def describe(layers: dict[str, Any], dask_worker: Any = None) -> dict[str, Any]:
    """This worker for ``caesar doctor --on``: its slots, and the agents it can run under the
    client's configuration."""
    import tempfile

    from caesar_core import __version__
    from caesar_core.agents.listing import agent_rows
    from caesar_core.config import load_config
    from caesar_core.executor.wire import ConfigLayers

    config = ConfigLayers.model_validate(layers)
    with tempfile.TemporaryDirectory(prefix="caesar-doctor-") as scratch:
        root = Path(scratch)
        for text, path in (
            (config.project_text, root / ".caesar" / "config.toml"),
            (config.local_text, root / ".caesar" / "config.local.toml"),
            (config.global_text, root / "home" / "caesar" / "config.toml"),
        ):
            if text is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        rows = agent_rows(load_config(root, config_home=root / "home"))
    resources = dict(getattr(dask_worker.state, "total_resources", {}) or {})
    return {
        "caesar": __version__,
        "slots": resources.get("agent_slots", 0),
        "nthreads": dask_worker.state.nthreads,
        "agents": [
            {"id": r["id"], "installed": bool(r["installed"]), "allowed": bool(r["allowed"])}
            for r in rows
        ],
    }
