"""Reviewing a task's work: ``diff``, ``apply``, ``reject``, ``discard``, ``gc``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from caesar_core.cli.common import change_line, emit_json, link_note, project_options, table
from caesar_core.errors import ExitCode
from caesar_core.terminal import quote_path, safe_text

if TYPE_CHECKING:
    from caesar_core.git import ApplyResult, TreeDiff
    from caesar_core.review.hunks import Pick
    from caesar_core.store import TaskStore
    from caesar_core.store.record import TaskRecord

HUNK_HELP = (
    "Only this hunk (an id from `caesar diff ID --hunks`), or HUNK_ID:N-M for its changed "
    "lines N to M; repeatable."
)


@click.command()
@click.argument("task_id")
@click.option("--stat", is_flag=True, help="Files with their +/- counts, not the patch.")
@click.option(
    "--hunks",
    "show_hunks",
    is_flag=True,
    help="Each hunk with its id and its changed lines numbered (with --stat: the ids only).",
)
@click.option(
    "--since-previous",
    is_flag=True,
    help="A follow-up turn: what this turn alone changed, not the whole work.",
)
@project_options
def diff(
    task_id: str, stat: bool, show_hunks: bool, since_previous: bool, root: Path, as_json: bool
) -> None:
    """Show what a task changed, against the commit it started from (never HEAD).

    Every turn of a task (`caesar continue`) shows the whole work against that commit;
    --since-previous shows what the turn alone changed. Symbolic links are listed with where
    they point. The patch is printed exactly into a pipe (for `git apply`); on a terminal its
    control characters are shown escaped. --hunks names each hunk, for `caesar apply/reject
    ID --hunk HUNK_ID[:N-M]`.
    """
    from caesar_core.runner.taskdiff import task_diff
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    record = store.get(task_id)
    with_patch = not stat or as_json or show_hunks
    changes: TreeDiff | None
    if since_previous:
        from caesar_core.runner.turns import since_previous as turn_diff

        changes = turn_diff(store, record, with_patch=with_patch)
    else:
        changes = task_diff(record, with_patch=with_patch)
    if as_json:
        from caesar_core.cli.diff_view import json_answer_text

        click.echo(json_answer_text(task_id, changes), nl=False)
        return
    if changes is None:
        if record.isolation.value == "inplace" and record.discarded_at is None:
            click.echo(
                f"{task_id} ran in place with no snapshot of the tree it started from (outside "
                "git, or started by another tool): no diff to show (see its report's changes)"
            )
        else:
            click.echo(f"{task_id} has no worktree left to diff (see its report's changes)")
        return
    if changes.is_empty:
        click.echo("no changes")
        return
    if show_hunks:
        from caesar_core.cli.hunkwalk import hunk_listing

        for f in changes.files:
            click.echo(change_line(f))
            for line in hunk_listing([f], with_lines=not stat):
                click.echo(f"  {line}")
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
@click.option("--hunk", "hunks", multiple=True, metavar="HUNK_ID[:N-M]", help=HUNK_HELP)
@click.option(
    "--interactive",
    "-i",
    is_flag=True,
    help="Walk the hunks and choose (y, n, s to split, q, ? for help), as `git add -p`.",
)
@click.option(
    "--allow-outside-links",
    is_flag=True,
    help="Also apply symbolic links that point outside the repository (refused otherwise).",
)
@project_options
def apply(
    task_id: str,
    paths: tuple[str, ...],
    hunks: tuple[str, ...],
    interactive: bool,
    allow_outside_links: bool,
    root: Path,
    as_json: bool,
) -> None:
    """Apply a task's changes to your working tree: three-way, never committed.

    Refuses to touch files you changed yourself; on a conflict nothing is written. A symbolic
    link pointing outside the repository is refused unless --allow-outside-links. --hunk and
    --interactive take only some hunks (or lines); the rest can be applied later.
    """
    from caesar_core.review.hunks import parse_pick
    from caesar_core.runner.worktrees import apply as apply_task
    from caesar_core.runner.worktrees import apply_json
    from caesar_core.store import TaskStore

    if interactive and (hunks or as_json):
        raise click.UsageError("--interactive asks about each hunk: give no --hunk nor --json")
    store = TaskStore(root)
    record = store.get(task_id)
    selected = list(paths) if paths else None
    picks: list[Pick] | None = [parse_pick(spec) for spec in hunks] if hunks else None
    if interactive:
        picks = _choose(store, record, selected)
        if not picks:
            click.echo("nothing chosen: nothing applied")
            return
    result = apply_task(
        store, record, selected, picks=picks, allow_outside_links=allow_outside_links
    )
    if as_json:
        emit_json(apply_json(task_id, result))
    elif picks is not None and result.applied:
        _say_hunks_applied(result)
    else:
        _say_applied(result)
    if not result.applied:
        raise SystemExit(int(ExitCode.FAILURE))


def _choose(store: TaskStore, record: TaskRecord, paths: list[str] | None) -> list[Pick]:
    """Ask about each hunk on the terminal; the picks answered yes."""
    from caesar_core.cli.hunkwalk import walk
    from caesar_core.git.repo import under_any
    from caesar_core.review.hunks import recorded
    from caesar_core.review.selection import all_hunks
    from caesar_core.runner.taskdiff import task_diff

    if not sys.stdin.isatty():
        raise click.UsageError(
            "--interactive reads its answers from a terminal; in a script, name the hunks: "
            "--hunk HUNK_ID (see `caesar diff ID --hunks`)"
        )
    del store
    diff = task_diff(record, with_patch=True)
    hunks = [] if diff is None else all_hunks(diff)
    if paths:
        hunks = [hunk for hunk in hunks if under_any(hunk.path, paths)]
    if not hunks:
        return []

    def ask(prompt: str) -> str | None:
        click.echo(prompt, nl=False)
        typed = sys.stdin.readline()
        return typed or None

    return walk(hunks, recorded(record.taken, hunks), ask, click.echo)


def _say_hunks_applied(result: ApplyResult) -> None:
    from caesar_core.review.hunks import Selection

    if result.picked:
        click.echo(
            f"applied to your working tree (not committed), from {len(result.files)} file(s):"
        )
    for hunk, lines in result.picked:
        for pick in Selection({hunk.id: lines}).picks([hunk]):
            click.echo(f"  {pick}  {quote_path(hunk.path)}")
    for already in result.already_hunks:
        click.echo(f"already applied: {already} (nothing written for it)")


def _say_applied(result: ApplyResult) -> None:
    links = {change.path: change for change in result.links}
    if result.applied and not result.files:
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


@click.command()
@click.argument("task_id")
@click.option(
    "--hunk", "hunks", multiple=True, required=True, metavar="HUNK_ID[:N-M]", help=HUNK_HELP
)
@click.option("--reason", default="", help="Why: recorded, and told to a follow-up turn.")
@project_options
def reject(task_id: str, hunks: tuple[str, ...], reason: str, root: Path, as_json: bool) -> None:
    """Revert hunks out of a task's worktree and record them rejected (with --reason).

    They leave the task's diff; your working tree is not touched.
    """
    from caesar_core.review.hunks import parse_pick
    from caesar_core.runner.worktrees import reject as reject_hunks
    from caesar_core.runner.worktrees import reject_json
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    picks = [parse_pick(spec) for spec in hunks]
    result = reject_hunks(store, store.get(task_id), picks, reason=reason)
    if as_json:
        emit_json(reject_json(task_id, result))
        return
    click.echo(f"rejected {len(result.hunks)} hunk selection(s); reverted in the task's worktree:")
    for path in result.files:
        click.echo(f"  {quote_path(path)}")


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
