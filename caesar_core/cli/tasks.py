"""``caesar run`` (here, or on a Dask cluster with ``--on``), the task followed live to its
outcome; and ``caesar ps``, the click command of ``cli.ps_view``."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from caesar_core.cli.common import emit_json, loading, project_options
from caesar_core.cli.event_view import EventPrinter, outcome_json, print_outcome
from caesar_core.errors import ExitCode
from caesar_core.terminal import safe_text

if TYPE_CHECKING:
    from caesar_core.executor.dask import DaskExecutor
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.engine import Runner, StartFailed
    from caesar_core.runner.outcome import Outcome, Prepared
    from caesar_core.store import TaskStore


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

    printer = EventPrinter(as_json=False)
    paths = store.paths(task_id)
    with EventTail(paths.events) as tail:
        while not done.wait(FOLLOW_S):
            printer.batch(tail)
        printer.batch(tail)
    # The task is concluded: its record names caesar's own finished event.
    printer.settle(store.get(task_id))


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
