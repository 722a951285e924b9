"""The demo agent's scripts: one function per behaviour an orchestrator must handle.

Each takes a :class:`Run` and returns an :class:`Outcome` (the report to write, the exit code,
the final message); ``hang`` never returns. File names and statuses are part of what tests and
people rely on, so they are constants here.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

from caesar_core.agents.demo.followup import followup
from caesar_core.agents.demo.run import NOTES, Outcome, Run
from caesar_core.errors import CaesarError
from caesar_core.executable import caesar_command
from caesar_core.fs import atomic_write, dump_json
from caesar_core.protocol.event import Error, QuestionAsked
from caesar_core.protocol.mailbox import MailboxAnswer
from caesar_core.protocol.report import (
    Artifact,
    Change,
    ChangeAction,
    CommandRun,
    Finding,
    Question,
    ReportStatus,
    Severity,
)
from caesar_core.protocol.task import Mode
from caesar_core.store.mailbox import ask as ask_mailbox
from caesar_core.store.mailbox import read_answer

TRACKED = "README.md"
"""Appended to and committed by ``work``; when absent, ``FALLBACK_TRACKED`` is created."""
FALLBACK_TRACKED = "NOTES.md"
QUESTION = "Should the old behavior be kept?"
QUESTION_OPTIONS = ("yes", "no")
POLL_S = 0.2
"""How often ``ask`` looks for its answer."""
ENV_CAESAR = "CAESAR_DEMO_CAESAR"
"""The ``caesar`` executable ``delegate`` runs, overriding the lookup (for tests)."""
CHILD_SCRIPT = "quick"
PIDS_FILE = "hang.pids"
"""In the task directory: ``{"agent": PID, "grandchild": PID}`` written by ``hang``."""
LIE_CLAIMED = "src/parser.py"
LIE_ACTUAL = "UNDECLARED.txt"
SILENT_NOTES = "SILENT_NOTES.md"
GIT_IDENTITY = (
    "-c",
    "user.name=caesar demo agent",
    "-c",
    "user.email=demo@caesar.invalid",
    "-c",
    "commit.gpgsign=false",
)


def _demo_finding() -> Finding:
    return Finding(
        severity=Severity.INFO,
        title="Demo agent",
        detail="This report was written by caesar's built-in demo agent.",
    )


# -- quick ------------------------------------------------------------------------------


def quick(run: Run) -> Outcome:
    """A thinking, one tool call, a message, a success; nothing touched."""
    run.think(f"Reading the objective: {run.task.objective}")
    with run.tool("read", "task.json"):
        pass
    summary = f"Quick look done: {run.task.objective}"
    run.say(summary)
    return Outcome(run.report(ReportStatus.SUCCESS, summary))


# -- work -------------------------------------------------------------------------------


def work(run: Run) -> Outcome:
    """Edits and commits a tracked file, writes another left uncommitted, reports in full.

    A read-only task modifies nothing and says so. Outside a git repository nothing is
    committed; a commit that fails makes the report ``partial``.
    """
    task = run.task
    run.think(f"Reading the objective: {task.objective}")
    listing: list[str] = []
    with run.tool("bash", "ls"):
        listing = sorted(p.name for p in run.workspace.iterdir() if p.name != ".git")
    run.progress("surveyed the workspace", 20)
    run.say(f"The workspace holds {len(listing)} entries.")
    in_git = run.sh(["git", "rev-parse", "--is-inside-work-tree"]).stdout.strip() == "true"
    next_steps = ["Review the diff against the base commit, then apply it or discard it."]

    if task.mode is Mode.READ_ONLY:
        if in_git:
            run.sh(["git", "status", "--short"])
        summary = f"Read-only task: surveyed {len(listing)} entries and modified nothing."
        run.progress("done", 100)
        run.say(summary)
        return Outcome(
            run.report(
                ReportStatus.SUCCESS,
                summary,
                details="The task is read-only, so the workspace was left as it was.",
                findings=[_demo_finding()],
                next_steps=["Run the task in write mode to let the demo agent leave its notes."],
            )
        )

    run.say("I will note what I was asked, commit that, and leave a second note uncommitted.")
    tracked = TRACKED if (run.workspace / TRACKED).is_file() else FALLBACK_TRACKED
    tracked_action = run.append(tracked, f"\n- {task.objective} (noted by the demo agent)\n")
    committed = ""
    commit_failed = False
    if in_git:
        message = f"demo: note the objective in {tracked}"
        commit = run.sh(["git", "add", "--", tracked])
        if commit.ok:
            commit = run.sh(["git", *GIT_IDENTITY, "commit", "-m", message, "--", tracked])
        if commit.ok:
            committed = commit.stdout.strip().splitlines()[0] if commit.stdout.strip() else "done"
        else:
            commit_failed = True
            next_steps.append(f"Commit {tracked} by hand: the demo agent's commit failed.")
    run.progress("noted and committed" if committed else "noted", 60)
    notes_action = run.append(NOTES, f"- {task.objective}\n")
    run.progress("checking", 80)
    if in_git:
        run.sh(["git", "status", "--short"])
    run.progress("done", 100)

    if committed:
        summary = (
            f"Noted the objective in {tracked} (committed) and in {NOTES} (left uncommitted): "
            f"{task.objective}"
        )
        details = f"Commit: {committed}"
    elif commit_failed:
        summary = f"Noted the objective in {tracked} and {NOTES}, but could not commit {tracked}."
        details = "git commit failed; see commands_run."
    else:
        summary = (
            f"Noted the objective in {tracked} and {NOTES}; the workspace is not a git "
            "repository, so nothing was committed."
        )
        details = ""
    run.say(summary)
    return Outcome(
        run.report(
            ReportStatus.PARTIAL if commit_failed else ReportStatus.SUCCESS,
            summary,
            details=details,
            changes=[
                Change(
                    path=tracked,
                    action=tracked_action,
                    summary="the objective, committed" if committed else "the objective, noted",
                ),
                Change(path=NOTES, action=notes_action, summary="the objective, uncommitted"),
            ],
            findings=[_demo_finding()],
            next_steps=next_steps,
        )
    )


# -- ask --------------------------------------------------------------------------------


def ask(run: Run) -> Outcome:
    """Asks through the mailbox and waits for the answer, stopping a little before the
    deadline; ``success`` with the answer, else ``blocked`` with the question left open."""
    run.think("A decision outside my scope is needed before I go on.")
    asked = ask_mailbox(run.paths, QUESTION, QUESTION_OPTIONS)
    run.events.append(
        QuestionAsked(id=asked.id, question=asked.question, options=list(asked.options))
    )
    answer: MailboxAnswer | None = None
    problem = ""
    with run.tool("ask_orchestrator", QUESTION):
        stop = time.monotonic() + max(0.0, run.seconds_left() - run.margin())
        while True:
            try:
                answer = read_answer(run.paths, asked.id)
            except (OSError, ValueError, CaesarError) as error:
                problem = str(getattr(error, "reason", error))
                break
            remaining = stop - time.monotonic()
            if answer is not None or remaining <= 0:
                break
            time.sleep(min(POLL_S, remaining))

    if problem:
        summary = f"The answer to question {asked.id} could not be read."
        run.events.append(Error(message=f"{summary} {problem}", fatal=True))
        return Outcome(run.report(ReportStatus.FAILED, summary, details=problem), exit_code=1)
    if answer is None:
        summary = f"Blocked: no answer to {QUESTION!r} before the deadline."
        run.say(summary)
        return Outcome(
            run.report(
                ReportStatus.BLOCKED,
                summary,
                questions=[
                    Question(id=asked.id, question=QUESTION, options=list(QUESTION_OPTIONS))
                ],
                next_steps=[f"Answer question {asked.id}, then run the task again."],
            )
        )
    run.say(f"Got the answer: {answer.answer}")
    by = f" by {answer.answered_by}" if answer.answered_by else ""
    return Outcome(
        run.report(
            ReportStatus.SUCCESS,
            f"The answer was: {answer.answer}",
            details=f"Asked {QUESTION!r} (question {asked.id}); answered{by}: {answer.answer!r}.",
        )
    )


# -- delegate ---------------------------------------------------------------------------


def delegate(run: Run) -> Outcome:
    """Runs ``caesar run OBJECTIVE --agent demo --context '{"script":"quick"}' --json``; the
    child inherits the ``CAESAR_*`` environment, so caesar sees who its parent is."""
    objective = run.options.text(
        "child_objective", f"Take a quick look on behalf of the parent: {run.task.objective}"
    )
    child_context = json.dumps(
        {"script": run.options.text("child_script", CHILD_SCRIPT)}, separators=(",", ":")
    )
    run.think("This is a job for a sub-agent: delegating it through caesar run.")
    caesar = _caesar_command()
    command = ["run", objective, "--agent", "demo", "--context", child_context, "--json"]
    args = [*caesar, *command]
    done = run.sh(
        args,
        timeout=max(1.0, run.seconds_left() - run.margin()),
        label=shlex.join(["caesar", *command]),
    )
    child = _child_result(done.stdout)
    child_id = str(child["task_id"]) if child else ""

    if not done.ok or child is None:
        if done.exit_code is None:
            reason = "caesar run did not finish before the deadline"
        elif not done.ok:
            reason = f"caesar run exited with {done.exit_code}"
        else:
            reason = "caesar run printed no JSON result with a task_id"
        tail = _tail(done.stderr) or _tail(done.stdout)
        run.events.append(Error(message=f"{reason}: {tail}" if tail else reason, fatal=True))
        details = f"command: {shlex.join(args)}\n"
        details += f"child task: {child_id}\n" if child_id else ""
        details += f"stderr (tail):\n{tail}" if tail else "(no output)"
        summary = f"Delegation failed: {reason}."
        run.say(summary)
        return Outcome(run.report(ReportStatus.FAILED, summary, details=details), exit_code=1)

    assert child is not None
    child_status = str(child.get("status", "unknown"))
    report = child.get("report")
    child_summary = str(report.get("summary", "")) if isinstance(report, dict) else ""
    summary = f"Delegated to child task {child_id} ({child_status})" + (
        f": {child_summary}" if child_summary else "."
    )
    run.say(summary)
    artifacts = [
        Artifact(path=str(child[key]), description=f"the child task's {key}")
        for key in ("report_path", "task_dir")
        if isinstance(child.get(key), str) and child[key]
    ]
    return Outcome(
        run.report(
            ReportStatus.SUCCESS,
            summary,
            details=f"child task: {child_id}\nstatus: {child_status}\nsummary: {child_summary}",
            findings=[
                Finding(
                    severity=Severity.INFO,
                    title=f"Delegated to child task {child_id}",
                    detail=f"caesar run ended with status {child_status}.",
                )
            ],
            artifacts=artifacts,
        )
    )


def _caesar_command() -> list[str]:
    """``$CAESAR_DEMO_CAESAR``, else this installation's caesar (``caesar_command``)."""
    override = os.environ.get(ENV_CAESAR)
    return [override] if override else caesar_command()


def _child_result(stdout: str) -> dict[str, Any] | None:
    """The JSON object ``caesar run --json`` printed: all of stdout, else its last JSON line."""
    candidates = [stdout, *reversed(stdout.splitlines())]
    for text in candidates:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("task_id"), str) and data["task_id"]:
            return data
    return None


def _tail(text: str, lines: int = 10) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


# -- fail -------------------------------------------------------------------------------


def fail(run: Run) -> Outcome:
    """A tool call that fails, a fatal error event, a ``failed`` report, exit code 1."""
    run.think(f"Reading the objective: {run.task.objective}")
    with run.tool("read", "task.json"):
        pass
    with run.tool("bash", "pytest -q") as call:
        call.ok = False
    reason = "the test suite fails and the fix is beyond this task"
    run.events.append(Error(message=f"giving up: {reason}", fatal=True))
    summary = f"Failed: {reason}."
    print(f"demo agent: {summary}", file=sys.stderr)
    return Outcome(
        run.report(
            ReportStatus.FAILED,
            summary,
            details="This failure is scripted: the demo agent ran nothing.",
            commands_run=[
                CommandRun(command="pytest -q", exit_code=1, note="simulated by the demo agent")
            ],
            findings=[Finding(severity=Severity.HIGH, title="Tests fail", detail=reason)],
            next_steps=["Look at the failing tests yourself."],
        ),
        exit_code=1,
    )


# -- hang -------------------------------------------------------------------------------


def hang(run: Run) -> NoReturn:
    """One event, then sleep until killed. With ``"ignore_sigterm": true`` it ignores SIGTERM
    and spawns a grandchild in its process group that ignores it too, so only a SIGKILL of
    the whole group ends them. The pids go to ``hang.pids`` in the task directory."""
    run.say("Working on something that takes a very long time…")
    pids: dict[str, int] = {"agent": os.getpid()}
    if run.options.flag("ignore_sigterm"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # An ignored signal stays ignored across exec: the grandchild inherits it.
        sleeper = (
            ["sleep", "3600"]
            if shutil.which("sleep")
            else [sys.executable, "-c", "import time; time.sleep(3600)"]
        )
        grandchild = subprocess.Popen(
            sleeper, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        pids["grandchild"] = grandchild.pid
    atomic_write(run.paths.root / PIDS_FILE, dump_json(pids))
    print(json.dumps(pids), flush=True)
    run.events.close()
    while True:
        signal.pause()


# -- lie --------------------------------------------------------------------------------


def lie(run: Run) -> Outcome:
    """Declares ``src/parser.py`` modified (report and events) without touching it, and
    creates ``UNDECLARED.txt`` without a word, even in a read-only task: what it says and what
    it did must differ, for the orchestrator's reconciliation to catch."""
    run.think("Looking for the parser regression on empty inputs.")
    with run.tool("edit", LIE_CLAIMED):
        (run.workspace / LIE_ACTUAL).write_text(
            "Created by the demo agent's lie script, and left out of its report.\n",
            encoding="utf-8",
        )
    run.changed(LIE_CLAIMED, ChangeAction.MODIFIED)
    summary = "Fixed the parser regression on empty inputs."
    run.say(summary)
    return Outcome(
        run.report(
            ReportStatus.SUCCESS,
            summary,
            changes=[
                Change(
                    path=LIE_CLAIMED, action=ChangeAction.MODIFIED, summary="guard on empty input"
                )
            ],
        )
    )


# -- silent -----------------------------------------------------------------------------


def silent(run: Run) -> Outcome:
    """Works (in write mode it creates ``SILENT_NOTES.md``) but writes no report: only a final
    message on stdout, with a fenced ``json caesar:report`` block when ``"say_report": true``."""
    run.think(f"Reading the objective: {run.task.objective}")
    changes: list[Change] = []
    if run.task.mode is Mode.WRITE:
        action = run.append(SILENT_NOTES, f"- {run.task.objective}\n")
        changes.append(Change(path=SILENT_NOTES, action=action, summary="the objective, noted"))
    summary = f"Done, without a report file: {run.task.objective}"
    run.say(summary)
    message = summary
    if run.options.flag("say_report"):
        report = run.report(ReportStatus.SUCCESS, summary, changes=changes)
        block = json.dumps(report.to_json_dict(), indent=2, ensure_ascii=False)
        message += f"\n\n```json caesar:report\n{block}\n```"
    return Outcome(None, stdout=message)


SCRIPTS: dict[str, Callable[[Run], Outcome]] = {
    "followup": followup,
    "quick": quick,
    "work": work,
    "ask": ask,
    "delegate": delegate,
    "fail": fail,
    "hang": hang,
    "lie": lie,
    "silent": silent,
}
