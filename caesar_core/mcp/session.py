"""What the orchestrator MCP server does, apart from MCP: a session over one caesar root.

Tasks it delegates run in threads of this process (the runner is synchronous), and
everything it reports comes from the store and the task directories, never from memory
alone, so tasks started by ``caesar run`` in a terminal or by another server look exactly
like its own. Each method returns plain JSON-able data; refusals are ``CaesarError``s.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from caesar_core import safefs
from caesar_core.agents.listing import agent_rows, role_rows
from caesar_core.config import load_config
from caesar_core.errors import CaesarError, UsageError
from caesar_core.events.tail import EventTail, read_last_events
from caesar_core.protocol.documents import read_shown_report
from caesar_core.protocol.event import Event, FinishedEvent
from caesar_core.protocol.parse import problem_text
from caesar_core.protocol.report import Report
from caesar_core.review.checks import checks_json
from caesar_core.review.hunks import SelectionError, parse_pick
from caesar_core.runner import control, taskdiff, worktrees
from caesar_core.runner.delegation import Request
from caesar_core.runner.engine import Runner, StartFailed
from caesar_core.runner.outcome import Prepared
from caesar_core.runner.sweep import sweep, sweep_one
from caesar_core.runner.turns import since_previous as since_previous_diff
from caesar_core.store import mailbox
from caesar_core.store.ids import check_task_id
from caesar_core.store.record import TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore, UnknownTaskError

AWAIT_DEFAULT_MS = 30_000
AWAIT_POLL_S = 0.2
"""How often ``caesar_await`` looks at the store again while tasks run."""
LOG_LIMIT = 50
RAW_TAIL_CHARS = 20_000
RAW_TAIL_BYTES = 4 * RAW_TAIL_CHARS
CANCEL_JOIN_S = 15.0


class Session:
    def __init__(self, root: Path, workspace: Path | None = None) -> None:
        self.root = root
        self.workspace = workspace or root
        self.store = TaskStore(root)
        self._running: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    # -- delegate ----------------------------------------------------------------------------

    def delegate(self, request: Request) -> dict[str, Any]:
        """Decide and lay the task down now (refusals surface here), then run it unwaited."""
        runner = Runner(self.root, load_config(self.root))
        return self._start(runner, lambda: runner.prepare(request, self.workspace))

    def continue_task(
        self, task_id: str, message: str = "", *, timeout_ms: int | None = None
    ) -> dict[str, Any]:
        """A follow-up turn of an ended task (``caesar continue``), started like a delegation:
        refusals surface here, then it runs unwaited."""
        runner = Runner(self.root, load_config(self.root))
        previous = check_task_id(task_id)
        started = self._start(
            runner, lambda: runner.prepare_followup(previous, message, timeout_ms=timeout_ms)
        )
        record = self.store.get(started["task_id"])
        return {
            **started,
            "continues": record.continues,
            "chain": record.chain,
            "turn": record.turn,
            "resumed_session": record.resumed_session,
        }

    def _start(self, runner: Runner, prepare: Callable[[], Prepared]) -> dict[str, Any]:
        try:
            prepared = prepare()
        except StartFailed as failed:
            raise CaesarError(
                f"the task could not start: {failed.reason}",
                f"see `caesar logs {failed.outcome.record.id}`",
            ) from None
        task_id = prepared.task.id

        def work() -> None:
            try:
                runner.execute(prepared)
            except Exception as error:
                # This process is alive, so no sweep would ever call the task abandoned.
                reason = f"caesar failed while running the task: {type(error).__name__}: {error}"
                self.store.conclude(task_id, TaskStatus.FAILED, ended_reason=reason)
                raise

        thread = threading.Thread(target=work, name=f"caesar-task-{task_id}", daemon=True)
        with self._lock:
            self._running[task_id] = thread
        thread.start()
        plan = prepared.plan
        return {
            "task_id": task_id,
            "agent": plan.adapter.id,
            "role": plan.role.name if plan.role else None,
            "mode": plan.mode.value,
            "isolation": plan.isolation.value,
            "workspace": prepared.task.workspace,
            "network": plan.network,
            "model": plan.model,
            "report_tier": prepared.tier,
            "status": "running",
            "notes": [f"{f.title}: {f.detail}" for f in prepared.findings],
        }

    # -- observe -----------------------------------------------------------------------------

    def await_tasks(self, task_ids: Sequence[str], timeout_ms: int) -> dict[str, Any]:
        """Every task's state once all have ended or the timeout passed, whichever is first."""
        if not task_ids:
            raise UsageError("task_ids is empty", "pass the ids caesar_delegate returned")
        deadline = time.monotonic() + max(0, timeout_ms) / 1000
        swept = sweep(self.store)
        while True:
            records = {task_id: self._record(task_id) for task_id in task_ids}
            ended = all(r is None or r.status.terminal for r in records.values())
            if ended or time.monotonic() >= deadline:
                break
            time.sleep(min(AWAIT_POLL_S, max(0.0, deadline - time.monotonic())))
            swept = sweep(self.store)
        return {
            "tasks": {
                task_id: self._awaited(task_id, record, swept.problems.get(task_id))
                for task_id, record in records.items()
            }
        }

    def _awaited(
        self, task_id: str, record: TaskRecord | None, problem: str | None = None
    ) -> dict[str, Any]:
        """One task's state; a task whose files are broken says so, the others are unaffected."""
        if record is None:
            return {"task_id": task_id, "status": "unknown", "pending": False}
        view: dict[str, Any] = {
            "task_id": task_id,
            "status": record.status.value,
            "agent": record.agent,
            "role": record.role,
        }
        if problem:
            view["problem"] = problem
        view["checks"] = checks_json(task_id, record.checks)
        try:
            if record.status.terminal:
                report = self._report(record)
                view["pending"] = False
                view["report"] = _summary(report, record) if report else None
            else:
                view["pending"] = True
                view["pending_questions"] = self._pending(task_id)
        except Exception as error:  # one broken task must not hide the others
            view["problem"] = problem_text(error)
        return view

    def status(self, task_id: str) -> dict[str, Any]:
        record, problem = sweep_one(self.store, self.store.get(check_task_id(task_id)))
        last = read_last_events(self.store.paths(task_id).events, 1)
        return {
            "task_id": record.id,
            "status": record.status.value,
            "report_status": record.report_status.value if record.report_status else None,
            "agent": record.agent,
            "role": record.role,
            "mode": record.mode.value,
            "isolation": record.isolation.value,
            "created_at": _iso(record.created_at),
            "started_at": _iso(record.started_at),
            "ended_at": _iso(record.ended_at),
            "last_event": _shown(last[-1], record) if last else None,
            "pending_questions": self._pending(task_id),
            "checks": checks_json(record.id, record.checks),
            **({"problem": problem} if problem else {}),
        }

    def logs(self, task_id: str, *, raw: bool, limit: int) -> dict[str, Any]:
        record, _ = sweep_one(self.store, self.store.get(check_task_id(task_id)))
        paths = self.store.paths(record.id)
        if raw:
            problem = ""
            try:
                size = safefs.lstat(paths.root, paths.raw_log.name).st_size
                data = safefs.read_tail(paths.root, paths.raw_log.name, RAW_TAIL_BYTES)
            except FileNotFoundError:
                size, data = 0, b""
            except OSError as error:  # a link, a FIFO...: never read through
                size, data, problem = 0, b"", str(error)
            text = data.decode("utf-8", errors="replace")
            raw_view: dict[str, Any] = {
                "task_id": record.id,
                "raw": True,
                "text": text[-RAW_TAIL_CHARS:],
                "truncated": len(text) > RAW_TAIL_CHARS or size > len(data),
            }
            if problem:
                raw_view["problem"] = problem
            return raw_view
        total, unreadable, events = _count_and_tail(paths.events, max(1, limit))
        return {
            "task_id": record.id,
            "status": record.status.value,
            "raw": False,
            "total_events": total,
            "unreadable_lines": unreadable,
            "events": [_shown(event, record) for event in events],
        }

    # -- act ---------------------------------------------------------------------------------

    def cancel(self, task_id: str) -> dict[str, Any]:
        record, cancelled = control.cancel(self.store, check_task_id(task_id), by="mcp")
        with self._lock:
            thread = self._running.get(task_id)
        if thread is not None:
            thread.join(CANCEL_JOIN_S)
        record = self.store.get(task_id)
        return {"task_id": task_id, "cancelled": cancelled, "status": record.status.value}

    def diff(self, task_id: str, *, since_previous: bool = False) -> dict[str, Any]:
        record = self.store.get(check_task_id(task_id))
        changes = (
            since_previous_diff(self.store, record, with_patch=True)
            if since_previous
            else taskdiff.task_diff(record, with_patch=True)
        )
        return taskdiff.diff_json(task_id, changes)

    def apply(self, task_id: str, hunks: Sequence[str] | None = None) -> dict[str, Any]:
        record = self.store.get(check_task_id(task_id))
        picks = None if hunks is None else [parse_pick(spec) for spec in hunks]
        return worktrees.apply_json(task_id, worktrees.apply(self.store, record, picks=picks))

    def reject(self, task_id: str, hunks: Sequence[str], reason: str = "") -> dict[str, Any]:
        record = self.store.get(check_task_id(task_id))
        if not hunks:
            raise SelectionError(
                "no hunk named to reject", "name hunks by their ids from caesar_diff"
            )
        picks = [parse_pick(spec) for spec in hunks]
        result = worktrees.reject(self.store, record, picks, reason=reason)
        return worktrees.reject_json(task_id, result)

    def comment(
        self,
        task_id: str,
        path: str | None = None,
        start_line: int | None = None,
        end_line: int | None = None,
        text: str | None = None,
        resolve: str | None = None,
    ) -> dict[str, Any]:
        """Add a comment, or resolve one, then every comment of the task as it is now."""
        from caesar_core.review import comments

        record = self.store.get(check_task_id(task_id))
        done: dict[str, Any] = {}
        if resolve is not None:
            if path is not None or text is not None:
                raise comments.CommentRefused(
                    "resolve takes a comment id alone", "give no path nor text with resolve"
                )
            done["resolved"] = comments.resolve_comment(self.store, record, resolve).id
        elif path is not None or text is not None:
            if path is None or start_line is None or text is None:
                raise comments.CommentRefused(
                    "a comment needs path, start_line and text",
                    "give all three (end_line for more than one line)",
                )
            added = comments.add_comment(
                self.store,
                record,
                path,
                start_line,
                end_line or start_line,
                text,
                author="mcp",
            )
            done["added"] = added.comment.id
            if added.set_aside:
                done["set_aside"] = added.set_aside
        return {**comments.read_comments(self.store, record).to_json(), **done}

    def check(self, task_id: str, hunks: Sequence[str] = ()) -> dict[str, Any]:
        """The project's checks run now on the task, or on those hunks alone (in a scratch
        worktree); refused with the reason when there are none, or the task still runs."""
        from caesar_core.review.hunks import parse_pick
        from caesar_core.review.verify import check_task

        picks = [parse_pick(spec) for spec in hunks]
        task = check_task_id(task_id)
        return checks_json(task, check_task(self.root, load_config(self.root), task, picks))

    def answer(self, task_id: str, question_id: str, text: str) -> dict[str, Any]:
        reply = control.answer(self.store, check_task_id(task_id), question_id, text, by="mcp")
        return {"task_id": task_id, "question_id": reply.id, "answered": True}

    def agents(self) -> list[dict[str, Any]]:
        return agent_rows(load_config(self.root))

    def roles(self) -> list[dict[str, Any]]:
        return role_rows(load_config(self.root))

    # -- shutdown ----------------------------------------------------------------------------

    def close(self) -> None:
        """The client went away: stop this session's tasks (nobody is left to await them)."""
        with self._lock:
            running = [(tid, t) for tid, t in self._running.items() if t.is_alive()]
        for task_id, _ in running:
            try:
                control.cancel(self.store, task_id, by="mcp server shutdown")
            except CaesarError:
                continue
        for _, item in running:
            item.join(CANCEL_JOIN_S)

    # -- helpers -----------------------------------------------------------------------------

    def _record(self, task_id: str) -> TaskRecord | None:
        try:
            return self.store.get(check_task_id(task_id))
        except (UnknownTaskError, UsageError):
            return None

    def _report(self, record: TaskRecord) -> Report | None:
        try:
            return read_shown_report(self.store.paths(record.id).report)
        except (CaesarError, ValueError, OSError):
            return None

    def _pending(self, task_id: str) -> list[dict[str, Any]]:
        paths = self.store.paths(task_id)
        return [
            {"id": q.id, "question": q.question, "options": q.options}
            for q in mailbox.pending_questions(paths)
        ]


def _count_and_tail(path: Path, limit: int) -> tuple[int, int, list[Event]]:
    """How many events the log holds (its valid lines, whatever their ``seq``: an agent may
    number its own lines anyhow), its unreadable lines, and the last ``limit`` events; read
    a megabyte at a time, so only ``limit`` events are ever held."""
    last: deque[Event] = deque(maxlen=limit)
    total = 0
    with EventTail(path) as tail:
        while True:
            before = tail.offset
            batch = tail.read(max_bytes=1 << 20)
            total += len(batch.events)
            last.extend(batch.events)
            if tail.offset == before:
                return total, tail.bad_total, list(last)


def _shown(event: Event, record: TaskRecord) -> dict[str, Any]:
    """An event as handed to the main agent; a ``finished`` line caesar did not write (the
    agent may append any line to its log) is marked as such, never taken for the outcome."""
    data = event.to_json_dict()
    legacy = record.legacy_ending
    if isinstance(event, FinishedEvent) and not legacy and event.seq != record.ending_seq:
        data["not_caesars"] = "a finished event caesar did not write; the outcome is `status`"
    return data


def _summary(report: Report, record: TaskRecord) -> dict[str, Any]:
    """What a main agent needs to decide its next step; commands, usage and the patch stay
    behind ``caesar_logs`` and ``caesar_diff``. The status is caesar's record of it."""
    data = report.to_json_dict()
    return {
        "status": (record.report_status or report.status).value,
        "summary": report.summary,
        "changes": data.get("changes", []),
        "changes_verified_by": (
            record.changes_verified_by.value if record.changes_verified_by else None
        ),
        "findings": data.get("findings", []),
        "questions": data.get("questions", []),
        "next_steps": report.next_steps,
    }


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None
