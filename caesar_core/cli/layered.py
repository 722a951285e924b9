"""What the configuration-editing commands share: the layer options and how an edit is shown.

``--global`` and ``--local`` pick the layer (the project's ``.caesar/config.toml`` without
either), ``--dry-run`` prints the diff and writes nothing. An edit is written atomically once
the whole configuration it leaves has been checked (``caesar_core.config.edit``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from caesar_core.cli.common import emit_json
from caesar_core.terminal import safe_text

if TYPE_CHECKING:
    from caesar_core.configure import Change

F = TypeVar("F", bound=Callable[..., Any])


def layer_options(command: F) -> F:
    """``--global`` / ``--local`` (the function receives ``layer``) and ``--dry-run``."""

    def pick(ctx: click.Context, _: click.Parameter, value: str | None) -> str:
        return value or "project"

    command = click.option(
        "--dry-run", is_flag=True, help="Print the diff of the layer's file; write nothing."
    )(command)
    command = click.option(
        "--local",
        "layer",
        flag_value="local",
        callback=pick,
        help="Edit .caesar/config.local.toml (yours alone, git-ignored).",
    )(command)
    return click.option(
        "--global",
        "layer",
        flag_value="global",
        callback=pick,
        help="Edit the global layer ($XDG_CONFIG_HOME/caesar/config.toml).",
    )(command)


def show_change(change: Change, *, dry_run: bool, as_json: bool) -> None:
    """Write the change (unless ``dry_run``) and say what it was, or would be."""
    edit = change.edit
    if not dry_run:
        edit.write()
    if as_json:
        emit_json(
            {
                **change.data,
                "layer": edit.layer,
                "path": str(edit.path),
                "changed": edit.changed,
                "created": edit.created and edit.changed,
                "written": edit.changed and not dry_run,
                "summary": change.summary,
                "notes": list(change.notes),
                "diff": edit.diff(),
            }
        )
        return
    if not edit.changed:
        click.echo(safe_text(f"already so: {change.summary}; {edit.path} is unchanged"))
        return
    if dry_run:
        click.echo(safe_text(edit.diff().rstrip(), lines=True))
        click.echo(safe_text(f"would write {edit.path}: {change.summary}"))
    else:
        verb = "created" if edit.created else "wrote"
        click.echo(safe_text(f"{verb} {edit.path}: {change.summary}"))
    for note in change.notes:
        click.echo(safe_text(f"  note: {note}"))
