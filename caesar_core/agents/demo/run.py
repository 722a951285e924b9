"""What every demo script shares: its options, its narration, its commands and its report."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from caesar_core.events.writer import EventWriter
from caesar_core.protocol.event import (
    FileChanged,
    Message,
    Progress,
    Thinking,
    ToolStatus,
    ToolUse,
)
from caesar_core.protocol.report import ChangeAction, CommandRun, Report, ReportStatus, Usage
from caesar_core.protocol.task import Task
from caesar_core.protocol.taskdir import TaskPaths
from caesar_core.protocol.versions import REPORT_V1

ENV_DELAY = "CAESAR_DEMO_DELAY"
"""Overrides the context's ``delay``: the pace, in seconds, between steps."""

NOTES = "DEMO_NOTES.md"
"""Written by ``work`` (and ``followup``) and left uncommitted."""
DEFAULT_SCRIPT = "work"
FOLLOWUP_SCRIPT = "followup"
"""What a follow-up turn (``caesar continue``) runs when its context names no script."""


@dataclass(frozen=True)
class Options:
    """The task's context, read as ``{"script": NAME, "delay": SECONDS, ...}``."""

    script: str = DEFAULT_SCRIPT
    delay: float = 0.0
    raw: Mapping[str, Any] = field(default_factory=dict)
    """Every key of the context, for the script-specific ones."""

    def flag(self, key: str) -> bool:
        return self.raw.get(key) is True

    def text(self, key: str, default: str) -> str:
        value = self.raw.get(key)
        return value if isinstance(value, str) and value.strip() else default


def options_of(task: Task) -> Options:
    """The options asked for in the task's context; anything unreadable falls back to defaults."""
    try:
        data: Any = json.loads(task.context) if task.context.strip() else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    default = FOLLOWUP_SCRIPT if task.followup is not None else DEFAULT_SCRIPT
    return Options(
        script=str(data.get("script", default)),
        delay=_seconds(os.environ.get(ENV_DELAY, data.get("delay", 0.0))),
        raw=data,
    )


def _seconds(value: Any) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return 0.0
    return seconds if 0.0 < seconds < float("inf") else 0.0


@dataclass
class ToolCall:
    """The open call inside :meth:`Run.tool`; clear ``ok`` to close it as failed."""

    ok: bool = True


@dataclass(frozen=True)
class Completed:
    """A command the agent ran: ``exit_code`` is ``None`` when it was killed at its timeout."""

    command: str
    exit_code: int | None
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass(frozen=True)
class Outcome:
    """How a script ends: the report to write (``None``: write none), the exit code, and the
    final message printed on stdout (default: the report's summary)."""

    report: Report | None
    exit_code: int = 0
    stdout: str | None = None


class Run:
    """One run of one script over one task: narration through the event writer, commands run
    in the workspace and remembered for the report."""

    def __init__(self, task: Task, events: EventWriter, options: Options, task_dir: Path) -> None:
        self.task = task
        self.events = events
        self.options = options
        self.paths = TaskPaths(task_dir)
        self.workspace = Path(task.workspace)
        self.commands: list[CommandRun] = []
        self._started = time.monotonic()
        self._calls = 0

    # -- narration ----------------------------------------------------------------------

    def pause(self) -> None:
        if self.options.delay:
            time.sleep(self.options.delay)

    def think(self, text: str) -> None:
        self.events.append(Thinking(text=text))
        self.pause()

    def say(self, text: str) -> None:
        self.events.append(Message(text=text))

    def progress(self, message: str, pct: float | None = None) -> None:
        self.events.append(Progress(message=message, pct=pct))

    def changed(self, path: str, action: ChangeAction) -> None:
        self.events.append(FileChanged(path=path, action=action))

    def append(self, name: str, text: str) -> ChangeAction:
        """Append ``text`` to a workspace file as one tool call, and say so with an event."""
        path = self.workspace / name
        action = ChangeAction.MODIFIED if path.exists() else ChangeAction.CREATED
        tool = "edit" if action is ChangeAction.MODIFIED else "write"
        with self.tool(tool, name), path.open("a", encoding="utf-8") as out:
            out.write(text)
        self.changed(name, action)
        return action

    @contextmanager
    def tool(self, name: str, summary: str) -> Iterator[ToolCall]:
        """One tool call: its start edge, a pause, the body, then its end edge (same id)."""
        self._calls += 1
        call_id = f"demo_{self._calls}"
        self.events.append(
            ToolUse(tool=name, id=call_id, input_summary=summary, status=ToolStatus.STARTED)
        )
        self.pause()
        call = ToolCall()
        try:
            yield call
        except BaseException:
            call.ok = False
            raise
        finally:
            status = ToolStatus.SUCCEEDED if call.ok else ToolStatus.FAILED
            self.events.append(ToolUse(tool=name, id=call_id, input_summary=summary, status=status))

    # -- commands -----------------------------------------------------------------------

    def sh(self, args: Sequence[str], *, timeout: float = 60.0, label: str = "") -> Completed:
        """Run a command in the workspace as a ``bash`` tool call and remember it for the
        report (as ``label`` when given); a missing program reads as exit 127, a timeout as
        no exit code."""
        line = label or shlex.join(args)
        code: int | None
        with self.tool("bash", line) as call:
            try:
                done = subprocess.run(
                    list(args),
                    cwd=self.workspace,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    check=False,
                )
                code, out, err = done.returncode, done.stdout, done.stderr
            except FileNotFoundError:
                code, out, err = 127, "", f"{args[0]}: command not found\n"
            except PermissionError as error:
                code, out, err = 126, "", f"{args[0]}: {error.strerror}\n"
            except subprocess.TimeoutExpired as expired:
                code, out = None, _text(expired.stdout)
                err = _text(expired.stderr) + f"timed out after {timeout:.1f} s\n"
            call.ok = code == 0
        note = "" if code is not None else f"killed after {timeout:.1f} s"
        self.commands.append(CommandRun(command=line, exit_code=code, note=note))
        return Completed(line, code, out, err)

    # -- time ---------------------------------------------------------------------------

    def seconds_left(self) -> float:
        """Seconds until the task's deadline (negative once it has passed)."""
        return (self.task.deadline_at - datetime.now(UTC)).total_seconds()

    def margin(self) -> float:
        """How long before the deadline to stop waiting, to leave time for the report."""
        return min(2.0, max(0.2, self.task.deadline_ms / 10_000))

    # -- report -------------------------------------------------------------------------

    def report(self, status: ReportStatus, summary: str, **fields: Any) -> Report:
        """A report of this task; ``commands_run`` defaults to the commands run so far."""
        fields.setdefault("commands_run", list(self.commands))
        return Report(
            protocol=REPORT_V1,
            task_id=self.task.id,
            status=status,
            summary=summary,
            usage=Usage(duration_ms=int((time.monotonic() - self._started) * 1000)),
            **fields,
        )


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value
