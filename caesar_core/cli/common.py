"""What every project command shares: ``--root``, ``--json``, and how results are printed."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from caesar_core.cli.render import json_text, table_text
from caesar_core.terminal import quote_path

if TYPE_CHECKING:
    from caesar_core.clientfiles import Installation
    from caesar_core.git import FileChange

F = TypeVar("F", bound=Callable[..., Any])


def project_options(command: F) -> F:
    """``--root DIR`` and ``--json`` on a command; the function receives ``project``."""

    def resolve(ctx: click.Context, _: click.Parameter, value: Path | None) -> Path:
        from caesar_core.store import find_root

        return find_root(value)

    command = click.option(
        "--json", "as_json", is_flag=True, help="Machine output: JSON on stdout, nothing else."
    )(command)
    return click.option(
        "--root",
        type=click.Path(path_type=Path),
        callback=resolve,
        help="Project root (default: nearest directory with .caesar/ or .git, else the cwd).",
    )(command)


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Around a command's imports of its machinery (``caesar run``: pydantic's models, git):
    the cyclic collector paused, as every object they make lives as long as the process, then
    those objects frozen (``gc.freeze``), so no later collection walks them again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def emit_json(value: Any) -> None:
    """JSON on stdout: exact values, with what a terminal would act on as ``\\uNNNN``."""
    click.echo(json_text(value), nl=False)


def table(rows: list[list[str]], headers: list[str]) -> None:
    """A plain aligned table (:func:`caesar_core.cli.render.table_text`) on stdout."""
    click.echo(table_text(rows, headers), nl=False)


def change_line(change: FileChange) -> str:
    """One changed file as ``diff --stat`` and ``run`` list it: action, quoted path, counts,
    and for a symbolic link where it points."""
    moved = f" (from {quote_path(change.old_path)})" if change.old_path else ""
    line = f"{change.action:<9} {quote_path(change.path)}{moved}"
    line += f"  +{change.additions} -{change.deletions}"
    return line + (f"  {link_note(change)}" if change.link_target is not None else "")


def link_note(change: FileChange) -> str:
    """``symlink -> TARGET``, and whether that leaves the repository."""
    outside = " (points outside the repository)" if change.link_outside else ""
    return f"symlink -> {quote_path(change.link_target or '')}{outside}"


def apply_installation(installation: Installation, *, dry_run: bool, as_json: bool) -> None:
    """Write a client file's change (unless ``dry_run``) and say what it was, or would be."""
    if not dry_run and installation.changed:
        installation.write()
    if as_json:
        emit_json(
            {
                "client": installation.client,
                "path": str(installation.path),
                "changed": installation.changed,
                "written": installation.changed and not dry_run,
                "diff": installation.diff(),
            }
        )
        return
    if not installation.changed:
        click.echo(f"{installation.path}: already up to date")
        return
    click.echo(installation.diff().rstrip())
    verb = "would write" if dry_run else "wrote"
    click.echo(f"{verb} {installation.path}")
