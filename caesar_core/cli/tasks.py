"""The task commands: ``run``, ``ps``, ``logs``, ``cancel``, ``answer``."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from caesar_core.cli.common import change_line, emit_json, loading, project_options
from caesar_core.errors import ExitCode
from caesar_core.terminal import json_safe_bytes, quote_path, safe_text

if TYPE_CHECKING:
    from caesar_core.events import EventTail
    from caesar_core.events.tail import BadLine
    from caesar_core.executor.dask import DaskExecutor
    from caesar_core.protocol.event import FinishedEvent
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.engine import Runner, StartFailed
    from caesar_core.runner.outcome import Outcome, Prepared
    from caesar_core.store import TaskStore
    from caesar_core.store.record import TaskRecord


@click.command(context_settings={"ignore_unknown_options": False})
@click.argument("objective")
@click.argument("extra", nargs=-1, type=click.UNPROCESSED)
@click.option("--agent", help="The agent to delegate to (see `caesar agents list`).")
@click.option("--role", help="A role from the configuration; picks the first usable agent.")
@click.option("--mode", type=click.Choice(["read-only", "write"]))
@click.option("--isolation", type=click.Choice(["inplace", "worktree", "auto"]))
@click.option("--network", type=click.Choice(["auto", "on", "off"]))
@click.option("--timeout", help="Deadline, e.g. 90s, 10m, 1h (default: the policy's).")
@click.option("--model", help="The model the agent should use, when it can be told.")
@click.option("--context", help="Context for the agent: text, or @FILE to read it from a file.")
@click.option("--channel", is_flag=True, help="Offer the agent the MCP return channel.")
@click.option(
    "--on",
    "on",
    metavar="ADDRESS",
    help="Run it on a Dask cluster (tcp://HOST:PORT of its scheduler), or `local` to run it "
    "here whatever [executor] address says.",
)
@project_options
def run(
    objective: str,
    extra: tuple[str, ...],
    agent: str | None,
    role: str | None,
    mode: str | None,
    isolation: str | None,
    network: str | None,
    timeout: str | None,
    model: str | None,
    context: str | None,
    channel: bool,
    on: str | None,
    root: Path,
    as_json: bool,
) -> None:
    """Delegate OBJECTIVE to an agent and follow it to its report.

    Arguments after `--` are passed to the agent's command line as they are. Exits 0 only when
    the agent's process succeeded and its report says success.
    """
    with loading():
        from caesar_core.config import DurationError, load_config, parse_duration
        from caesar_core.protocol.task import Mode
        from caesar_core.runner.delegation import Request

    if extra and "--" not in sys.argv:
        raise click.UsageError(
            f"unexpected argument {extra[0]!r}: arguments for the agent go after `--`"
        )
    try:
        timeout_ms = parse_duration(timeout) if timeout else None
    except DurationError as error:
        raise click.BadParameter(str(error), param_hint="--timeout") from None
    request = Request(
        objective=objective,
        agent=agent,
        role=role,
        mode=Mode(mode) if mode else None,
        isolation=isolation,  # type: ignore[arg-type]
        network=network,  # type: ignore[arg-type]
        timeout_ms=timeout_ms,
        model=model,
        context=_context(context),
        channel=channel,
        extra_args=extra,
    )
    loaded = load_config(root)
    workspace = _workspace(root)
    address = executor_address(on, loaded.config.executor.address)
    if address is not None:
        run_remote(root, address, request, workspace, as_json)
        return
    with loading():  # a remote task needs no runner
        from caesar_core.runner.engine import Runner, StartFailed

    runner = Runner(root, loaded)
    try:
        prepared = runner.prepare(request, workspace)
    except StartFailed as failed:
        start_failed(failed, as_json)
    if not as_json:
        click.echo(
            f"task {prepared.task.id}  {prepared.plan.adapter.id}"
            f"  {prepared.plan.isolation.value}  {prepared.plan.mode.value}"
        )
    follow_to_outcome(runner, prepared, as_json)


def executor_address(on: str | None, configured: str | None) -> str | None:
    """The scheduler a task is sent to: ``--on``, else ``[executor] address``; None (and
    ``--on local``): this machine."""
    chosen = on or configured
    if chosen is None or chosen == "local":
        return None
    if "://" not in chosen:
        raise click.BadParameter(
            f"{chosen!r} is not a scheduler address (tcp://HOST:PORT) nor `local`",
            param_hint="--on",
        )
    return chosen


def start_failed(failed: StartFailed, as_json: bool) -> NoReturn:
    """A task that was created but could not start: its outcome, then exit 1."""
    if as_json:
        emit_json(outcome_json(failed.outcome))
    else:
        print_outcome(failed.outcome)
        if failed.outcome.report.details:
            click.echo(safe_text(failed.outcome.report.details.rstrip(), lines=True))
    raise SystemExit(int(ExitCode.FAILURE)) from None


def follow_to_outcome(runner: Runner, prepared: Prepared, as_json: bool) -> None:
    """The notes of the task's preparation, its events live, then its outcome; exit 0 only
    when the agent's process succeeded and its report says success."""
    if not as_json:
        for finding in prepared.findings:
            click.echo(safe_text(f"  note: {finding.title}: {finding.detail}"))
    conclude_outcome(execute_live(runner, prepared, as_json), as_json)


def conclude_outcome(outcome: Outcome, as_json: bool) -> None:
    """The outcome shown; exit 0 only when the agent's process succeeded and its report says
    success."""
    ok = outcome.record.status.value == "succeeded" and outcome.report.status.value == "success"
    if as_json:
        emit_json(outcome_json(outcome))
    else:
        print_outcome(outcome)
    if not ok:
        raise SystemExit(int(ExitCode.FAILURE))


def execute_live(runner: Runner, prepared: Prepared, as_json: bool) -> Outcome:
    """Run the task on a worker thread while this one prints its events as they land.

    Ctrl-C asks the runner to stop the agent (SIGTERM, then SIGKILL after the grace period)
    and still waits for the task to conclude, so an interrupted run leaves a report.
    """
    task_id = prepared.task.id
    interrupted = threading.Event()
    finished = threading.Event()
    spawned = threading.Event()
    """Set once the agent runs (or the task ended without it): until then, the worker thread
    is laying the agent's start down, and the log's reader would compete with it for the
    interpreter (its imports, its validators) on the way to the agent's start."""
    result: dict[str, Any] = {}

    def waiting(holders: list[Any]) -> None:
        if not as_json:
            names = ", ".join(h.label for h in holders) or "other tasks"
            click.echo(f"  waiting for a free slot (max_parallel): held by {names}", err=True)

    def work() -> None:
        try:
            result["outcome"] = runner.execute(
                prepared, on_wait=waiting, interrupted=interrupted.is_set, on_spawn=spawned.set
            )
        except BaseException as error:  # reported on the main thread
            result["error"] = error
        finally:
            finished.set()
            spawned.set()

    worker = threading.Thread(target=work, name=f"caesar-run-{task_id}")
    worker.start()
    try:
        if as_json:
            finished.wait()
        else:
            spawned.wait()
            follow_events(runner.store, prepared.task.id, finished)
    except KeyboardInterrupt:
        interrupted.set()
        if not as_json:
            click.echo("\ninterrupted: stopping the agent…", err=True)
        finished.wait()
    worker.join()
    if "error" in result:
        raise result["error"]
    outcome: Outcome = result["outcome"]
    return outcome


def run_remote(
    root: Path,
    address: str,
    request: Request,
    workspace: Path,
    as_json: bool,
    *,
    continues: str | None = None,
    message: str = "",
) -> None:
    """Hand the task to the cluster, print its events as they come back, then its outcome."""
    from caesar_core.executor.dask import DaskExecutor
    from caesar_core.store import TaskStore

    executor = DaskExecutor(TaskStore(root), address, fork=True)  # this process only waits
    task_id = executor.start(request, workspace, continues=continues, message=message)
    # What the outcome is shown with, imported while the shepherd sends the task, not after.
    importlib.import_module("caesar_core.runner.engine")
    if not as_json:
        record = executor.store.get(task_id)
        turn = f"  turn {record.turn} of {record.chain}" if record.continues else ""
        click.echo(f"task {task_id}  {record.agent}{turn}  worktree  on {address}")
    conclude_outcome(wait_live(executor, task_id, as_json), as_json)


def wait_live(executor: DaskExecutor, task_id: str, as_json: bool) -> Outcome:
    """The remote task's events as they land here, until its result has landed; Ctrl-C
    cancels it (on its worker) and still waits for its conclusion."""
    interrupted = threading.Event()
    finished = threading.Event()
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["outcome"] = executor.wait(task_id, interrupted=interrupted.is_set)
        except BaseException as error:  # reported on the main thread
            result["error"] = error
        finally:
            finished.set()

    worker = threading.Thread(target=work, name=f"caesar-remote-{task_id}")
    worker.start()
    try:
        if as_json:
            finished.wait()
        else:
            follow_events(executor.store, task_id, finished)
    except KeyboardInterrupt:
        interrupted.set()
        if not as_json:
            click.echo("\ninterrupted: cancelling the task on its worker…", err=True)
        finished.wait()
    worker.join()
    if "error" in result:
        raise result["error"]
    outcome: Outcome = result["outcome"]
    return outcome


def _context(value: str | None) -> str:
    if not value:
        return ""
    if value.startswith("@"):
        path = Path(value[1:]).expanduser()
        try:
            return path.read_text(encoding="utf-8")
        except OSError as error:
            raise click.BadParameter(
                f"cannot read {path}: {error.strerror}", param_hint="--context"
            ) from None
    return value


def _workspace(root: Path) -> Path:
    """The cwd when it lies inside the project, else the project root."""
    here = Path.cwd().resolve()
    return here if here == root or root in here.parents else root


FOLLOW_S = 0.05
"""How often ``caesar run`` looks for new events in the log: what it costs is a ``stat``."""


def follow_events(store: TaskStore, task_id: str, done: threading.Event) -> None:
    """Print the task's events as they land until ``done``, then its ending.

    The log is read by offset every :data:`FOLLOW_S` (the latency a file watcher's debounce
    had), and the wait ends the moment the task has concluded."""
    from caesar_core.events import EventTail

    printer = _EventPrinter(as_json=False)
    paths = store.paths(task_id)
    with EventTail(paths.events) as tail:
        while not done.wait(FOLLOW_S):
            printer.batch(tail)
        printer.batch(tail)
    # The task is concluded: its record names caesar's own finished event.
    printer.settle(store.get(task_id))


class _EventPrinter:
    """A task's events as they land, on stdout; ``finished`` events wait for :meth:`settle`.

    Agents can append any line to their log, one that looks like caesar's ending too: only the
    ``finished`` event caesar's record names (``finished_seq``) is shown as the outcome, so
    such events are held until the record can be asked, then shown for what they are.

    With ``--json`` the log passes through: each valid line is written as the file holds it,
    byte for byte (key order, ``…20.000Z``), never parsed and dumped again; only a ``finished``
    line caesar did not write gains a ``not_caesars`` member, and characters a terminal would
    act on become JSON escapes (``terminal.json_safe_bytes``: the same values).
    """

    def __init__(self, *, as_json: bool) -> None:
        from caesar_core.events import EventFormatter

        self.as_json = as_json
        self.formatter = EventFormatter()
        self._held: list[tuple[FinishedEvent, bytes]] = []
        self._problem = ""

    def batch(self, tail: EventTail) -> None:
        """What the log holds that was not shown yet; with ``--json``, a bounded batch of lines
        at a time, their events dropped once judged (a ``finished`` one is held)."""
        from caesar_core.protocol.event import FinishedEvent

        if self.as_json:
            for passed in tail.pass_on(hold=FinishedEvent):
                self._held.extend(
                    (e, line) for e, line in passed.held if isinstance(e, FinishedEvent)
                )
                self._write(passed.lines)
                self._report(passed.bad)
        else:
            batch = tail.read()
            for event, line in zip(batch.events, batch.lines, strict=True):
                if isinstance(event, FinishedEvent):
                    self._held.append((event, line))
                else:
                    click.echo(self.formatter.format(event))
            self._report(batch.bad)
        if tail.problem and tail.problem != self._problem:
            click.echo(safe_text(f"caesar: the events log is not read: {tail.problem}"), err=True)
        self._problem = tail.problem

    @staticmethod
    def _report(bad: list[BadLine]) -> None:
        for line in bad:
            click.echo(
                safe_text(f"caesar: events line {line.line} skipped: {line.reason}"), err=True
            )

    def settle(self, record: TaskRecord) -> None:
        """Show the held ``finished`` events, judged by ``record``; when the task ended and
        none of them is caesar's, say the outcome from the record."""
        if record.legacy_ending:
            self.formatter.trust_any()
        else:
            self.formatter.trust_finished(record.ending_seq)
        held, self._held = self._held, []
        shown = False
        for event, line in held:
            ours = self.formatter.caesars(event)
            shown = shown or ours
            if not self.as_json:
                click.echo(self.formatter.format(event))
            else:
                self._write([line if ours else _not_caesars(line)])
        if record.status.terminal and not shown and not self.as_json:
            why = f": {record.ended_reason}" if record.ended_reason else ""
            click.echo(safe_text(f"caesar's record: {record.status.value}{why}"))

    @staticmethod
    def _write(lines: list[bytes]) -> None:
        """Lines as they are, in one write (a log of a million lines is not a million echoes)."""
        if not lines:
            return
        sys.stdout.flush()
        sys.stdout.buffer.write(json_safe_bytes(b"\n".join([*lines, b""])))
        sys.stdout.buffer.flush()


_NOT_CAESARS = b',"not_caesars":"a finished event caesar did not write"}'


def _not_caesars(line: bytes) -> bytes:
    """A valid ``finished`` line, its bytes kept, with caesar's mark as a last member."""
    return line.rstrip()[:-1] + _NOT_CAESARS


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """What ``caesar run --json`` and ``caesar continue --json`` print; a follow-up turn's
    ``diff`` is its own changes (``caesar diff`` shows the whole work)."""
    from caesar_core.review.checks import checks_json

    record, diff = outcome.record, outcome.diff
    return {
        "task_id": record.id,
        "status": record.status.value,
        "continues": record.continues,
        "turn": record.turn,
        "task_dir": str(outcome.paths.root),
        "workspace": record.workspace,
        "report": outcome.report.to_json_dict(),
        "report_source": record.report_source.value if record.report_source else None,
        "changes_verified_by": (
            record.changes_verified_by.value if record.changes_verified_by else None
        ),
        "diff": {
            "files": [f.path for f in diff.files] if diff else [],
            "is_empty": diff.is_empty if diff else True,
        },
        "checks": checks_json(record.id, record.checks),
    }


def print_outcome(outcome: Outcome) -> None:
    from caesar_core.review.checks import check_line

    record, report = outcome.record, outcome.report
    source = record.report_source.value if record.report_source else "?"
    click.echo(
        f"\ntask {record.id}: {record.status.value} (report {report.status.value} via {source})"
    )
    click.echo(f"  {safe_text(report.summary)}")
    if outcome.diff is not None:
        if outcome.diff.files:
            click.echo("files changed (according to git):")
            for file in outcome.diff.files:
                click.echo(f"  {change_line(file)}")
        else:
            click.echo("no files changed (according to git)")
    elif report.changes:
        click.echo("files changed (as declared; no git to check):")
        for change in report.changes:
            click.echo(f"  {change.action.value:<9} {quote_path(change.path)}")
    for finding in report.findings:
        shown = f"  [{finding.severity.value}] {finding.title}: {finding.detail}".rstrip(": ")
        click.echo(safe_text(shown))
    if record.checks is not None and record.checks.results:
        click.echo("checks (run by caesar):")
        for result in record.checks.results:
            click.echo(f"  {check_line(result)}")
    if record.worktree_path and outcome.diff is not None and outcome.diff.files:
        click.echo(f"review: caesar diff {record.id}   apply: caesar apply {record.id}")


@click.command()
@click.option("--all", "show_all", is_flag=True, help="Every task, not only the recent ones.")
@click.option(
    "--status",
    "statuses",
    help="Only these statuses, comma separated (pending, running, succeeded, failed, "
    "cancelled, timed_out).",
)
@project_options
def ps(show_all: bool, statuses: str | None, root: Path, as_json: bool) -> None:
    """List tasks as a delegation tree: active ones, then the 10 most recent that ended."""
    from caesar_core.cli.ps_view import UnknownStatusError, show

    try:
        out, err, code = show(root, show_all=show_all, statuses=statuses, as_json=as_json)
    except UnknownStatusError as error:
        raise click.BadParameter(str(error), param_hint="--status") from None
    click.echo(err, err=True, nl=False)
    click.echo(out, nl=False)
    if code:
        raise SystemExit(code)


@click.command()
@click.argument("task_id")
@click.option("--follow", "-f", is_flag=True, help="Keep printing until the task ends.")
@click.option("--raw", is_flag=True, help="The agent's raw output (raw.log), not its events.")
@project_options
def logs(task_id: str, follow: bool, raw: bool, root: Path, as_json: bool) -> None:
    """Print a task's events (or raw output), optionally following it live."""
    from caesar_core.events import EventTail, LineTail
    from caesar_core.runner.abandoned import needs_sweep
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    record = store.get(task_id)
    if needs_sweep(record):  # an abandoned task concluded, then shown (the sweep loaded for it)
        from caesar_core.runner.sweep import sweep_one

        _, problem = sweep_one(store, record)
        if problem:
            click.echo(safe_text(f"caesar: {problem}"), err=True)
    paths = store.paths(task_id)
    printer = _EventPrinter(as_json=as_json)

    told = [""]

    def flush_raw(tail: LineTail) -> None:
        for line in tail.read().lines:
            click.echo(safe_text(line.decode("utf-8", errors="replace"), lines=True))
        if tail.problem and tail.problem != told[0]:
            click.echo(safe_text(f"caesar: raw.log is not read: {tail.problem}"), err=True)
        told[0] = tail.problem

    with EventTail(paths.events) as events, LineTail(paths.raw_log) as lines:

        def flush() -> None:
            if raw:
                flush_raw(lines)
            else:
                printer.batch(events)

        flush()
        if not follow:
            if not raw:
                printer.settle(store.get(task_id))
            return
        from watchfiles import watch

        stop = threading.Event()
        try:
            for _ in watch(
                paths.root,
                debounce=50,
                rust_timeout=500,
                yield_on_timeout=True,
                recursive=False,
                stop_event=stop,
            ):
                flush()
                record = store.get(task_id)
                if record.status.terminal:
                    flush()
                    if not raw:
                        printer.settle(store.get(task_id))
                    stop.set()
        except KeyboardInterrupt:
            return


@click.command()
@click.argument("task_id")
@project_options
def cancel(task_id: str, root: Path, as_json: bool) -> None:
    """Cancel a task from any terminal: its agent is stopped, its status is `cancelled`."""
    from caesar_core.runner.control import cancel_task
    from caesar_core.store import TaskStore

    done = cancel_task(TaskStore(root), task_id)
    record = done.record
    if as_json:
        emit_json(
            {
                "task_id": task_id,
                "cancelled": done.cancelled,
                "status": record.status.value,
                "signalled": done.signalled,
                "alive": done.alive,
                "concluded_by": done.concluded_by,
                "notes": done.notes,
            }
        )
    elif done.cancelled:
        count = len(done.signalled)
        stopped = (
            f"stopped {count} process{'es' if count != 1 else ''} "
            f"(pid {', '.join(map(str, done.signalled))}), none left alive"
            if count
            else "no process of it was left to stop"
        )
        click.echo(
            safe_text(f"cancelled {task_id}: {stopped}; ending written by {done.concluded_by}")
        )
        for note in done.notes:
            click.echo(safe_text(f"note: {note}"))
    else:
        click.echo(
            safe_text(f"{task_id} had already ended: {record.status.value}; nothing to cancel")
        )


@click.command()
@click.argument("task_id")
@click.argument("question_id")
@click.argument("answer_text", metavar="ANSWER")
@project_options
def answer(task_id: str, question_id: str, answer_text: str, root: Path, as_json: bool) -> None:
    """Answer a task's pending question (as shown by `caesar ps` and `caesar watch`)."""
    from caesar_core.runner.control import answer as answer_question
    from caesar_core.store import TaskStore

    reply = answer_question(TaskStore(root), task_id, question_id, answer_text, by="cli")
    if as_json:
        emit_json({"answered": True, **reply.to_json_dict()})
    else:
        click.echo(safe_text(f"answered {question_id} of {task_id}: {answer_text}"))
