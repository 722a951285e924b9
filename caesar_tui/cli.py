"""``caesar watch``, joined to the ``caesar`` command as a plugin (see pyproject.toml)."""

from __future__ import annotations

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
@project_options
def watch(
    task_ids: tuple[str, ...], once: bool, poll: bool, demo: bool, root: Path, as_json: bool
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
    from caesar_tui.app import make_app

    make_app(root, only=task_ids, poll=poll).run()
