"""The built-in demo agent: a conformant OACP agent that needs no model and no API key.

It reads ``$CAESAR_TASK_FILE``, narrates its work as ``caesar.event/v1`` lines through the
shared event writer, really edits its workspace, and writes ``$CAESAR_REPORT_PATH`` last, as
the spec asks of any agent. ``make demo`` and the test suite drive it; it doubles as living
proof that a program with no SDK can play the sub-agent.

The task's ``context`` may be a JSON object choosing a script (``{"script": "work"}``) and a
pace in seconds between steps (``{"delay": 0.3}``); ``CAESAR_DEMO_DELAY`` overrides the pace.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from caesar_core.events.writer import EventWriter
from caesar_core.fs import atomic_write, dump_json
from caesar_core.protocol.documents import read_task
from caesar_core.protocol.event import (
    FileChanged,
    Message,
    Progress,
    Thinking,
    ToolStatus,
    ToolUse,
)
from caesar_core.protocol.report import (
    Change,
    ChangeAction,
    CommandRun,
    Finding,
    Report,
    ReportStatus,
    Severity,
    Usage,
)
from caesar_core.protocol.task import Mode, Task
from caesar_core.protocol.taskdir import ENV_EVENTS_PATH, ENV_REPORT_PATH, ENV_TASK_FILE
from caesar_core.protocol.versions import REPORT_V1


@dataclass(frozen=True)
class Options:
    script: str = "work"
    delay: float = 0.0


def options_of(task: Task) -> Options:
    """The script and pace asked for in the task's context, when it is a JSON object."""
    try:
        data: Any = json.loads(task.context) if task.context.strip() else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    delay = os.environ.get("CAESAR_DEMO_DELAY", data.get("delay", 0.0))
    return Options(script=str(data.get("script", "work")), delay=max(0.0, float(delay)))


class Demo:
    """One run of the demo agent over one task."""

    def __init__(self, task: Task, events: EventWriter, options: Options) -> None:
        self.task = task
        self.events = events
        self.options = options
        self.workspace = Path(task.workspace)
        self.calls = 0

    def pause(self) -> None:
        if self.options.delay:
            time.sleep(self.options.delay)

    def say(self, text: str) -> None:
        self.events.append(Message(text=text))

    def tool(self, name: str, summary: str, work: Callable[[], bool]) -> bool:
        """Run ``work`` as one tool call: a start edge, the work, then its end edge."""
        self.calls += 1
        call_id = f"demo_{self.calls}"
        self.events.append(
            ToolUse(tool=name, id=call_id, input_summary=summary, status=ToolStatus.STARTED)
        )
        self.pause()
        ok = work()
        status = ToolStatus.SUCCEEDED if ok else ToolStatus.FAILED
        self.events.append(ToolUse(tool=name, id=call_id, input_summary=summary, status=status))
        return ok

    def work(self) -> Report:
        started = time.monotonic()
        self.events.append(Thinking(text=f"Reading the objective: {self.task.objective}"))
        self.pause()
        listing: list[str] = []

        def survey() -> bool:
            listing.extend(self._listing())
            return True

        self.tool("bash", "ls", survey)
        self.events.append(Progress(message="surveyed the workspace", pct=25))
        self.say(f"The workspace holds {len(listing)} entries. ")
        self.say("I will leave a note of what I was asked.")
        self.pause()
        changes: list[Change] = []
        if self.task.mode is Mode.WRITE:
            note = self.workspace / "DEMO_NOTES.md"
            existed = note.exists()
            self.tool("write", note.name, lambda: self._write_note(note))
            action = ChangeAction.MODIFIED if existed else ChangeAction.CREATED
            self.events.append(FileChanged(path=note.name, action=action))
            changes.append(Change(path=note.name, action=action, summary="the objective, noted"))
        self.events.append(Progress(message="checking", pct=75))
        self.tool("bash", "git status --short", lambda: True)
        self.events.append(Progress(message="done", pct=100))
        summary = (
            f"Noted the objective in DEMO_NOTES.md: {self.task.objective}"
            if changes
            else f"Surveyed {len(listing)} entries without writing (read-only task)."
        )
        self.say(summary)
        return Report(
            protocol=REPORT_V1,
            task_id=self.task.id,
            status=ReportStatus.SUCCESS,
            summary=summary,
            changes=changes,
            commands_run=[CommandRun(command="git status --short", exit_code=0)],
            findings=[
                Finding(
                    severity=Severity.INFO,
                    title="Demo agent",
                    detail="This report was written by caesar's built-in demo agent.",
                )
            ],
            next_steps=["Review the diff, then apply it or discard it."],
            usage=Usage(duration_ms=int((time.monotonic() - started) * 1000)),
        )

    def _listing(self) -> list[str]:
        return sorted(p.name for p in self.workspace.iterdir() if p.name not in (".git",))

    def _write_note(self, note: Path) -> bool:
        with note.open("a", encoding="utf-8") as out:
            out.write(f"- {self.task.objective}\n")
        return True


SCRIPTS = ("work",)


def main() -> int:
    """Run as an agent process: everything it needs comes from the ``CAESAR_*`` variables."""
    try:
        task_file = Path(os.environ[ENV_TASK_FILE])
        report_path = Path(os.environ[ENV_REPORT_PATH])
        events_path = Path(os.environ.get(ENV_EVENTS_PATH, report_path.with_name("events.jsonl")))
    except KeyError as missing:
        print(f"demo agent: {missing.args[0]} is not set; run me through caesar", file=sys.stderr)
        return 2
    task = read_task(task_file)
    options = options_of(task)
    if options.script not in SCRIPTS:
        print(f"demo agent: unknown script {options.script!r}; known: {SCRIPTS}", file=sys.stderr)
        return 2
    with EventWriter(events_path, task.id) as events:
        report = Demo(task, events, options).work()
    atomic_write(report_path, dump_json(report.to_json_dict()))
    print(report.summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
