"""``caesar continue``: a follow-up turn of an ended task, followed like ``caesar run``."""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import project_options


@click.command("continue")
@click.argument("task_id")
@click.argument("message", required=False, default="")
@click.option("--timeout", help="Deadline, e.g. 90s, 10m, 1h (default: the previous turn's).")
@click.option(
    "--on",
    "on",
    metavar="ADDRESS",
    help="Run the turn on this Dask cluster (default: where the previous turn ran).",
)
@project_options
def continue_(
    task_id: str, message: str, timeout: str | None, on: str | None, root: Path, as_json: bool
) -> None:
    """Send TASK_ID's agent back to work: a new turn in the same worktree, from the same base.

    Same agent, model, mode and network; the brief carries the previous objective, MESSAGE,
    the hunks you rejected with your reasons and the output of the checks that failed. The
    agent's own session is resumed where its CLI can (else the turn starts fresh, and says
    so). Exits 0 only when the turn succeeded and its report says success.
    """
    from caesar_core.cli.tasks import follow_to_outcome, start_failed
    from caesar_core.config import DurationError, load_config, parse_duration
    from caesar_core.runner.engine import Runner, StartFailed

    try:
        timeout_ms = parse_duration(timeout) if timeout else None
    except DurationError as error:
        raise click.BadParameter(str(error), param_hint="--timeout") from None
    runner = Runner(root, load_config(root))
    previous = runner.store.get(task_id)
    address = on or (previous.executor.address if previous.executor else None)
    if address is not None and address != "local":
        from caesar_core.cli.tasks import run_remote
        from caesar_core.runner.delegation import Request

        asked = Request(objective=message or "continue", timeout_ms=timeout_ms)
        run_remote(root, address, asked, root, as_json, continues=task_id, message=message)
        return
    try:
        prepared = runner.prepare_followup(task_id, message, timeout_ms=timeout_ms)
    except StartFailed as failed:
        start_failed(failed, as_json)
    if not as_json:
        record = runner.store.get(prepared.task.id)
        session = f"  resuming session {record.resumed_session}" if record.resumed_session else ""
        click.echo(
            f"task {record.id}  turn {record.turn} of {record.chain}  {record.agent}"
            f"  {record.isolation.value}  {record.mode.value}{session}"
        )
    follow_to_outcome(runner, prepared, as_json)
