"""Every task's record as a listing shows it (``caesar ps``), read without building the model
of a record that was already read once.

Validating a record means importing pydantic and building the record's model: several times
what the listing itself costs. ``state/listing.json`` keeps, for each record file, the JSON of
the record as caesar read it last time (``TaskRecord.to_json_dict()``, the reference's records
completed) under the digest of the file's bytes. A record is read whole again (and the cache
rewritten) whenever its bytes are not the ones the cache names: the cache is never believed
over the record, so a record changed since, however fast, is never shown as it was.

The cache is caesar's to write (``state/`` is out of every agent's reach), and still read as
untrusted: anything in it that is not what this module writes (another format, a field of the
wrong type, nesting past the bound) is ignored, and those records are read whole. It names the
files of the code that made it (their size and mtime): another version of caesar or of pydantic
reads every record again. Only caesar's own records are kept: a record of the reference
implementation is completed from its task directory, which can change on its own.

Stdlib only until a record must be read whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from caesar_core.errors import CaesarError
from caesar_core.jsondepth import loads
from caesar_core.layout import CAESAR_DIR, LISTING_CACHE, RECORDS_DIR, STATE_DIR, record_files
from caesar_core.store.status import ChecksState, TaskStatus, runs_on

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter without the builtin module: hashlib has it
    from hashlib import blake2b

CACHE_FORMAT = "caesar.listing/v1"
CACHE_LIMIT = 64 << 20
"""A cache larger than this is not read (every record is then read whole)."""
MAKERS = (
    "caesar_core.store.listing",
    "caesar_core.store.record",
    "caesar_core.store.status",
    "caesar_core.store.foreign",
    "caesar_core.protocol._base",
    "caesar_core.protocol.report",
    "caesar_core.protocol.task",
    "pydantic.version",
    "pydantic_core",
)
"""The modules whose code turns a record's bytes into its JSON: the cache is valid while their
files are the ones it names."""


class ListedChecks:
    """The last run of a task's checks, as far as its mark goes (``status.checks_mark``)."""

    __slots__ = ("pid", "state")

    def __init__(self, state: ChecksState, pid: int | None) -> None:
        self.state = state
        self.pid = pid


class ListedExecutor:
    """Where a task runs when not here (``record.ExecutorInfo``)."""

    __slots__ = ("address", "settled", "worker")

    def __init__(self, address: str, worker: str | None, settled: bool) -> None:
        self.address = address
        self.worker = worker
        self.settled = settled

    @property
    def label(self) -> str:
        return runs_on(self.address, self.worker)


class ListedTask:
    """A task's record as listings show it: its JSON as caesar's record model writes it
    (``data``), and the fields a listing reads, typed; read from ``data`` by
    :meth:`from_json`. Plain classes, not dataclasses, here: importing ``dataclasses`` (and
    the ``inspect`` it needs) would cost ``caesar ps`` more than reading twenty records."""

    __slots__ = (
        "agent",
        "chain",
        "checks",
        "continued_by",
        "continues",
        "created_at",
        "data",
        "executor",
        "id",
        "isolation",
        "mode",
        "objective",
        "orchestrator_host",
        "orchestrator_pid",
        "parent_id",
        "report_status",
        "role",
        "status",
        "turn",
    )
    data: dict[str, Any]
    id: str
    status: TaskStatus
    created_at: datetime
    agent: str
    role: str | None
    objective: str
    isolation: str
    mode: str
    report_status: str | None
    parent_id: str | None
    chain: str | None
    continues: str | None
    continued_by: str | None
    turn: int
    checks: ListedChecks | None
    executor: ListedExecutor | None
    orchestrator_pid: int | None
    orchestrator_host: str | None

    @classmethod
    def from_json(cls, data: object) -> ListedTask:
        """The task ``data`` describes; ``ValueError`` naming the field that is not what a
        record's JSON holds."""
        if not isinstance(data, dict):
            raise ValueError("not an object")
        created = datetime.fromisoformat(_text(data, "created_at"))
        if created.tzinfo is None:
            raise ValueError("created_at: no time zone")
        task = cls()
        task.data = data
        task.id = _text(data, "id")
        task.status = TaskStatus(_text(data, "status"))
        task.created_at = created
        task.agent = _text(data, "agent")
        task.role = _maybe_text(data, "role")
        task.objective = _text(data, "objective")
        task.isolation = _text(data, "isolation")
        task.mode = _text(data, "mode")
        task.report_status = _maybe_text(data, "report_status")
        task.parent_id = _maybe_text(data, "parent_id")
        task.chain = _maybe_text(data, "chain")
        task.continues = _maybe_text(data, "continues")
        task.continued_by = _maybe_text(data, "continued_by")
        task.turn = _integer(data, "turn")
        task.checks = _checks(data.get("checks"))
        task.executor = _executor(data.get("executor"))
        task.orchestrator_pid = _maybe_integer(data, "orchestrator_pid")
        task.orchestrator_host = _maybe_text(data, "orchestrator_host")
        return task

    @property
    def remote(self) -> bool:
        """Whether the task runs on another machine's caesar (``TaskRecord.remote``)."""
        return self.executor is not None

    @property
    def chained(self) -> bool:
        """Whether the task is one turn of several (``TaskRecord.chained``)."""
        return self.continues is not None or self.continued_by is not None

    def age(self, now: datetime) -> float:
        """Seconds since creation."""
        return (now - self.created_at).total_seconds()


class TaskListing:
    """Every readable record, oldest first, plus the files that could not be read and why."""

    __slots__ = ("problems", "tasks")

    def __init__(
        self, tasks: list[ListedTask], problems: list[tuple[Path, str]] | None = None
    ) -> None:
        self.tasks = tasks
        self.problems = [] if problems is None else problems


def list_tasks(root: Path) -> TaskListing:
    """Every task of the project at ``root``: as :meth:`TaskStore.list` reads them (the same
    records, the same problems), each record whose bytes the cache knows taken from it."""
    state = root / CAESAR_DIR / STATE_DIR
    cache_path = state / LISTING_CACHE
    known = _read_cache(cache_path)
    tasks: list[ListedTask] = []
    problems: list[tuple[Path, str]] = []
    kept: dict[str, tuple[str, dict[str, Any]]] = {}
    unknown: list[tuple[Path, bytes, str]] = []
    for path in record_files(state / RECORDS_DIR):
        try:
            raw = path.read_bytes()
        except OSError as error:
            problems.append((path, str(error)))
            continue
        digest = blake2b(raw, digest_size=16).hexdigest()
        entry = known.get(path.name)
        if entry is not None and entry[0] == digest:
            try:
                tasks.append(ListedTask.from_json(entry[1]))
            except ValueError:
                pass
            else:
                kept[path.name] = entry
                continue
        unknown.append((path, raw, digest))
    if unknown:
        _read_whole(root, unknown, tasks, problems, kept)
        if _digests(kept) != _digests(known):
            _write_cache(cache_path, kept)
    tasks.sort(key=lambda t: (t.created_at, t.id))
    problems.sort(key=lambda problem: problem[0])
    return TaskListing(tasks, problems)


def _read_whole(
    root: Path,
    files: Sequence[tuple[Path, bytes, str]],
    tasks: list[ListedTask],
    problems: list[tuple[Path, str]],
    kept: dict[str, tuple[str, dict[str, Any]]],
) -> None:
    """The records the cache does not know, validated by the record's model."""
    from caesar_core.store.foreign import caesars_own
    from caesar_core.store.store import TaskStore

    store = TaskStore(root)
    for path, raw, digest in files:
        try:
            record = store.read(path, raw)
        except (CaesarError, OSError) as error:
            problems.append((path, str(error)))
            continue
        data = record.to_json_dict()
        try:
            tasks.append(ListedTask.from_json(data))
        except ValueError as error:  # a field this module does not read as the model writes it
            problems.append((path, f"the record is not listed: {error}"))
            continue
        if caesars_own(record):
            kept[path.name] = (digest, data)


def _digests(entries: Mapping[str, tuple[str, dict[str, Any]]]) -> dict[str, str]:
    return {name: digest for name, (digest, _) in entries.items()}


def _read_cache(path: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """The cache's entries (record file name -> digest, JSON), none when it is absent, too
    large, not this module's format, or made by other code than this process runs."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(CACHE_LIMIT + 1)
        if len(raw) > CACHE_LIMIT:
            return {}
        document = loads(raw)
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
        return {}
    if not _made_by_this_code(document.get("made_by")):
        return {}
    records = document.get("records")
    if not isinstance(records, dict):
        return {}
    entries: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, entry in records.items():
        if isinstance(entry, list) and len(entry) == 2:
            digest, data = entry
            if isinstance(digest, str) and isinstance(data, dict):
                entries[name] = (digest, data)
    return entries


def _write_cache(path: Path, entries: Mapping[str, tuple[str, dict[str, Any]]]) -> None:
    """The cache replaced, atomically; not at all when it cannot be (a read-only project, a
    full disk): the next listing reads the records whole again."""
    from caesar_core.fs import atomic_write

    made_by = _makers()
    if made_by is None:
        return
    document = {
        "format": CACHE_FORMAT,
        "made_by": made_by,
        "records": {name: [digest, data] for name, (digest, data) in entries.items()},
    }
    with contextlib.suppress(OSError):
        atomic_write(path, json.dumps(document).encode(), durable=False)


def _makers() -> list[list[object]] | None:
    """The file, size and mtime of each module of :data:`MAKERS`, as loaded in this process;
    None when one is not loaded or its file is not there to be named."""
    found: list[list[object]] = []
    for name in MAKERS:
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if not isinstance(where, str):
            return None
        try:
            stat = os.stat(where)
        except OSError:
            return None
        found.append([where, stat.st_size, stat.st_mtime_ns])
    return found


def _made_by_this_code(made_by: object) -> bool:
    """Whether the cache was made by the code this process runs: this very module first, and
    every file it names unchanged."""
    if not isinstance(made_by, list) or len(made_by) != len(MAKERS) or not made_by:
        return False
    if not isinstance(made_by[0], list) or made_by[0][:1] != [__file__]:
        return False
    for entry in made_by:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            return False
        try:
            stat = os.stat(entry[0])
        except OSError:
            return False
        if [stat.st_size, stat.st_mtime_ns] != entry[1:]:
            return False
    return True


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key}: not a string")
    return value


def _maybe_text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key}: not a string")
    return value


def _maybe_integer(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ValueError(f"{key}: not an integer")
    return value


def _integer(data: dict[str, Any], key: str) -> int:
    value = _maybe_integer(data, key)
    if value is None:
        raise ValueError(f"{key}: missing")
    return value


def _checks(value: object) -> ListedChecks | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("checks: not an object")
    return ListedChecks(ChecksState(_text(value, "state")), _maybe_integer(value, "pid"))


def _executor(value: object) -> ListedExecutor | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("executor: not an object")
    settled = value.get("settled", False)
    if not isinstance(settled, bool):
        raise ValueError("executor.settled: not a boolean")
    return ListedExecutor(_text(value, "address"), _maybe_text(value, "worker"), settled)
