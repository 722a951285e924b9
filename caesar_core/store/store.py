"""The task store: ``.caesar/tasks/<id>/`` for each task, and caesar's record of it.

Any number of processes (``caesar run``, ``caesar watch``, the MCP server, ``caesar cancel``)
read and write the store at once, with the file system as the only channel between them.
Creates are exclusive, updates are atomic replaces under a per-record lock, and a record that
reached a terminal status keeps it: a late writer cannot turn ``cancelled`` into ``failed``.

The reference implementation shares the layout: its records are read like caesar's, what they
lack filled in by :mod:`caesar_core.store.foreign`, and every record caesar writes also carries
the keys the reference needs to read it (``task_dir``, ``report_via``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import atomic_write, create_exclusive, dump_json
from caesar_core.layout import (
    APPROVAL_ANSWERS_DIR,
    CAESAR_DIR,
    RECORDS_DIR,
    STATE_DIR,
    record_files,
)
from caesar_core.protocol.parse import parse
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.store.foreign import REPORT_TIERS, complete
from caesar_core.store.ids import check_task_id
from caesar_core.store.record import NO_ENDING, RECORD_ADAPTER, TaskRecord, TaskStatus


class UnknownTaskError(CaesarError):
    exit_code = ExitCode.USAGE

    def __init__(self, task_id: str) -> None:
        super().__init__(f"no task {task_id} in this project", "list the tasks with `caesar ps`")


class DuplicateTaskError(CaesarError):
    exit_code = ExitCode.USAGE

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id} already exists", "let caesar choose the id")


class CorruptRecordError(CaesarError):
    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(
            f"the record {path} is unreadable: {detail}",
            "inspect or remove that file; the task directory itself is untouched",
        )


@dataclass(frozen=True)
class Listing:
    """Every readable record, plus the ones that could not be read and why."""

    records: list[TaskRecord]
    problems: list[tuple[Path, str]] = field(default_factory=list)


class TaskStore:
    """One project's tasks, rooted at ``<root>/.caesar``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / CAESAR_DIR
        self.tasks_dir = self.home / "tasks"
        self.records_dir = self.home / STATE_DIR / RECORDS_DIR
        self.approval_answers_dir = self.home / STATE_DIR / APPROVAL_ANSWERS_DIR
        """Where the answers to held tool calls are kept (see ``layout.approval_answers``)."""

    def paths(self, task_id: str) -> TaskPaths:
        return TaskPaths(self.tasks_dir / check_task_id(task_id))

    def record_path(self, task_id: str) -> Path:
        return self.records_dir / f"{check_task_id(task_id)}.json"

    def create(self, record: TaskRecord) -> TaskPaths:
        """Register a new task and make its directory; refuses an id that exists."""
        paths = self.paths(record.id)
        try:
            create_exclusive(self.record_path(record.id), self._encode(record))
        except FileExistsError:
            raise DuplicateTaskError(record.id) from None
        paths.root.mkdir(parents=True, exist_ok=True)
        return paths

    def get(self, task_id: str) -> TaskRecord:
        path = self.record_path(task_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise UnknownTaskError(task_id) from None
        return self.read(path, raw)

    def read(self, path: Path, raw: bytes) -> TaskRecord:
        """The record ``raw`` (the bytes of the record file ``path``) holds, as caesar reads
        it; ``CorruptRecordError`` when it is not one."""
        return complete(_decode(path, raw), root=self.root, tasks_dir=self.tasks_dir)

    def exists(self, task_id: str) -> bool:
        return self.record_path(task_id).exists()

    def update(
        self,
        task_id: str,
        change: Callable[[TaskRecord], TaskRecord],
        *,
        keep_terminal: bool = True,
    ) -> TaskRecord:
        """Apply ``change`` to the current record under the record's lock and save it.

        A record whose status is terminal keeps that status whatever ``change`` returns, so
        the first process to conclude a task (a cancel, a deadline) has the last word. Only
        ``keep_terminal=False`` lifts that: ``caesar cancel`` naming ``cancelled`` a reference
        task its own runner concluded (which that runner does whatever was written before).
        """
        path = self.record_path(task_id)
        with self._locked(task_id):
            current = self.get(task_id)
            updated = change(current)
            if keep_terminal and current.status.terminal and updated.status != current.status:
                updated = updated.model_copy(
                    update={"status": current.status, "ended_at": current.ended_at}
                )
            atomic_write(path, self._encode(updated))
            return updated

    def set(self, task_id: str, **fields: object) -> TaskRecord:
        """Update named fields (validated), under the same rules as :meth:`update`."""
        return self.update(task_id, lambda record: _with(record, fields))

    def conclude(
        self, task_id: str, status: TaskStatus, *, now: datetime | None = None, **fields: object
    ) -> tuple[TaskRecord, bool]:
        """Move a task to a terminal status once; returns the record and whether this call did.

        A second conclusion (the runner noticing its cancelled agent exit) changes nothing.
        Unless ``finished_seq`` is given, the record says caesar's ``finished`` event is not
        written yet (``NO_ENDING``): no ``finished`` line in the log is its ending until the
        concluding process names its own.
        """
        if not status.terminal:
            raise ValueError(f"{status} is not a terminal status")
        concluded = False

        def change(record: TaskRecord) -> TaskRecord:
            nonlocal concluded
            if record.status.terminal:
                return record
            concluded = True
            stamp = now or datetime.now(UTC)
            changes = {"status": status, "ended_at": stamp, "pid": None, **fields}
            if changes.get("finished_seq") is None:
                changes["finished_seq"] = NO_ENDING
            return _with(record, changes)

        return self.update(task_id, change), concluded

    def list(self) -> Listing:
        """All records, oldest first; unreadable ones reported, never fatal."""
        records: list[TaskRecord] = []
        problems: list[tuple[Path, str]] = []
        for path in record_files(self.records_dir):
            try:
                records.append(self.read(path, path.read_bytes()))
            except (CaesarError, OSError) as error:
                problems.append((path, str(error)))
        records.sort(key=lambda r: (r.created_at, r.id))
        return Listing(records, problems)

    def _encode(self, record: TaskRecord) -> bytes:
        """The record as written: caesar's fields, plus the reference's names for what it needs
        (``task_dir``, ``report_via`` required; ``applied_patch_digest``; docs/INTEROP.md)."""
        data = record.to_json_dict()
        data["task_dir"] = str(self.paths(record.id).root)
        tier = record.report_tier
        data["report_via"] = tier if tier in REPORT_TIERS else "file"
        if record.applied_digest:
            data["applied_patch_digest"] = record.applied_digest
        return dump_json(data)

    @contextlib.contextmanager
    def _locked(self, task_id: str) -> Iterator[None]:
        lock_path = self.records_dir / f".{check_task_id(task_id)}.lock"
        self.records_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _with(record: TaskRecord, fields: dict[str, object]) -> TaskRecord:
    """A copy of ``record`` with ``fields`` changed, validated like a record read from disk."""
    data = record.model_dump()
    data.update(fields)
    return RECORD_ADAPTER.validate_python(data)


def _decode(path: Path, raw: bytes) -> TaskRecord:
    try:
        return parse(RECORD_ADAPTER, raw)
    except ValueError as error:
        detail = (
            "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
            if isinstance(error, ValidationError)
            else f"not JSON ({error})"
        )
        raise CorruptRecordError(path, detail) from None


__all__ = [
    "CorruptRecordError",
    "DuplicateTaskError",
    "Listing",
    "TaskStore",
    "UnknownTaskError",
]
