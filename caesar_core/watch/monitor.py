"""Every task of a project, folded, and kept current from file-change notifications.

``caesar watch`` (and any other observer) hands the monitor the paths a watcher reported; the
monitor maps each to the task it belongs to and re-reads only that: the record (a small JSON
file), the events log (by byte offset, through the tail), the mailbox, or the approvals.
Nothing here polls and nothing re-reads a log whole, so a thousand tasks with hundreds of
thousands of events stay cheap to follow. No Textual here: the TUI, the text frame of
``--once`` and the benchmark all use the same state.

A first screen needs the logs of the tasks it shows, not of all of them: ``scan(first=N)``
reads every record, mailbox and approval but only the logs of the first ``N`` tasks in tree
order; ``read_more`` reads the others, a few at a time, while the observer already shows them
(``TaskView.reading``).

Agents write their task directories, so every read goes through :mod:`caesar_core.safefs`, and
each task is read on its own: one whose files are hostile or broken is shown with the reason
(``TaskView.problem``), the others are unaffected. A task whose caesar process is gone is
concluded when it is read (as ``ps`` does), and its ending is the one caesar's record names,
never a ``finished`` line the agent appended.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path

from caesar_core import safefs
from caesar_core.errors import CaesarError
from caesar_core.events.activity import Activity
from caesar_core.events.fold import ActivityFold
from caesar_core.events.tail import EventTail, read_last_events
from caesar_core.layout import APPROVAL_ANSWERS_DIR
from caesar_core.protocol.approvals import Approval, ApprovalAnswer
from caesar_core.protocol.event import Event
from caesar_core.protocol.mailbox import MailboxAnswer, MailboxQuestion
from caesar_core.protocol.parse import problem_text
from caesar_core.runner.sweep import sweep_one
from caesar_core.store import mailbox
from caesar_core.store.approvals import APPROVALS_DIR
from caesar_core.store.approvals import approvals as read_approvals
from caesar_core.store.ids import is_task_id
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore
from caesar_core.store.tree import build_tree, walk_tree

RECENT_EVENTS = 5000
"""Events a view loads when it switches to a task; the fold still sees every one."""
_TASK_SUBDIRS = ("questions", "answers", APPROVALS_DIR)
"""The directories of a task directory whose changes a view shows."""


@dataclass(frozen=True)
class WatchedDir:
    """A directory a watcher follows, how many levels of subdirectories below it, and which
    of those (by their parts relative to it) are worth watching."""

    path: Path
    depth: int
    wanted: Callable[[tuple[str, ...]], bool]


@dataclass(frozen=True)
class TaskView:
    """One task as shown: its record, what it is doing, what it is asking."""

    record: TaskRecord
    activity: Activity
    pending: tuple[MailboxQuestion, ...]
    answered: tuple[tuple[MailboxQuestion, MailboxAnswer], ...]
    bad_lines: int
    approvals: tuple[Approval, ...] = ()
    """Tool calls held by the bridge until someone allows or denies them, oldest first."""
    decided: tuple[tuple[Approval, ApprovalAnswer], ...] = ()
    """Approvals already answered (by a person or by the timeout)."""
    problem: str = ""
    """Why part of the task could not be read (its log is a directory, a link...); "" if none."""
    reading: bool = False
    """Its log is not read yet (``scan(first=...)``): ``activity`` is empty, not the task's."""

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def needs_input(self) -> bool:
        """Someone must act: a question to answer or a tool call to allow or deny."""
        return bool(self.pending or self.approvals) and not self.record.status.terminal

    @property
    def asking(self) -> str:
        """What the task waits on, in one line; "" when nothing.

        An approval comes first: it holds a tool call, and it times out.
        """
        if self.approvals:
            held = self.approvals[0]
            summary = f": {held.summary}" if held.summary.strip() else ""
            return " ".join(f"approve {held.tool}{summary}".split())
        if self.pending:
            return f"? {self.pending[0].question}"
        return ""


@dataclass
class _Task:
    record: TaskRecord
    tail: EventTail
    fold: ActivityFold
    fresh: list[Event] = field(default_factory=list)
    """Events read since the last ``take_fresh``: what an observer has not seen yet."""
    was_reset: bool = False
    questions: list[tuple[MailboxQuestion, MailboxAnswer | None]] = field(default_factory=list)
    held: list[tuple[Approval, ApprovalAnswer | None]] = field(default_factory=list)
    problem: str = ""
    """Why the last read of this task failed; the task is still shown, with it."""
    log_read: bool = False
    """Its log was read at least once: the fold holds the task's history."""


def _state(task: _Task) -> tuple[object, ...]:
    """What ``catch_up`` compares to tell a task that changed."""
    return (task.record, len(task.fresh), task.was_reset, task.questions, task.held, task.problem)


class ProjectMonitor:
    """The state of every task under ``root``; ``refresh`` applies what a watcher saw."""

    def __init__(self, root: Path, *, only: Iterable[str] = ()) -> None:
        self.store = TaskStore(root)
        self._homes = (Path(os.path.abspath(self.store.home)), self.store.home.resolve())
        """``.caesar`` as given and as resolved: a watcher may report either."""
        self.only = set(only)
        self._tasks: dict[str, _Task] = {}
        self.problems: list[str] = []
        self._unread: dict[str, None] = {}
        """Tasks whose log waits for ``read_more``, in tree order."""
        self._history_given: set[str] = set()
        """Tasks whose history an observer read (``history``, any thread): when their log is
        read for the first time after that, its last events are fresh, not history."""

    # -- reading ---------------------------------------------------------------------------

    def scan(self, *, first: int | None = None) -> set[str]:
        """Read everything once (start-up, or a watcher that lost track); returns task ids.

        With ``first``, only the logs of the first ``first`` tasks in tree order (what a first
        screen shows) are read; the others wait for :meth:`read_more`.
        """
        records = self._listing()
        order = [record.id for _, record in walk_tree(build_tree(records))]
        now = set(order if first is None else order[: max(0, first)])
        self._unread = dict.fromkeys(task_id for task_id in order if task_id not in now)
        for record in records:
            logs = {"events"} if record.id in now else set()
            self._read(record, self._present(record.id) | logs)
            self._tasks[record.id].fresh = []  # history is read on demand, not kept
        return {record.id for record in records}

    @property
    def unread(self) -> int:
        """Tasks whose log :meth:`read_more` has yet to read."""
        return len(self._unread)

    def read_more(self, count: int) -> set[str]:
        """Read the logs of up to ``count`` more tasks that ``scan(first=...)`` left unread;
        returns their ids."""
        batch = list(islice(self._unread, max(0, count)))
        read: set[str] = set()
        for task_id in batch:
            del self._unread[task_id]
            task = self._tasks.get(task_id)
            if task is not None and not task.log_read:
                self._read(task.record, {"events"})
                read.add(task_id)
        return read

    def catch_up(self) -> set[str]:
        """What changed while nobody watched (between the first scan and the moment a
        watcher started): every task read again by offset, new events kept as fresh;
        returns the ids of the tasks that changed."""
        before = {task_id: _state(task) for task_id, task in self._tasks.items()}
        return {
            task_id
            for task_id in self._read_all()
            if before.get(task_id) != _state(self._tasks[task_id])
        }

    def _read_all(self) -> set[str]:
        """Every task again; a log waiting for ``read_more`` still waits."""
        ids: set[str] = set()
        for record in self._listing():
            waiting = record.id in self._unread
            self._read(record, self._present(record.id) | (set() if waiting else {"events"}))
            ids.add(record.id)
        return ids

    def _present(self, task_id: str) -> set[str]:
        """Which of a task's mailbox and approvals are worth reading when every task is read:
        a task directory without them (most tasks) is listed once rather than looked into
        twice; one that cannot be listed is read as usual (and tells why)."""
        try:
            names = {name for name, _ in safefs.entries(self.store.tasks_dir, task_id)}
        except (OSError, ValueError):
            return {"mailbox", "approvals"}
        present = set()
        task = self._tasks.get(task_id)
        if names & {"questions", "answers"}:
            present.add("mailbox")
        elif task is not None:
            task.questions = []
        if APPROVALS_DIR in names:
            present.add("approvals")
        elif task is not None:
            task.held = []
        return present

    def _listing(self) -> list[TaskRecord]:
        listing = self.store.list()
        self.problems = [f"{path}: {why}" for path, why in listing.problems]
        return [r for r in listing.records if not self.only or r.id in self.only]

    def refresh(self, paths: Iterable[Path | str]) -> set[str]:
        """Apply changed paths (from ``watchfiles``); returns the ids of tasks that changed."""
        kinds: dict[str, set[str]] = {}
        for raw in paths:
            located = self._locate(Path(raw))
            if located is not None:
                task_id, kind = located
                kinds.setdefault(task_id, set()).add(kind)
        changed: set[str] = set()
        for task_id, reported in kinds.items():
            what = set(reported)
            if self.only and task_id not in self.only:
                continue
            task = self._tasks.get(task_id)
            if "record" in what or task is None:
                try:
                    record = self.store.get(task_id)
                except CaesarError:
                    continue
                if task is None:
                    what |= {"events", "mailbox", "approvals"}
            else:
                record = task.record
            if task_id in self._unread:
                what.add("events")  # news of a task is told with what its log says
            self._read(record, what)
            changed.add(task_id)
        return changed

    def _read(self, record: TaskRecord, what: set[str]) -> None:
        """Read the parts ``what`` of one task; whatever goes wrong is that task's problem."""
        self._record(record)
        task = self._tasks[record.id]
        swept, problem = sweep_one(self.store, record)  # an abandoned task concluded on sight
        if swept is not record:
            self._record(swept)
        try:
            if "events" in what:
                self._events(record.id)
            if "mailbox" in what:
                self._mailbox(record.id)
            if "approvals" in what:
                self._approvals(record.id)
        except Exception as error:  # one broken task must never take the others down
            task.problem = _reason(error)
        else:
            task.problem = problem

    def _locate(self, path: Path) -> tuple[str, str] | None:
        """Which task a changed path belongs to, and which part of it (lexically: a link an
        agent left in its task directory is never followed)."""
        rel = self._relative(path)
        if rel is None:
            return None
        parts = rel.parts
        if len(parts) == 3 and parts[:2] == ("state", "tasks") and parts[2].endswith(".json"):
            task_id = parts[2][: -len(".json")]
            return (task_id, "record") if is_task_id(task_id) else None
        if len(parts) >= 3 and parts[:2] == ("state", APPROVAL_ANSWERS_DIR):
            # The answers to a task's approvals, kept out of the agent's reach.
            return (parts[2], "approvals") if is_task_id(parts[2]) else None
        if len(parts) >= 3 and parts[0] == "tasks" and is_task_id(parts[1]):
            name = parts[2]
            if name == "events.jsonl":
                return parts[1], "events"
            if name in ("questions", "answers"):
                return parts[1], "mailbox"
            if name == APPROVALS_DIR:
                return parts[1], "approvals"
            if name == "report.json":
                return parts[1], "record"
            if name == "raw.log":
                return parts[1], "raw"
        return None

    def watched_dirs(self) -> list[WatchedDir]:
        """Where a watcher should look for what :meth:`refresh` uses: the task directories
        (and in each its mailbox and approvals), the records, the approvals' answers. Not
        the worktrees, and nothing an agent piles up deeper in its task directory."""
        store = self.store

        def task_part(parts: tuple[str, ...]) -> bool:
            return is_task_id(parts[0]) and (len(parts) == 1 or parts[1] in _TASK_SUBDIRS)

        def answers_part(parts: tuple[str, ...]) -> bool:
            return is_task_id(parts[0])

        return [
            WatchedDir(store.tasks_dir, 2, task_part),
            WatchedDir(store.records_dir, 0, _no_subdirectory),
            WatchedDir(store.approval_answers_dir, 1, answers_part),
        ]

    def _relative(self, path: Path) -> Path | None:
        absolute = Path(os.path.abspath(path))
        for home in self._homes:
            try:
                return absolute.relative_to(home)
            except ValueError:
                continue
        return None

    def _record(self, record: TaskRecord) -> None:
        task = self._tasks.get(record.id)
        if task is None:
            events = self.store.paths(record.id).events
            task = _Task(record, EventTail(events), ActivityFold(record.id))
            self._tasks[record.id] = task
        else:
            task.record = record
        if record.legacy_ending:
            task.fold.trust_any()
        else:
            task.fold.trust_finished(record.ending_seq)

    def _events(self, task_id: str) -> None:
        task = self._tasks.get(task_id)
        if task is None:
            return
        batch = task.tail.read()
        if batch.reset:
            task.fold.reset()
            task.fresh.clear()
            task.was_reset = True
        task.fold.apply_all(batch.events)
        # Events are folded, then let go: an observer that wants a task's history reads it
        # from the end of its log (read_last_events). What it has not seen yet since is
        # kept until it takes it, whole, so a burst between two refreshes is not lost.
        if task.log_read:
            task.fresh.extend(batch.events)
        elif task_id in self._history_given:
            # Read for the first time after an observer read its history (checked after the
            # read, the history marks itself before reading): the end may be news to it.
            task.fresh.extend(batch.events[-RECENT_EVENTS:])
        task.log_read = True
        self._unread.pop(task_id, None)

    def _mailbox(self, task_id: str) -> None:
        task = self._tasks.get(task_id)
        if task is not None:
            task.questions = mailbox.questions(self.store.paths(task_id))

    def _approvals(self, task_id: str) -> None:
        task = self._tasks.get(task_id)
        if task is not None:
            task.held = read_approvals(self.store.paths(task_id).root)

    # -- views -----------------------------------------------------------------------------

    def ids(self) -> list[str]:
        return list(self._tasks)

    def records(self) -> list[TaskRecord]:
        return [task.record for task in self._tasks.values()]

    def view(self, task_id: str, now: datetime | None = None) -> TaskView:
        task = self._tasks[task_id]
        pending = tuple(q for q, a in task.questions if a is None)
        answered = tuple((q, a) for q, a in task.questions if a is not None)
        return TaskView(
            record=task.record,
            activity=task.fold.snapshot(now or datetime.now(UTC)),
            pending=pending,
            answered=answered,
            bad_lines=task.tail.bad_total,
            approvals=tuple(a for a, answer in task.held if answer is None),
            decided=tuple((a, answer) for a, answer in task.held if answer is not None),
            problem=task.problem or task.tail.problem,
            reading=not task.log_read,
        )

    def take_fresh(self, task_id: str) -> tuple[list[Event], bool]:
        """Events not handed out yet (at most ``RECENT_EVENTS``), and whether the log was
        reset since: then they replace, rather than extend, what the observer has."""
        task = self._tasks[task_id]
        fresh, reset = task.fresh, task.was_reset
        task.fresh, task.was_reset = [], False
        return fresh, reset

    def history(self, task_id: str, count: int = RECENT_EVENTS) -> list[Event]:
        """The task's last ``count`` events, read from the end of its log (any thread)."""
        self._history_given.add(task_id)  # before reading: see _events
        return read_last_events(self.store.paths(task_id).events, count)

    def close(self) -> None:
        for task in self._tasks.values():
            task.tail.close()
        self._tasks.clear()


def _no_subdirectory(parts: tuple[str, ...]) -> bool:
    return False


def _reason(error: Exception) -> str:
    """One line; a document's validation error names its field (never pydantic's report)."""
    return problem_text(error)
