"""What the client runs on a Dask worker out of band (``Client.run``), beside the task that
``remote_worker.run_task`` runs there.

``poll`` (the log's new lines by byte offset, the record, the mailbox; it forwards answers and
a cancel), ``result`` (the bundle, the task directory's files, caesar's report), ``forget``
and ``describe`` (``caesar doctor --on``). A pull by offset, not a push, so a client that went
away and came back, or a second one, loses nothing and applies nothing twice. Everything read
of the task directory is the agent's (no link followed, bounded).

Nothing here imports ``distributed``: the functions get the worker they run on from Dask
(``dask_worker``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from caesar_core import safefs
from caesar_core.errors import CaesarError
from caesar_core.executor.remote_worker import (
    CANCEL_FILE,
    OUT_BUNDLE,
    PROBLEM_FILE,
    STATE_FILE,
    home_of,
    read_state,
)
from caesar_core.executor.wire import (
    MAX_EVENTS_CHUNK,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_FILES_TOTAL,
    MAX_QUESTIONS,
    RecordView,
    result_ref,
)
from caesar_core.store.record import TaskRecord

SKIPPED = {"events.jsonl", "task.json", "report.json"}
"""Task-directory files that do not come back as files: the log comes by offset, the task
file and the report are rewritten by the client from what it validated."""
MAX_DEPTH = 4
POLL_S = 0.01
"""How often a poll waiting for news looks whether anything changed (``versions``)."""
LOOK_S = 0.1
"""How often it looks at everything whatever the versions say."""


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
        config.write(root, root / "home")
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
