"""The project's checks (``[review] checks``), run by caesar itself: "don't trust the agent's
report, run the tests".

Each check is a shell command (``/bin/sh -c``, so a command that is not found fails with the
shell's own message) run in a session of its own, like an agent (``supervise.spawn_session``):
its stdout and stderr go to ``checks/<n>.log`` in the task directory (claimed through
:mod:`caesar_core.safefs`), and at its timeout it is stopped with every process it started
(``proctree.stop``) and recorded as timed out. What the checks print comes from the agent's
code (its tests): it is kept as text and shown escaped, like anything an agent wrote.

The results are caesar's (:class:`~caesar_core.store.record.CheckResult` in the record), and go
into the normalized report's ``commands_run`` marked ``"by": "caesar"``; an agent's own entry
claiming that mark is relabelled, so a report cannot pass its claims off as caesar's.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from caesar_core import reclaim, safefs
from caesar_core.config import Check
from caesar_core.errors import UsageError
from caesar_core.humanize import duration
from caesar_core.protocol.report import CommandRun, Finding, Report, ReportStatus, Severity
from caesar_core.protocol.taskdir import (
    ENV_AGENT,
    ENV_DEPTH,
    ENV_EVENTS_PATH,
    ENV_PROTOCOL_VERSION,
    ENV_REPORT_PATH,
    ENV_STREAM_EVENTS,
    ENV_TASK_DIR,
    ENV_TASK_FILE,
    ENV_TASK_ID,
)
from caesar_core.runner import proctree
from caesar_core.runner.slots import pid_alive
from caesar_core.runner.supervise import end_session, spawn_session
from caesar_core.store.record import (
    CheckResult,
    Checks,
    ChecksMark,
    ChecksState,
    TaskRecord,
    checks_mark,
)
from caesar_core.terminal import safe_text

BY_CAESAR = "caesar"
"""``commands_run[].by`` of the checks caesar ran."""
CHECKS_DIR = "checks"
"""Where the checks' output goes in the task directory: ``checks/<n>.log``."""
OUTPUT_TAIL_BYTES = 4000
"""How much of a check's output the record and the report keep (the log keeps it all)."""
CANCEL_POLL_S = 0.5
_TICK_S = 0.1
_TASK_VARIABLES = (
    ENV_TASK_DIR,
    ENV_TASK_FILE,
    ENV_REPORT_PATH,
    ENV_EVENTS_PATH,
    ENV_TASK_ID,
    ENV_AGENT,
    ENV_DEPTH,
    ENV_PROTOCOL_VERSION,
    ENV_STREAM_EVENTS,
)

Spawned = Callable[[int, Path | None], None]
"""Told each check's pid and cgroup as soon as it runs."""


def no_checks_error(where: str) -> UsageError:
    return UsageError(
        "no checks are configured for this project",
        f'add them to {where}: [review] checks = ["pytest -q", "ruff check ."]',
    )


def in_worktree(worktree: Path, root: Path, repo: Path | None) -> Path:
    """Where checks run: the project's root as it lies in a worktree of its repository (the
    project may be a folder of the repository)."""
    if repo is None:
        return worktree
    try:
        return worktree / root.resolve().relative_to(repo.resolve())
    except ValueError:
        return worktree


def check_environment(env: Mapping[str, str]) -> dict[str, str]:
    """caesar's environment for a check: without the ``CAESAR_*`` variables of a task (a
    check is not an agent: it has no task directory to report to)."""
    return {name: value for name, value in env.items() if name not in _TASK_VARIABLES}


def run_checks(
    checks: Sequence[Check],
    *,
    cwd: Path,
    env: Mapping[str, str],
    marker: str,
    task_dir: Path,
    log_dir: str = CHECKS_DIR,
    cancelled: Callable[[], bool] = lambda: False,
    deadline: float | None = None,
    on_spawn: Spawned | None = None,
    on_result: Callable[[list[CheckResult]], None] | None = None,
) -> list[CheckResult]:
    """Every check in turn (a failure does not skip the next ones), each ended before the next
    starts. ``marker`` is the ``CAESAR_TASK_ID`` its processes carry (how ``proctree`` finds
    them); ``deadline`` (a ``time.monotonic()`` value) is when the last of them must be stopped
    (a task's own deadline); once ``cancelled()``, the current check is stopped and the rest
    are recorded as cancelled. ``on_result`` gets the results so far after each check."""
    results: list[CheckResult] = []
    for number, check in enumerate(checks, start=1):
        if cancelled():
            result = CheckResult(command=check.command, cancelled=True)
        else:
            result = run_check(
                check,
                cwd=cwd,
                env=env,
                marker=marker,
                task_dir=task_dir,
                log=f"{log_dir}/{number}.log",
                cancelled=cancelled,
                deadline=deadline,
                on_spawn=on_spawn,
            )
        results.append(result)
        if on_result is not None:
            on_result(list(results))
    return results


def run_check(
    check: Check,
    *,
    cwd: Path,
    env: Mapping[str, str],
    marker: str,
    task_dir: Path,
    log: str,
    cancelled: Callable[[], bool] = lambda: False,
    deadline: float | None = None,
    on_spawn: Spawned | None = None,
) -> CheckResult:
    """One check to its end, its timeout (or ``deadline``) or its cancellation. Interrupted
    (Ctrl-C), it is stopped with its whole tree before the interruption goes on."""
    started = time.monotonic()
    stop_at = started + check.timeout.seconds
    if deadline is not None and deadline <= started:
        return CheckResult(
            command=check.command, timed_out=True, error="the task's deadline had passed"
        )
    if deadline is not None:
        stop_at = min(stop_at, deadline)
    try:
        fd, _ = reclaim.claim(task_dir, log, os.O_WRONLY | os.O_TRUNC)
    except OSError as error:
        return CheckResult(
            command=check.command, error=f"its output file cannot be written: {error}"
        )
    try:
        process, group = spawn_session(
            ["/bin/sh", "-c", check.command],
            cwd=cwd,
            env={**env, "PWD": str(cwd)},
            marker=marker,
            stdout=fd,
            stderr=subprocess.STDOUT,
        )
    except OSError as error:  # the directory is gone, /bin/sh is missing
        return CheckResult(
            command=check.command, error=f"it could not be started: {error.strerror}", log=log
        )
    finally:
        os.close(fd)  # the check holds its own copy
    if on_spawn is not None:
        with contextlib.suppress(OSError):
            on_spawn(process.pid, group)
    timed_out = stopped_by_cancel = False
    try:
        next_poll = 0.0
        while process.poll() is None:
            now = time.monotonic()
            if now >= stop_at:
                timed_out = True
                proctree.stop(marker, leader=process.pid, cgroup=group)
                break
            if now >= next_poll:
                next_poll = now + CANCEL_POLL_S
                if cancelled():
                    stopped_by_cancel = True
                    proctree.stop(marker, leader=process.pid, cgroup=group)
                    break
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=min(_TICK_S, max(0.0, stop_at - now)))
    except BaseException:
        proctree.stop(marker, leader=process.pid, cgroup=group)
        process.wait()
        end_session(process, marker, group)
        raise
    exit_code = process.wait()
    end_session(process, marker, group)
    # Stopped by someone else's cancel (``caesar cancel`` stops the task's processes itself).
    if exit_code != 0 and not timed_out and not stopped_by_cancel and cancelled():
        stopped_by_cancel = True
    duration_ms = int((time.monotonic() - started) * 1000)
    ended_alone = not (timed_out or stopped_by_cancel)
    return CheckResult(
        command=check.command,
        exit_code=exit_code if ended_alone else None,
        duration_ms=duration_ms,
        timed_out=timed_out,
        cancelled=stopped_by_cancel,
        output_tail=_tail(task_dir, log),
        log=log,
    )


def _tail(task_dir: Path, log: str) -> str:
    """The end of a check's output as text; what stands there now may be anything (the check
    ran the agent's code, which may have replaced its own log): read the safe way."""
    try:
        data = safefs.read_tail(task_dir, log, OUTPUT_TAIL_BYTES)
    except OSError as error:
        return f"(output not readable: {error})"
    return data.decode("utf-8", errors="replace")


def state_of(results: Sequence[CheckResult]) -> ChecksState:
    """Interrupted when one was cancelled, else passed when all passed, else failed."""
    if any(result.cancelled for result in results):
        return ChecksState.INTERRUPTED
    return ChecksState.PASSED if all(r.passed for r in results) else ChecksState.FAILED


def first_failure(results: Sequence[CheckResult]) -> CheckResult | None:
    """The first check that ran and did not pass (a cancelled one did not fail)."""
    return next((r for r in results if not r.passed and not r.cancelled), None)


def failure_reason(result: CheckResult) -> str:
    """``check `pytest -q` exits 1`` and the like: why a task whose check failed failed."""
    return f"check `{result.command}` {_verb(result)}"


def _verb(result: CheckResult) -> str:
    if result.error:
        return f"was not run ({result.error})"
    if result.timed_out:
        return f"timed out after {duration(result.duration_ms / 1000)}"
    if result.cancelled:
        return "was cancelled"
    return f"exits {result.exit_code}"


def command_run(result: CheckResult) -> CommandRun:
    """A result as an entry of the report's ``commands_run``, marked as caesar's."""
    return CommandRun.model_validate(
        {
            "command": result.command,
            "exit_code": result.exit_code,
            "note": f"run by caesar: {result.outcome}",
            "by": BY_CAESAR,
            "duration_ms": result.duration_ms,
            "timed_out": result.timed_out,
            "output_tail": result.output_tail,
        }
    )


def with_checks(report: Report, results: Sequence[CheckResult]) -> Report:
    """The normalized report with caesar's checks in ``commands_run`` and a finding for each
    that failed: ``high`` when the agent reported success."""
    agents: list[CommandRun] = []
    claimed = 0
    for run in report.commands_run:
        if (run.model_extra or {}).get("by") == BY_CAESAR:
            claimed += 1
            agents.append(CommandRun.model_validate({**run.model_dump(), "by": "agent"}))
        else:
            agents.append(run)
    findings = list(report.findings)
    if claimed:
        findings.append(
            Finding(
                severity=Severity.MEDIUM,
                title="Commands claimed as caesar's",
                detail=f"the agent's report marked {claimed} command(s) as run by caesar; "
                "they are the agent's claims, and are marked as the agent's",
            )
        )
    success = report.status is ReportStatus.SUCCESS
    for result in results:
        if result.passed or result.cancelled:
            continue
        detail = failure_reason(result)[len("check ") :]
        findings.append(
            Finding(
                severity=Severity.HIGH if success else Severity.MEDIUM,
                title="Check failed",
                detail=f"the agent reported success; {detail}" if success else detail,
            )
        )
    return report.model_copy(
        update={
            "commands_run": [*agents, *(command_run(result) for result in results)],
            "findings": findings,
        }
    )


def checks_json(task_id: str, checks: Checks | None) -> dict[str, object]:
    """A run of checks as ``caesar check --json``, ``caesar_check`` and ``caesar_await`` give
    it: ``{task_id, mark, state, hunks, started_at, ended_at, results: [{command, passed,
    exit_code, duration_ms, timed_out, cancelled, error, output_tail, log}]}``; ``mark`` is
    passed, failed, running or not run (``state`` is absent when there was no run)."""
    mark = checks_mark(checks, pid_alive).value
    if checks is None:
        return {"task_id": task_id, "mark": mark, "hunks": [], "results": []}
    data = {"mark": mark, **checks.model_dump(mode="json", exclude={"pid", "results"})}
    data["results"] = [
        {"passed": result.passed, **result.model_dump(mode="json")} for result in checks.results
    ]
    return {"task_id": task_id, **data}


def check_line(result: CheckResult) -> str:
    """``✓ pytest -q  1.2s  exit 0``: one check, as the CLI lists it (made terminal-safe)."""
    mark = "✓" if result.passed else "-" if result.cancelled else "✗"
    took = duration(result.duration_ms / 1000)
    return safe_text(f"{mark} {result.command}  {took}  {result.outcome}")


def failure_lines(result: CheckResult, count: int = 5) -> list[str]:
    """The last lines of a failed check's output (the shell's message for a command that is
    not found), made terminal-safe."""
    lines = [line for line in result.output_tail.splitlines() if line.strip()]
    return [safe_text(line) for line in lines[-count:]]


def apply_warning(record: TaskRecord) -> str | None:
    """What an apply's confirmation says of the task's checks when they did not pass: failed,
    still running, or never run (None when they passed)."""
    mark = checks_mark(record.checks, pid_alive)
    if mark is ChecksMark.PASSED:
        return None
    if mark is ChecksMark.RUNNING:
        return "caesar's checks of this task are still running"
    failed = first_failure(record.checks.results) if record.checks else None
    if mark is ChecksMark.FAILED and failed is not None:
        return f"caesar's checks failed: {failure_reason(failed)}"
    return f"caesar's checks have not run on this task (caesar check {record.id})"
