"""``caesar check ID [--hunk …]``: the project's checks, run by caesar, on demand."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import click

from caesar_core.cli.common import emit_json, project_options
from caesar_core.errors import ExitCode


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
    from caesar_core.review.verify import check_task
    from caesar_core.store.record import ChecksState

    picks = [parse_pick(spec) for spec in hunks]
    config = load_config(root)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # the scratch worktree goes too
    try:
        run = check_task(root, config, task_id, picks)
    finally:
        signal.signal(signal.SIGTERM, previous)
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


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
