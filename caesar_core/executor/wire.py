"""What crosses the wire between a client and a worker, as pydantic models with bounds.

A worker is another machine running an agent: what it sends back is as untrusted as what an
agent writes. Every field is typed and bounded here; file names are checked again where they
are written (through :mod:`caesar_core.safefs`), the git objects by ``git fetch`` with fsck.
Python objects travel (Dask pickles the arguments and results of the functions it runs); these
models validate them on arrival on either side.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
)

from caesar_core.protocol.report import ReportStatus
from caesar_core.protocol.task import FollowUpComment, Mode
from caesar_core.store.ids import TASK_ID_PATTERN
from caesar_core.store.record import Checks, ReportSource, TaskStatus, VerifiedBy

WIRE_V1: Literal["caesar.remote/v1"] = "caesar.remote/v1"

MAX_BUNDLE_BYTES = 1 << 30
"""The largest git bundle either side accepts."""
MAX_EVENTS_CHUNK = 1 << 20
"""Bytes of ``events.jsonl`` one poll carries at most (whole lines)."""
MAX_FILE_BYTES = 16 << 20
"""The largest task-directory file that comes back."""
MAX_FILES = 2000
"""Task-directory files that come back at most."""
MAX_FILES_TOTAL = 128 << 20
"""Their total size at most."""
MAX_COPIES_BYTES = 64 << 20
"""The ``[worktree] copy`` files sent to a worker, as a tar archive, at most."""
MAX_TEXT = 8000
"""A free text from a worker (a reason, a summary) at most."""
MAX_QUESTIONS = 200

_STRICT = ConfigDict(extra="forbid", frozen=True)
_TOLERANT = ConfigDict(extra="ignore", frozen=True)

TaskId = Annotated[str, StringConstraints(pattern=f"^{TASK_ID_PATTERN.pattern}$")]
Oid = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]
MailboxId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Short = Annotated[str, StringConstraints(max_length=256)]


def result_ref(task_id: str) -> str:
    """The ref of a task's work as it came back: ``refs/caesar/<task id>``."""
    return f"refs/caesar/{task_id}"


def start_ref(task_id: str) -> str:
    """The ref of the commit a worker starts the task from, in the bundle sent to it."""
    return f"refs/caesar/{task_id}-start"


def base_ref_name(task_id: str) -> str:
    """The ref of the task's ``base_ref``, in the bundle sent to the worker."""
    return f"refs/caesar/{task_id}-base"


def _relative(value: str) -> str:
    """A path below a directory: relative, no ``..``, no empty or dot component."""
    path = PurePosixPath(value)
    if value and (path.is_absolute() or any(p in ("", ".", "..") for p in value.split("/"))):
        raise ValueError(f"{value[:80]!r} is not a plain relative path")
    if "\x00" in value or len(value) > 1024:
        raise ValueError("a path with a NUL byte or longer than 1024 characters")
    return value


RelPath = Annotated[str, AfterValidator(_relative)]


class RequestWire(BaseModel):
    """The task as asked (``runner.delegation.Request``), for the worker's own ``decide``."""

    model_config = _STRICT

    objective: Annotated[str, StringConstraints(min_length=1, max_length=200_000)]
    agent: Short | None = None
    role: Short | None = None
    mode: Mode | None = None
    network: Literal["auto", "on", "off"] | None = None
    timeout_ms: Annotated[int, Field(ge=1)] | None = None
    model: Short | None = None
    context: Annotated[str, StringConstraints(max_length=200_000)] = ""
    constraints: list[Text] = Field(default_factory=list, max_length=200)
    acceptance_criteria: list[Text] = Field(default_factory=list, max_length=200)
    channel: bool = False
    extra_args: list[Text] = Field(default_factory=list, max_length=200)


class ConfigLayers(BaseModel):
    """The client's configuration files, as text: what applies to the task on the worker."""

    model_config = _STRICT

    global_text: Annotated[str, StringConstraints(max_length=1 << 20)] | None = None
    project_text: Annotated[str, StringConstraints(max_length=1 << 20)] | None = None
    local_text: Annotated[str, StringConstraints(max_length=1 << 20)] | None = None

    def write(self, project: Path, config_home: Path) -> None:
        """The layers as the files ``config.load_config(project, config_home=config_home)``
        reads: the project's two under ``project/.caesar``, the global one under
        ``config_home/caesar``; a layer the client has not, no file."""
        for text, path in (
            (self.project_text, project / ".caesar" / "config.toml"),
            (self.local_text, project / ".caesar" / "config.local.toml"),
            (self.global_text, config_home / "caesar" / "config.toml"),
        ):
            if text is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")


class FollowUpWire(BaseModel):
    """A follow-up turn: the previous turn's record as the client has it, and its review."""

    model_config = _STRICT

    previous: dict[str, Any]
    first_turn: TaskId
    first_objective: Annotated[str, StringConstraints(max_length=200_000)]
    message: Annotated[str, StringConstraints(max_length=200_000)] = ""
    comments: list[FollowUpComment] = Field(default_factory=list, max_length=1000)


class Job(BaseModel):
    """What ``caesar run --on`` (or ``continue``) asks the shepherd to submit, kept in the
    state directory until it is submitted (``state/remote/<id>.json``)."""

    model_config = _STRICT

    protocol: Literal["caesar.remote/v1"] = WIRE_V1
    task_id: TaskId
    address: Short
    request: RequestWire
    workspace: RelPath = ""
    """The directory asked from, relative to the repository's root."""
    base: Oid
    """The task's frozen ``base_ref``."""
    start: Oid
    """The commit the worker starts from: ``base``, or a follow-up's previous work."""
    followup: FollowUpWire | None = None


class Submission(BaseModel):
    """What a worker receives: the job, the commit to start from as a bundle, the config."""

    model_config = _STRICT

    job: Job
    bundle: Annotated[bytes, Field(max_length=MAX_BUNDLE_BYTES)]
    """``start_ref`` and ``base_ref_name`` of the task, with their history."""
    config: ConfigLayers = Field(default_factory=ConfigLayers)
    copies: Annotated[bytes, Field(max_length=MAX_COPIES_BYTES)] = b""
    """The ``[worktree] copy`` paths, as a tar archive (empty: none)."""


class RecordView(BaseModel):
    """What the client takes from the worker's record of the task: facts of its run, never
    a process id or a path of that machine."""

    model_config = _TOLERANT

    status: TaskStatus
    started_at: AwareDatetime | None = None
    ended_at: AwareDatetime | None = None
    agent: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")]
    role: Short | None = None
    mode: Mode | None = None
    exit_code: int | None = None
    report_source: ReportSource | None = None
    changes_verified_by: VerifiedBy | None = None
    report_status: ReportStatus | None = None
    finished_seq: int | None = None
    ended_reason: Text | None = None
    report_tier: Short | None = None
    deadline_ms: Annotated[int, Field(ge=0)] | None = None
    checks: Checks | None = None
    session_id: Short | None = None
    resumed_session: Short | None = None
    model: Short | None = None
    branch: Short | None = None
    excluded_paths: list[RelPath] = Field(default_factory=list, max_length=1000)

    def facts(self) -> dict[str, object]:
        """The fields to set on the local record (status, paths and the rest left out)."""
        checks = self.checks.model_copy(update={"pid": None}) if self.checks else None
        fields = self.model_dump(
            exclude={"status", "branch", "excluded_paths", "checks", "started_at", "ended_at"}
        )
        return {**fields, "checks": checks}


class Poll(BaseModel):
    """A worker's answer to a poll: the log's new whole lines, the record, the mailbox."""

    model_config = _TOLERANT

    state: Literal["preparing", "running", "done", "refused", "unknown"]
    reason: Text = ""
    events: Annotated[bytes, Field(max_length=MAX_EVENTS_CHUNK)] = b""
    log_size: Annotated[int, Field(ge=0)] = 0
    record: RecordView | None = None
    questions: dict[MailboxId, Annotated[bytes, Field(max_length=MAX_FILE_BYTES)]] = Field(
        default_factory=dict, max_length=MAX_QUESTIONS
    )
    answered: list[MailboxId] = Field(default_factory=list, max_length=MAX_QUESTIONS)


class Result(BaseModel):
    """What comes back once the task ended on its worker."""

    model_config = _TOLERANT

    ref: Annotated[str, StringConstraints(pattern=r"^refs/caesar/t_[0-9a-f]{32}$")] | None = None
    bundle: Annotated[bytes, Field(max_length=MAX_BUNDLE_BYTES)] | None = None
    files: dict[RelPath, Annotated[bytes, Field(max_length=MAX_FILE_BYTES)]] = Field(
        default_factory=dict, max_length=MAX_FILES
    )
    report: Annotated[bytes, Field(max_length=MAX_FILE_BYTES)] | None = None
    """caesar's report of the task, as the worker's caesar concluded it."""
    task: Annotated[bytes, Field(max_length=MAX_FILE_BYTES)] | None = None
    """``task.json`` as the worker wrote it (its paths are that machine's)."""
    record: RecordView | None = None
    problem: Text = ""
    """Why part of the result is missing (the work could not be committed...)."""

    def digest(self) -> str:
        """What identifies this result: the same result transferred twice has the same."""
        h = hashlib.sha256()
        for part in (self.ref or "", self.bundle or b"", self.report or b"", self.task or b""):
            h.update(hashlib.sha256(part if isinstance(part, bytes) else part.encode()).digest())
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + hashlib.sha256(self.files[name]).digest())
        if self.record is not None:
            h.update(self.record.model_dump_json().encode())
        return h.hexdigest()

    def total_file_bytes(self) -> int:
        return sum(len(data) for data in self.files.values())
