"""The shepherd of a remote task (``caesar remote shepherd ID``): the one process here that
talks to the cluster for it, from submission to the landing of its result.

It holds the task's lock (``executor.dask.shepherd_lock``) and names itself the task's
orchestrator in its record. It submits the job once (``key`` in the record; Dask keeps it with
``fire_and_forget``, so the task runs on whether or not anyone here follows it), finds the
worker that claimed it, then polls that worker (``worker_calls.poll``, a long poll by byte
offset of the log): new log lines appended here, questions mirrored, the record's facts
mirrored, answers written here forwarded, a cancel here forwarded. Once the task ended there,
the result is fetched, landed once (``landing.land``) and the worker's copy forgotten.

Faults: a worker gone from the scheduler, or unreachable for ``PARTITION_S``, or one that no
longer has the task, ends it ``failed`` with a report saying so, keeping what came back; a
scheduler that cannot be reached, likewise. This module imports ``distributed``.
"""

from __future__ import annotations

import importlib
import io
import os
import socket
import tarfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from caesar_core.config import load_config
from caesar_core.config.paths import layer_path
from caesar_core.errors import CaesarError
from caesar_core.executor import bundle, landing, remote_worker, worker_calls
from caesar_core.executor.remote_worker import distributed
from caesar_core.executor.shepherd_state import job_path, remote_dir, shepherd_lock
from caesar_core.executor.wire import (
    MAX_COPIES_BYTES,
    ConfigLayers,
    Job,
    Poll,
    Result,
    Submission,
    base_ref_name,
    start_ref,
)
from caesar_core.git import find_repository
from caesar_core.store.mailbox import read_answer
from caesar_core.store.record import TaskStatus
from caesar_core.store.store import TaskStore

CONNECT_TIMEOUT_S = 10.0
PARTITION_S = 60.0
"""How long a worker may be unreachable while the scheduler still lists it."""
WAIT_S = 1.0
"""How long one poll waits on the worker for something new."""
CLAIM_WAIT_S = 0.2

T = TypeVar("T")


def resources() -> dict[str, float]:
    """What one task takes of a worker: one of the slots it declared."""
    return {"agent_slots": 1}


def task_key(task_id: str) -> str:
    return f"caesar-{task_id}"


def shepherd(root: Path, task_id: str) -> int:
    """Follow the task to its landing; 0 when another shepherd already follows it."""
    store = TaskStore(root)
    with shepherd_lock(store, task_id) as held:
        if not held:
            return 0
        record = store.get(task_id)
        if record.executor is None or record.executor.settled:
            return 0
        store.set(task_id, orchestrator_pid=os.getpid(), orchestrator_host=socket.gethostname())
        try:
            follower = Shepherd(store, task_id)
        except (OSError, ValueError) as error:
            why = f"its job ({job_path(store, task_id)}) cannot be read: {error}"
            landing.conclude_lost(store, task_id, why, title="No job")
            return 1
        follower.run()
    return 0


def in_background(work: Callable[[], T]) -> Future[T]:
    """``work`` started on a thread of its own; its result (or its exception) when done."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:  # handed to whoever asks for the result
            future.set_exception(error)

    threading.Thread(target=run, name="caesar-background", daemon=True).start()
    return future


def connect(address: str) -> Any:
    """A client of the scheduler at ``address``, or :class:`CaesarError` saying why not."""
    dist = distributed()
    importlib.import_module("dask").config.set(
        {"distributed.comm.timeouts.connect": f"{CONNECT_TIMEOUT_S}s"}
    )
    try:
        return dist.Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise CaesarError(
            f"the Dask scheduler at {address} could not be reached: {error}",
            "start it (`dask scheduler`), check the address, or run here with --on local",
        ) from None


class Shepherd:
    def __init__(self, store: TaskStore, task_id: str) -> None:
        self.store = store
        self.task_id = task_id
        self.job = Job.model_validate_json(job_path(store, task_id).read_bytes())
        self.paths = store.paths(task_id)

    def run(self) -> None:
        record = self.store.get(self.task_id)
        unsent = record.executor is not None and record.executor.key is None
        # The bundle is made (git, in other processes) while ``distributed`` is imported and
        # the scheduler connected: the two longest steps before a submission, side by side.
        submission = in_background(self._submission) if unsent else None
        try:
            client = connect(self.job.address)
        except CaesarError as error:
            if submission is not None:
                submission.exception()  # its refs deleted before the task is concluded
            landing.conclude_lost(self.store, self.task_id, error.reason, title="No scheduler")
            return
        try:
            self._follow(client, submission)
        finally:
            client.close()

    # -- submission --------------------------------------------------------------------------

    def _submit(self, client: Any, submission: Submission) -> None:
        future = client.submit(
            remote_worker.run_task,
            submission.model_dump(),
            key=task_key(self.task_id),
            resources=resources(),
            pure=False,
        )
        distributed().fire_and_forget(future)
        self._set_executor(key=task_key(self.task_id))

    def _submission(self) -> Submission:
        job = self.job
        record = self.store.get(self.task_id)
        repo = find_repository(Path(record.source_workspace or self.store.root))
        if repo is None:
            raise bundle.BundleError(f"{record.source_workspace} is not in a repository", "")
        spool = remote_dir(self.store) / f"{self.task_id}.out.bundle"
        refs = {base_ref_name(self.task_id): job.base}
        if job.followup is None:
            refs[start_ref(self.task_id)] = job.start
        bundle.set_refs(repo, refs)
        sent = [start_ref(self.task_id), base_ref_name(self.task_id)]
        try:
            bundle.create(repo, sent, spool)
            data = spool.read_bytes()
        finally:
            spool.unlink(missing_ok=True)
            bundle.delete_refs(repo, sent)
        texts: dict[str, str | None] = {}
        for layer in ("global", "project", "local"):
            path = layer_path(self.store.root, layer)
            texts[f"{layer}_text"] = path.read_text(encoding="utf-8") if path.is_file() else None
        return Submission(
            job=job,
            bundle=data,
            config=ConfigLayers.model_validate(texts),
            copies=self._copies(repo),
        )

    def _copies(self, repo: Path) -> bytes:
        """The ``[worktree] copy`` paths as a tar archive (links kept as links)."""
        copy = load_config(self.store.root).config.worktree.copy
        if not copy:
            return b""
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:") as archive:
            for rel in copy:
                if (repo / rel).exists() or (repo / rel).is_symlink():
                    archive.add(repo / rel, arcname=rel, recursive=True)
        data = out.getvalue()
        if len(data) > MAX_COPIES_BYTES:
            raise bundle.BundleError(
                f"the [worktree] copy files take {len(data):,} bytes, more than "
                f"{MAX_COPIES_BYTES:,}",
                "copy less, or prepare them on the worker with [worktree] setup",
            )
        return data

    # -- following ---------------------------------------------------------------------------

    def _follow(self, client: Any, submission: Future[Submission] | None) -> None:
        record = self.store.get(self.task_id)
        assert record.executor is not None
        if submission is not None:
            try:
                self._submit(client, submission.result())
            except (CaesarError, OSError) as error:
                why = error.reason if isinstance(error, CaesarError) else str(error)
                landing.conclude_lost(
                    self.store, self.task_id, f"it could not be submitted: {why}", title="Not sent"
                )
                return
        worker = record.executor.worker
        offset = landing.log_size(self.store, self.task_id)
        known_state, known_questions = "", 0
        delivered: set[str] = set()
        cancel_sent = False
        unreachable_since: float | None = None
        while True:
            local = self.store.get(self.task_id)
            want_cancel = local.status is TaskStatus.CANCELLED and not cancel_sent
            if worker is None:
                worker = self._claimed(client)
                if worker is None:
                    if self._queued_end(client, want_cancel):
                        return
                    continue
                self._set_executor(worker=worker)
            if worker not in client.scheduler_info()["workers"]:
                landing.conclude_lost(
                    self.store,
                    self.task_id,
                    f"its worker {worker} died or left the cluster mid-task",
                    title="Worker lost",
                )
                return
            answers = self._answers(delivered, known_questions)
            try:
                seen = self._poll(client, worker, offset, known_state, known_questions)(
                    cancel=want_cancel, answers=answers
                )
            except Exception as error:  # the network, the worker, its answer: all the same
                now = time.monotonic()
                unreachable_since = unreachable_since or now
                if now - unreachable_since > PARTITION_S:
                    landing.conclude_lost(
                        self.store,
                        self.task_id,
                        f"its worker {worker} was unreachable for {PARTITION_S:.0f}s: {error}",
                        title="Worker unreachable",
                    )
                    return
                time.sleep(0.5)
                continue
            unreachable_since = None
            cancel_sent = cancel_sent or want_cancel
            if seen.log_size >= offset and seen.events:
                landing.append_events(self.store, self.task_id, seen.events)
                offset += len(seen.events)
            landing.mirror_questions(self.store, self.task_id, seen.questions)
            delivered |= set(seen.answered)
            if seen.record is not None:
                self._mirror(seen)
            known_state, known_questions = seen.state, len(seen.questions)
            if seen.state == "unknown":
                landing.conclude_lost(
                    self.store, self.task_id, seen.reason or "the worker lost it", title="Lost"
                )
                return
            # The worker reads the state before the log, and writes nothing to the log once
            # the task ended: the lines up to ``log_size`` are all there will be.
            drained = seen.log_size <= offset
            if seen.state in ("done", "refused") and drained:
                self._land(client, worker, seen)
                return

    def _poll(
        self, client: Any, worker: str, offset: int, known_state: str, known_questions: int
    ) -> Callable[..., Poll]:
        def call(**forward: Any) -> Poll:
            got = client.run(
                worker_calls.poll,
                self.task_id,
                offset,
                known_state=known_state,
                known_questions=known_questions,
                wait_s=WAIT_S,
                workers=[worker],
                **forward,
            )[worker]
            return Poll.model_validate(got)

        return call

    def _claimed(self, client: Any) -> str | None:
        try:
            value = (
                distributed()
                .Variable(f"caesar-worker-{self.task_id}", client=client)
                .get(timeout=CLAIM_WAIT_S)
            )
        except TimeoutError:
            return None
        return value if isinstance(value, str) else None

    def _queued_end(self, client: Any, want_cancel: bool) -> bool:
        """The task waits for a slot: cancelled here, it is taken off the scheduler; one the
        scheduler no longer knows ended without starting. True when it is concluded."""
        key = task_key(self.task_id)
        future = distributed().Future(key, client=client)
        if want_cancel:
            client.cancel([future], force=True)
            if self._claimed(client) is None:
                landing.conclude_lost(
                    self.store, self.task_id, "cancelled before it started", title="Cancelled"
                )
                return True
            return False
        if future.status in ("error", "cancelled", "lost"):
            why = f"the scheduler reports it {future.status} before any worker started it"
            landing.conclude_lost(self.store, self.task_id, why, title="Not started")
            return True
        return False

    def _answers(self, delivered: set[str], known: int) -> list[tuple[str, str, str]]:
        """Answers written here to questions not yet answered on the worker."""
        from caesar_core import safefs

        if not known:
            return []
        out: list[tuple[str, str, str]] = []
        try:
            names = safefs.entries(self.paths.root, "answers")
        except OSError:
            return out
        for name, regular in names:
            question_id = name[:-5] if name.endswith(".json") else ""
            if not regular or not question_id or question_id in delivered:
                continue
            try:
                reply = read_answer(self.paths, question_id)
            except (CaesarError, OSError, ValueError):
                continue
            if reply is not None:
                out.append((question_id, reply.answer, reply.answered_by or "user"))
        return out

    def _mirror(self, seen: Poll) -> None:
        """The worker's record while it runs: running, and the facts decided there."""
        view = seen.record
        assert view is not None
        local = self.store.get(self.task_id)
        update: dict[str, object] = {}
        for name in ("agent", "role", "mode", "deadline_ms", "report_tier", "model"):
            value = getattr(view, name)
            if value is not None and getattr(local, name) != value:
                update[name] = value
        if local.status is TaskStatus.PENDING and view.status is not TaskStatus.PENDING:
            update["status"] = TaskStatus.RUNNING
            update["started_at"] = view.started_at
        if update:
            self.store.set(self.task_id, **update)

    def _land(self, client: Any, worker: str, seen: Poll) -> None:
        got = client.run(worker_calls.result, self.task_id, workers=[worker])[worker]
        result = Result.model_validate(got)
        if seen.state == "refused" and result.record is None:
            why = f"its worker refused it: {seen.reason}"
            landing.conclude_lost(self.store, self.task_id, why, title="Refused")
        else:
            landing.land(self.store, self.task_id, self.job, result)
        client.run(worker_calls.forget, self.task_id, workers=[worker])
        distributed().Variable(f"caesar-worker-{self.task_id}", client=client).delete()
        job_path(self.store, self.task_id).unlink(missing_ok=True)

    def _set_executor(self, **fields: object) -> None:
        def change(record: Any) -> Any:
            info = record.executor.model_copy(update=fields)
            return record.model_copy(update={"executor": info})

        self.store.update(self.task_id, change)
