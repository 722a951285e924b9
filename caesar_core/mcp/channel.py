"""The per-task return channel: a stdio MCP server an agent talks to while it works.

``caesar channel serve --task-dir DIR`` is started by the agent's CLI (caesar only tells the
CLI how); it serves one task and speaks only through that task's directory, so the runner,
``caesar watch`` and the orchestrator server see what it does the way they see everything
else: events in ``events.jsonl``, questions in the mailbox, the report in ``report.json``.

It never blocks an agent for good: a question nobody answers returns, at the latest when
the task's own deadline would, with an invitation to proceed on best judgment. Every file
it reads or writes goes through :mod:`caesar_core.safefs`, as everywhere in a task directory.
"""

from __future__ import annotations

import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, ValidationError

from caesar_core import __version__, safefs
from caesar_core.errors import CaesarError, UsageError
from caesar_core.events.writer import EventWriter
from caesar_core.protocol.documents import read_task, write_report
from caesar_core.protocol.event import Progress, QuestionAsked
from caesar_core.protocol.parse import parse
from caesar_core.protocol.report import (
    REPORT_ADAPTER,
    Artifact,
    Change,
    CommandRun,
    Finding,
    Question,
    ReportStatus,
    Usage,
)
from caesar_core.protocol.task import Task
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.protocol.versions import REPORT_V1, DocumentKind
from caesar_core.store import mailbox

SERVER_NAME = "caesar"
"""The name agents see the channel under (``mcp__caesar__submit_report`` in Claude Code)."""
ASK_TIMEOUT_S = 300.0
"""The longest ``ask_orchestrator`` waits for an answer (the task's deadline may cut it)."""
ASK_POLL_S = 1.0
"""How often an unanswered question is looked at again (the contract's upper bound)."""


class Channel:
    """The four tools' behaviour, apart from the MCP plumbing (so it is easy to test)."""

    def __init__(self, task_dir: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.paths = TaskPaths(task_dir)
        if not _is_plain_file(self.paths, self.paths.task_file.name):
            raise UsageError(
                f"{task_dir} is not a task directory (no task.json)",
                "pass the directory caesar created for the task (CAESAR_TASK_DIR)",
            )
        self.clock = clock

    def task(self) -> Task:
        return read_task(self.paths.task_file)

    def get_task(self) -> dict[str, Any]:
        """task.json as stored: extra fields an orchestrator added are the agent's too."""
        return dict(read_task(self.paths.task_file).to_json_dict())

    def report_progress(self, message: str, pct: float | None) -> dict[str, Any]:
        task = self.task()
        with EventWriter(self.paths.events, task.id) as events:
            event = events.append(Progress(message=message, pct=pct))
        return {"ok": True, "recorded": event is not None, "seq": event.seq if event else None}

    def seconds_left(self, task: Task) -> float:
        """Time left before the task's deadline, from its creation time (never negative)."""
        ends = task.created_at.timestamp() + task.deadline_ms / 1000
        return max(0.0, ends - datetime.now(UTC).timestamp())

    async def ask(self, question: str, options: list[str]) -> dict[str, Any]:
        task = self.task()
        asked = mailbox.ask(self.paths, question, options)
        with EventWriter(self.paths.events, task.id) as events:
            events.append(QuestionAsked(id=asked.id, question=question, options=options))
        budget = min(ASK_TIMEOUT_S, self.seconds_left(task))
        deadline = self.clock() + budget
        while True:
            reply = mailbox.read_answer(self.paths, asked.id)
            if reply is not None:
                return {
                    "id": asked.id,
                    "answered": True,
                    "question_id": asked.id,
                    "answer": reply.answer,
                }
            left = deadline - self.clock()
            if left <= 0:
                return {
                    "id": asked.id,
                    "answered": False,
                    "question_id": asked.id,
                    "message": "No answer came in time. Proceed on your best judgment, and "
                    "say in your report which assumption you made.",
                }
            await anyio.sleep(min(ASK_POLL_S, left))

    def submit(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Validate a report at once; a valid one replaces report.json atomically. The report
        is the task's whatever ``task_id`` the agent gave (the reference's agents send one)."""
        task = self.task()
        document = {"protocol": REPORT_V1, **fields, "task_id": task.id}
        try:
            report = parse(REPORT_ADAPTER, document, DocumentKind.REPORT)
        except ValidationError as error:
            raise ToolError(
                "The report was not accepted; fix these fields and call submit_report "
                "again:\n" + _problems(error)
            ) from None
        except CaesarError as error:
            raise ToolError(f"The report was not accepted: {error.reason}") from None
        if report.task_id != task.id:
            report = report.model_copy(update={"task_id": task.id})
        write_report(self.paths.report, report)
        return {"ok": True, "accepted": True, "task_id": task.id, "status": report.status.value}


def _is_plain_file(paths: TaskPaths, name: str) -> bool:
    """A regular file of the task directory, the entry itself (a link is not followed)."""
    try:
        return stat.S_ISREG(safefs.lstat(paths.root, name).st_mode)
    except OSError:
        return False


def _problems(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(report)"
        lines.append(f"- {where}: {item['msg']}")
    return "\n".join(lines)


def build_server(task_dir: Path) -> MCPServer:
    channel = Channel(task_dir)
    server = MCPServer(
        name="caesar-channel",
        version=__version__,
        instructions="The return channel of one caesar task: read the task, report progress, "
        "ask the orchestrator, and submit the final report.",
        log_level="WARNING",
    )

    @server.tool()
    def get_task() -> dict[str, Any]:
        """The task you are working on (task.json): objective, constraints, workspace."""
        return channel.get_task()

    @server.tool()
    def report_progress(message: str, pct: float | None = None) -> dict[str, Any]:
        """Say where you are (``pct`` from 0 to 100 when you can tell)."""
        if pct is not None and not 0 <= pct <= 100:
            raise ToolError("pct must be between 0 and 100")
        return channel.report_progress(message, pct)

    @server.tool()
    async def ask_orchestrator(question: str, options: list[str] | None = None) -> dict[str, Any]:
        """Ask the orchestrator a question outside your scope and wait for the answer.

        Waits at most 5 minutes (less when the task's deadline is nearer); without an answer
        it returns normally and you proceed on your best judgment.
        """
        if not question.strip():
            raise ToolError("question must not be empty")
        return await channel.ask(question, list(options or []))

    @server.tool()
    def submit_report(
        status: ReportStatus,
        summary: Annotated[str, Field(min_length=1)],
        details: str | None = None,
        changes: list[Change] | None = None,
        commands_run: list[CommandRun] | None = None,
        findings: list[Finding] | None = None,
        questions: list[Question] | None = None,
        next_steps: list[str] | None = None,
        artifacts: list[Artifact] | None = None,
        usage: Usage | None = None,
        protocol: str = REPORT_V1,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Submit your final report (caesar.report/v1). It is checked at once: a refusal
        lists what to fix, and a resubmission replaces the previous report. ``task_id`` may
        be given; the report is this task's either way."""
        given: dict[str, Any] = {"protocol": protocol, "status": status, "summary": summary}
        optional: dict[str, Any] = {
            "details": details,
            "changes": changes,
            "commands_run": commands_run,
            "findings": findings,
            "questions": questions,
            "next_steps": next_steps,
            "artifacts": artifacts,
            "usage": usage,
            "task_id": task_id,
        }
        for key, value in optional.items():
            if value is not None:
                given[key] = _plain(value)
        return channel.submit(_plain(given))

    return server


def _plain(value: Any) -> Any:
    """Models back to JSON values, so the report is validated as one document."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def serve(task_dir: Path) -> None:
    """Serve the task's channel on stdin/stdout until the agent closes it."""
    build_server(task_dir).run("stdio")
