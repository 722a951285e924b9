"""Reviewing a task's work: ``diff``, ``apply``, ``discard``, ``gc``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from caesar_core.cli.common import change_line, emit_json, link_note, project_options, table
from caesar_core.errors import ExitCode
from caesar_core.terminal import quote_path, safe_text


@click.command()
@click.argument("task_id")
@click.option("--stat", is_flag=True, help="Files with their +/- counts, not the patch.")
@click.option(
    "--since-previous",
    is_flag=True,
    help="A follow-up turn: what this turn alone changed, not the whole work.",
)
@project_options
def diff(task_id: str, stat: bool, since_previous: bool, root: Path, as_json: bool) -> None:
    """Show what a task changed, against the commit it started from (never HEAD).

    Every turn of a task (`caesar continue`) shows the whole work against that commit;
    --since-previous shows what the turn alone changed. Symbolic links are listed with where
    they point. The patch is printed exactly into a pipe (for `git apply`); on a terminal its
    control characters are shown escaped.
    """
    from caesar_core.runner.turns import since_previous as turn_diff
    from caesar_core.runner.worktrees import diff_json, task_diff
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    record = store.get(task_id)
    with_patch = not stat or as_json
    changes = (
        turn_diff(store, record, with_patch=with_patch)
        if since_previous
        else task_diff(record, with_patch=with_patch)
    )
    if as_json:
        emit_json(diff_json(task_id, changes))
        return
    if changes is None:
        click.echo(f"{task_id} ran outside git: no diff to show (see its report's changes)")
        return
    if changes.is_empty:
        click.echo("no changes")
        return
    if stat:
        for f in changes.files:
            click.echo(change_line(f))
        return
    for link in changes.links:
        click.echo(f"caesar: {quote_path(link.path)} is a {link_note(link)}", err=True)
    patch = changes.patch
    click.echo(safe_text(patch, lines=True) if sys.stdout.isatty() else patch, nl=False)


@click.command()
@click.argument("task_id")
@click.option(
    "--path", "paths", multiple=True, help="Apply only this path (repeatable; prefixes work)."
)
@click.option(
    "--allow-outside-links",
    is_flag=True,
    help="Also apply symbolic links that point outside the repository (refused otherwise).",
)
@project_options
def apply(
    task_id: str, paths: tuple[str, ...], allow_outside_links: bool, root: Path, as_json: bool
) -> None:
    """Apply a task's changes to your working tree: three-way, never committed.

    Refuses to touch files you changed yourself; on a conflict nothing is written. A symbolic
    link pointing outside the repository is refused unless --allow-outside-links.
    """
    from caesar_core.runner.worktrees import apply as apply_task
    from caesar_core.runner.worktrees import apply_json
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    record = store.get(task_id)
    selected = list(paths) if paths else None
    result = apply_task(store, record, selected, allow_outside_links=allow_outside_links)
    links = {change.path: change for change in result.links}
    if as_json:
        emit_json(apply_json(task_id, result))
    elif result.applied and not result.files:
        click.echo("nothing to apply: the task changed nothing")
    elif result.applied:
        if result.written:
            click.echo(f"applied {len(result.files)} file(s) to your working tree (not committed):")
        else:
            click.echo("already applied: your working tree holds these changes (nothing written):")
        for path in result.files:
            link = links.get(path)
            notes = [link_note(link)] if link else []
            if result.written and path in result.already:
                notes.append("(already there)")
            click.echo("  ".join([f"  {quote_path(path)}", *notes]))
    else:
        click.echo(
            "not applied: these files conflict with your tree (nothing was written):", err=True
        )
        for path in result.conflicts:
            click.echo(f"  {quote_path(path)}", err=True)
    if not result.applied:
        raise SystemExit(int(ExitCode.FAILURE))


@click.command()
@click.argument("task_id")
@click.option("--force", is_flag=True, help="Discard even changes that were never applied.")
@project_options
def discard(task_id: str, force: bool, root: Path, as_json: bool) -> None:
    """Remove a task's worktree and branch."""
    from caesar_core.runner.worktrees import discard as discard_task
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    discard_task(store, store.get(task_id), force=force)
    if as_json:
        emit_json({"task_id": task_id, "discarded": True})
    else:
        click.echo(f"discarded the worktree and branch of {task_id}")


@click.command()
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@click.option("--force", is_flag=True, help="Remove worktrees even with unapplied work.")
@project_options
def gc(dry_run: bool, force: bool, root: Path, as_json: bool) -> None:
    """Remove the worktrees of ended tasks; work never applied is kept unless --force."""
    from caesar_core.runner.sweep import sweep
    from caesar_core.runner.worktrees import gc as collect
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    sweep(store)
    decisions = collect(store, dry_run=dry_run, force=force)
    if as_json:
        emit_json([d.__dict__ for d in decisions])
        return
    if not decisions:
        click.echo("no worktrees to collect")
        return
    table(
        [[d.decision, d.task_id or "-", d.reason, d.path] for d in decisions],
        ["DECISION", "TASK", "WHY", "PATH"],
    )
