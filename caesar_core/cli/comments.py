"""Review comments from the command line: ``comment`` (add, ``--resolve``) and ``comments``."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from caesar_core.cli.common import emit_json, project_options
from caesar_core.errors import ExitCode
from caesar_core.terminal import quote_path, safe_text

if TYPE_CHECKING:
    from caesar_core.review.comments import Comments, Placed


def author() -> str:
    """Who comments from this terminal: the login name, else ``you``."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "you"


def parse_location(spec: str) -> tuple[str, int, int]:
    """``PATH:LINE`` or ``PATH:LINE-LINE`` (the path may hold colons: the last one counts)."""
    path, _, lines = spec.rpartition(":")
    first, _, last = lines.partition("-")
    if not path or not first.isdigit() or (last and not last.isdigit()) or int(first) < 1:
        raise click.UsageError(
            f"{safe_text(spec)!r} is not PATH:LINE or PATH:LINE-LINE "
            "(lines of the new side, as `caesar diff ID --hunks` numbers them: e.g. src/a.py:12-14)"
        )
    start = int(first)
    end = int(last) if last else start
    return path, min(start, end), max(start, end)


@click.command()
@click.argument("task_id")
@click.argument("location", required=False, metavar="PATH:LINE[-LINE]")
@click.argument("text", required=False)
@click.option("--resolve", "resolve_id", metavar="COMMENT_ID", help="Resolve this comment.")
@project_options
def comment(
    task_id: str,
    location: str | None,
    text: str | None,
    resolve_id: str | None,
    root: Path,
    as_json: bool,
) -> None:
    """Comment on lines of a task's diff (the new side), or --resolve a comment.

    The comment follows its code when the agent edits around it, goes to the agent in the
    next turn's brief (`caesar continue`), and stays until you resolve it.
    """
    from caesar_core.review.comments import add_comment, line_span, resolve_comment
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    if resolve_id is not None:
        if location or text:
            raise click.UsageError("--resolve takes a COMMENT_ID alone, no PATH:LINE nor TEXT")
        resolved = resolve_comment(store, store.get(task_id), resolve_id)
        if as_json:
            emit_json({"task_id": task_id, "resolved": resolved.id})
        else:
            click.echo(f"resolved {resolved.id}")
        return
    if not location or text is None:
        raise click.UsageError(
            "give PATH:LINE[-LINE] and TEXT, e.g. caesar comment ID src/a.py:12 'why?'; "
            "or --resolve COMMENT_ID"
        )
    path, start, end = parse_location(location)
    added = add_comment(store, store.get(task_id), path, start, end, text, author=author())
    made = added.comment
    if added.set_aside:
        click.echo(
            f"caesar: the unreadable comments file was kept as {quote_path(added.set_aside)}; "
            "this comment starts a new list",
            err=True,
        )
    if as_json:
        emit_json({"task_id": task_id, "comment": made.model_dump(mode="json")})
    else:
        lines = line_span(made.start_line, made.end_line)
        click.echo(f"{made.id}  {quote_path(made.path)}:{lines}")


@click.command()
@click.argument("task_id")
@project_options
def comments(task_id: str, root: Path, as_json: bool) -> None:
    """List a task's review comments: where each is now, its state, its code and text.

    States: open, addressed (a later turn changed its lines), outdated (its lines are gone),
    resolved. A comments file that cannot be read is reported (exit 1), never changed.
    """
    from caesar_core.review.comments import read_comments
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    found = read_comments(store, store.get(task_id))
    if as_json:
        emit_json(found.to_json())
    else:
        show(found)
    if found.problem:
        click.echo(f"caesar: {safe_text(found.problem)}", err=True)
        click.echo(
            "  remedy: fix the file, or add a comment: the file is kept aside and a new list "
            "started",
            err=True,
        )
        raise SystemExit(int(ExitCode.FAILURE))


def show(found: Comments) -> None:
    if not found.placed and not found.problem:
        click.echo("no comments")
    for placed in found.placed:
        click.echo(heading(placed))
        for line in placed.code:
            click.echo(f"    | {safe_text(line)}")
        for line in placed.comment.text.splitlines() or [""]:
            click.echo(f"    {safe_text(line)}")


def heading(placed: Placed) -> str:
    c = placed.comment
    from caesar_core.review.comments import line_span

    where = f"{quote_path(c.path)}:{placed.lines}"
    moved = f" (made at {line_span(c.start_line, c.end_line)})" if placed.moved else ""
    by = f"  {safe_text(c.author)}" if c.author else ""
    return f"{c.id}  {placed.state.value:<9} {where}{moved}{by}"
