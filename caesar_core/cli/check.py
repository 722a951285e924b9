"""``caesar check ID [--hunk …]``: the project's checks, run by caesar, on demand."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from caesar_core.cli.common import emit_json, project_options
from caesar_core.errors import ExitCode

if TYPE_CHECKING:
    from caesar_core.config import LoadedConfig
    from caesar_core.review.hunks import Pick
    from caesar_core.store.record import Checks


@click.command()
@click.argument("task_id")
@click.option(
    "--hunk",
    "hunks",
    multiple=True,
    metavar="HUNK_ID[:N-M]",
    help="Only this hunk (or its changed lines N-M), in a scratch worktree at the task's base "
    "commit (repeatable; ids from `caesar diff ID --json`).",
)
@project_options
def check(task_id: str, hunks: tuple[str, ...], root: Path, as_json: bool) -> None:
    """Run the project's checks ([review] checks) on a task now: in its worktree, or with
    --hunk on those hunks alone, in a scratch worktree removed afterwards.

    One line per check (✓/✗, command, duration, exit); exit 0 when all passed, 1 when one
    failed, 2 when there are no checks to run (or the request is wrong).
    """
    from caesar_core.config import load_config
    from caesar_core.review.checks import check_line, checks_json, failure_lines
    from caesar_core.review.hunks import parse_pick
    from caesar_core.store.record import ChecksState

    picks = [parse_pick(spec) for spec in hunks]
    run = _run_interruptibly(root, load_config(root), task_id, picks, as_json=as_json)
    if as_json:
        emit_json(checks_json(task_id, run))
    else:
        on = f"hunks {', '.join(run.hunks)} alone" if run.hunks else "the whole task"
        click.echo(f"checks of {task_id} on {on}:")
        for result in run.results:
            click.echo(f"  {check_line(result)}")
            if not result.passed and not result.cancelled:
                for line in failure_lines(result):
                    click.echo(f"      {line}")
    if run.state is not ChecksState.PASSED:
        raise SystemExit(int(ExitCode.FAILURE))


def _run_interruptibly(
    root: Path, config: LoadedConfig, task_id: str, picks: list[Pick], *, as_json: bool
) -> Checks:
    """The checks on a worker thread; Ctrl-C (or SIGTERM) here stops the running check with
    every process it started and lets the worker remove the scratch worktree, then ends."""
    from caesar_core.review.verify import check_task

    interrupted = threading.Event()
    finished = threading.Event()  # waited on, never the thread: an interrupted join lies
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["run"] = check_task(root, config, task_id, picks, cancelled=interrupted.is_set)
        except BaseException as error:  # raised on the main thread
            result["error"] = error
        finally:
            finished.set()

    worker = threading.Thread(target=work, name=f"caesar-check-{task_id}")
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        worker.start()
        try:
            finished.wait()
        except KeyboardInterrupt:
            interrupted.set()
            if not as_json:
                click.echo("\ninterrupted: stopping the checks…", err=True)
            finished.wait()
            raise click.Abort() from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    worker.join()
    if "error" in result:
        raise result["error"]
    run: Checks = result["run"]
    return run


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
