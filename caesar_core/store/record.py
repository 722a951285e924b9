"""The orchestrator's own record of a task, kept outside the agent's reach.

``task.json`` is the contract handed to the agent; the record is what caesar knows about the
task's life (process, isolation, outcome, apply). It lives in ``.caesar/state/tasks/<id>.json``,
not in the task directory, because the agent can write to its task directory. The values its
fields take (``TaskStatus``, ``ChecksState``...) are :mod:`caesar_core.store.status`'s, named here
too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.report import ReportStatus
from caesar_core.protocol.task import Isolation, Mode
from caesar_core.review.hunks import Hunk, Taken
from caesar_core.store.status import (
    ChecksMark,
    ChecksState,
    ReportSource,
    TaskStatus,
    VerifiedBy,
    checks_mark,
    runs_on,
)

RECORD_V1: Literal["caesar.record/v1"] = "caesar.record/v1"
NO_ENDING = -1
"""``finished_seq`` of a task concluded before (or without) caesar writing its ``finished``."""


class CheckResult(ProtocolModel):
    """One check caesar ran itself (never the agent's claim): its command and how it ended."""

    command: str
    exit_code: int | None = None
    """None when it did not end by itself (stopped at its timeout, cancelled, never started)."""
    duration_ms: Annotated[int, Field(ge=0)] = 0
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None
    """Why it could not be run at all (its directory is gone...), in words."""
    output_tail: str = ""
    """The end of its stdout and stderr (what a hostile test may print: shown escaped)."""
    log: str | None = None
    """Its whole output, relative to the task directory (``checks/1.log``)."""

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not (self.timed_out or self.cancelled or self.error)

    @property
    def outcome(self) -> str:
        """How it ended, in a few words: ``exit 1``, ``timed out``, ``cancelled``."""
        if self.error:
            return f"not run: {self.error}"
        if self.timed_out:
            return "timed out"
        if self.cancelled:
            return "cancelled"
        return "no exit code" if self.exit_code is None else f"exit {self.exit_code}"


class Checks(ProtocolModel):
    """One run of the project's checks on a task: at its end, or on demand (``caesar check``)."""

    state: ChecksState
    started_at: AwareDatetime
    ended_at: AwareDatetime | None = None
    results: list[CheckResult] = Field(default_factory=list)
    hunks: list[str] = Field(default_factory=list)
    """The selection they ran on (``caesar check --hunk``); empty: the whole task."""
    pid: int | None = None
    """The caesar process running them, while ``running``: a dead one means interrupted."""

    @property
    def failed(self) -> list[CheckResult]:
        """The checks that ran and did not pass (a cancelled one did not fail)."""
        return [r for r in self.results if not r.passed and not r.cancelled]


MAX_KEPT_LINES = 400
"""How many lines of a rejected hunk the record keeps for the follow-up brief."""
MAX_KEPT_LINE = 500
"""How many characters of each of them."""


class AppliedHunk(ProtocolModel):
    """A hunk applied to the user's tree (``caesar apply --hunk``), or changed lines of it."""

    id: str
    digest: str
    """``Hunk.digest``: the hunk's whole content, so a hunk that merely shares the id is not it."""
    path: str
    lines: list[int] | None = None
    """The changed lines taken (1-based among its ``-``/``+`` lines); absent: all of them."""
    applied_at: AwareDatetime


class RejectedHunk(ProtocolModel):
    """A hunk reverted out of the task's worktree by a reviewer, with why."""

    id: str
    digest: str
    path: str
    header: str = ""
    reason: str = ""
    lines: list[str] = Field(default_factory=list)
    """The hunk as the diff showed it (``-old``, ``+new``, `` context``), clipped to
    ``MAX_KEPT_LINES`` of ``MAX_KEPT_LINE`` characters: what a follow-up brief quotes."""
    rejected_lines: list[int] | None = None
    """The changed lines rejected; absent: all of them."""
    rejected_at: AwareDatetime


def applied_hunk(hunk: Hunk, lines: frozenset[int], when: datetime) -> AppliedHunk:
    whole = hunk.whole or len(lines) == hunk.changed
    return AppliedHunk(
        id=hunk.id,
        digest=hunk.digest,
        path=hunk.path,
        lines=None if whole else sorted(lines),
        applied_at=when,
    )


def rejected_hunk(hunk: Hunk, lines: frozenset[int], reason: str, when: datetime) -> RejectedHunk:
    whole = hunk.whole or len(lines) == hunk.changed
    shown = [(line.origin + line.text)[:MAX_KEPT_LINE] for line in hunk.lines[:MAX_KEPT_LINES]]
    return RejectedHunk(
        id=hunk.id,
        digest=hunk.digest,
        path=hunk.path,
        header=hunk.header,
        reason=reason,
        lines=shown,
        rejected_lines=None if whole else sorted(lines),
        rejected_at=when,
    )


class ExecutorInfo(ProtocolModel):
    """Where a task runs when not here: a Dask cluster (``caesar run --on``). The record of a
    local task has none."""

    kind: Literal["dask"] = "dask"
    address: str
    """The scheduler's address (``tcp://HOST:PORT``)."""
    key: str | None = None
    """The Dask task key, once submitted."""
    worker: str | None = None
    """The worker running it, once one started it."""
    result_digest: str | None = None
    """The digest of the result applied here: a retried transfer of it is not applied again."""
    settled: bool = False
    """Its result is applied here, or it ended without one: nothing more comes back."""

    @property
    def label(self) -> str:
        """Where it runs, for a listing: ``on HOST:PORT`` of its worker (its scheduler while
        no worker has it)."""
        return runs_on(self.address, self.worker)


class TaskRecord(ProtocolModel):
    protocol: Literal["caesar.record/v1"] = RECORD_V1
    id: str
    status: TaskStatus = TaskStatus.PENDING
    created_at: AwareDatetime
    started_at: AwareDatetime | None = None
    ended_at: AwareDatetime | None = None
    pid: int | None = None
    """The agent's process (group leader) while it runs; cleared when it ends."""
    cgroup: str | None = None
    """The task's own cgroup v2 directory, when one could be made (``runner/cgroup.py``)."""
    parent_id: str | None = None
    """The task that delegated this one, when an agent delegated through caesar."""
    depth: Annotated[int, Field(ge=0)] = 0
    agent: str
    role: str | None = None
    objective: str
    workspace: str
    """The directory the agent works in (the worktree, under worktree isolation)."""
    source_workspace: str | None = None
    """The user's workspace the task was started from; where `caesar apply` lands."""
    isolation: Isolation
    mode: Mode
    base_ref: str | None = None
    worktree_path: str | None = None
    branch: str | None = None
    excluded_paths: list[str] = Field(default_factory=list)
    """Paths caesar laid down in the worktree ([worktree] copy/link), left out of every diff."""
    exit_code: int | None = None
    report_source: ReportSource | None = None
    changes_verified_by: VerifiedBy | None = None
    report_status: ReportStatus | None = None
    finished_seq: int | None = None
    """The ``seq`` of caesar's own ``finished`` event in ``events.jsonl`` (``NO_ENDING`` while
    there is none). Agents may append any line to their log, one that looks like a
    ``finished`` too: only this one is the outcome. ``None`` on a record concluded by a caesar
    that predates the field (see :attr:`legacy_ending`)."""
    applied_at: AwareDatetime | None = None
    discarded_at: AwareDatetime | None = None
    """When its worktree and branch were removed (``caesar discard`` or ``caesar gc``)."""
    applied_digest: str | None = None
    """sha256 of the patch applied, so `caesar gc` can tell an applied worktree from new work."""
    applied_hunks: list[AppliedHunk] = Field(default_factory=list)
    """Hunks applied one by one (``caesar apply --hunk``), in the order they were."""
    rejected_hunks: list[RejectedHunk] = Field(default_factory=list)
    """Hunks a reviewer reverted out of the worktree (``caesar reject``)."""
    ended_reason: str | None = None
    """Why the task ended as it did, in words (cancelled by whom, which deadline)."""
    orchestrator_pid: int | None = None
    """The caesar process that runs the task; when it is gone, the task is abandoned."""
    orchestrator_host: str | None = None
    start_snapshot: str | None = None
    """In-place tasks in a repository: the tree of the workspace at start, diffed at the end."""
    report_tier: str | None = None
    """The tier the agent was asked to honor (channel, schema, file)."""
    deadline_ms: int | None = None
    checks: Checks | None = None
    """The last run of ``[review] checks`` on the whole task (None: never run)."""
    selection_checks: Checks | None = None
    """The last run on a selection of its hunks, in a scratch worktree (``caesar check --hunk``)."""
    model: str | None = None
    """The model the agent was told to use (None: its own default); a follow-up turn keeps it."""
    network_asked: str | None = None
    """The network the caller asked for (``auto``, ``on``, ``off``; None: the default); a
    follow-up turn asks the same."""
    session_id: str | None = None
    """The agent CLI's own session (codex's thread, Claude Code's session...) as its stream
    named it: what a follow-up turn resumes."""
    continues: str | None = None
    """The turn this task follows up (``caesar continue``): same agent, worktree and base."""
    chain: str | None = None
    """The first turn of the chain this task belongs to (None: it is that first turn, or has
    no follow-up)."""
    turn: Annotated[int, Field(ge=1)] = 1
    continued_by: str | None = None
    """The turn that followed this one up: the worktree is now that turn's to change."""
    turn_base: str | None = None
    """A follow-up turn: the tree of its workspace when it started (the previous turn's work as
    the reviewer left it), what ``caesar diff --since-previous`` compares with."""
    resumed_session: str | None = None
    """A follow-up turn that resumed the agent's session: which one (None: a fresh session)."""
    executor: ExecutorInfo | None = None
    """Where the task runs when not on this machine (None: here, by this machine's runner)."""

    @property
    def remote(self) -> bool:
        """Whether the task runs on another machine's caesar, followed by a shepherd here."""
        return self.executor is not None

    @property
    def ending_seq(self) -> int | None:
        """The ``seq`` of caesar's own ``finished`` event, when it has written one."""
        seq = self.finished_seq
        return seq if seq is not None and seq >= 0 else None

    @property
    def legacy_ending(self) -> bool:
        """Concluded by a caesar that did not name its ``finished`` event: the last one in the
        log is taken as its ending, as that caesar's readers did."""
        return self.status.terminal and self.finished_seq is None

    @property
    def chained(self) -> bool:
        """Whether the task is one turn of several: a follow-up, or followed up."""
        return self.continues is not None or self.continued_by is not None

    @property
    def taken(self) -> list[Taken]:
        """The hunks applied so far, as ``git.apply_changes`` takes them."""
        return [_taken(h.id, h.digest, h.lines) for h in self.applied_hunks]

    @property
    def settled(self) -> list[Taken]:
        """The hunks applied or rejected: what no longer counts as unapplied work."""
        rejected = [_taken(h.id, h.digest, h.rejected_lines) for h in self.rejected_hunks]
        return [*self.taken, *rejected]

    def age(self, now: datetime) -> float:
        """Seconds since creation."""
        return (now - self.created_at).total_seconds()


def _taken(hunk_id: str, digest: str, lines: list[int] | None) -> Taken:
    return Taken(hunk_id, digest, None if lines is None else frozenset(lines))


RECORD_ADAPTER: TypeAdapter[TaskRecord] = TypeAdapter(TaskRecord)


__all__ = [
    "MAX_KEPT_LINE",
    "MAX_KEPT_LINES",
    "NO_ENDING",
    "RECORD_ADAPTER",
    "RECORD_V1",
    "AppliedHunk",
    "CheckResult",
    "Checks",
    "ChecksMark",
    "ChecksState",
    "ExecutorInfo",
    "RejectedHunk",
    "ReportSource",
    "TaskRecord",
    "TaskStatus",
    "VerifiedBy",
    "applied_hunk",
    "checks_mark",
    "rejected_hunk",
]
