"""``caesar watch``, joined to the ``caesar`` command as a plugin (see pyproject.toml)."""

from __future__ import annotations

import gc
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from caesar_core.cli.common import project_options


@click.command()
@click.argument("task_ids", nargs=-1)
@click.option("--once", is_flag=True, help="Print one text frame and exit (also when piped).")
@click.option("--poll", is_flag=True, help="Poll instead of file notifications (network disks).")
@click.option("--demo", is_flag=True, help="Start demo tasks in a throwaway repository and watch.")
@click.option(
    "--no-notify",
    is_flag=True,
    help="No desktop notification or bell for questions, approvals and ended tasks "
    "(the config's [watch] notify = false does the same).",
)
@project_options
def watch(
    task_ids: tuple[str, ...],
    once: bool,
    poll: bool,
    demo: bool,
    no_notify: bool,
    root: Path,
    as_json: bool,
) -> None:
    """Watch tasks live: answer their questions, review and apply their diffs."""
    from caesar_core.store import check_task_id

    for task_id in task_ids:
        check_task_id(task_id)
    if demo:
        from caesar_tui.demo import start_demo

        root = start_demo()
    if once or as_json or not sys.stdout.isatty():
        from caesar_tui.frame import text_frame

        click.echo(text_frame(root, datetime.now(UTC), task_ids), nl=False)
        return
    # What is imported and read from here to the first frame lives as long as the app: the
    # cyclic collector, which walked that growing heap hundreds of times (a sixth of the
    # time to the first frame), is paused until the app has drawn it (``freeze_gc``).
    gc.disable()
    from caesar_core.config import load_config
    from caesar_tui.app import make_app

    settings = load_config(root).config.watch  # a bad [watch] stops here, located
    app = make_app(
        root,
        only=task_ids,
        poll=poll,
        notify=settings.notify and not no_notify,
        keys=settings.keys,
        freeze_gc=True,
    )
    # Read before the app runs: its first frame shows the project, not an empty screen drawn
    # first and again once the scan is read.
    app.read_first(shutil.get_terminal_size().lines)
    app.run()


@click.command("config")
@project_options
def config(root: Path, as_json: bool) -> None:
    """Browse and edit the configuration: agents, roles and the policy, each value with the
    layer it came from; each edit checked whole before it is written to the chosen layer.
    With --json or a stdout that is not a terminal: what it shows, printed once."""
    from caesar_core.errors import ExitCode
    from caesar_tui.config_data import read_settings, settings_json, settings_text

    if as_json or not sys.stdout.isatty():
        settings = read_settings(root)
        if as_json:
            from caesar_core.cli.common import emit_json

            emit_json(settings_json(settings))
        else:
            click.echo(settings_text(settings), nl=False)
        if settings.problem is not None:
            raise SystemExit(int(ExitCode.USAGE))
        return
    from caesar_tui.config_app import ConfigApp

    ConfigApp(root).run()
