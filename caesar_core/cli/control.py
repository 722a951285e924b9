"""``caesar cancel`` and ``caesar answer``: a running task stopped, or its question answered,
from any terminal (``runner.control``)."""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import emit_json, project_options
from caesar_core.terminal import safe_text


@click.command()
@click.argument("task_id")
@project_options
def cancel(task_id: str, root: Path, as_json: bool) -> None:
    """Cancel a task from any terminal: its agent is stopped, its status is `cancelled`."""
    from caesar_core.runner.control import cancel_task
    from caesar_core.store import TaskStore

    done = cancel_task(TaskStore(root), task_id)
    record = done.record
    if as_json:
        emit_json(
            {
                "task_id": task_id,
                "cancelled": done.cancelled,
                "status": record.status.value,
                "signalled": done.signalled,
                "alive": done.alive,
                "concluded_by": done.concluded_by,
                "notes": done.notes,
            }
        )
    elif done.cancelled:
        count = len(done.signalled)
        stopped = (
            f"stopped {count} process{'es' if count != 1 else ''} "
            f"(pid {', '.join(map(str, done.signalled))}), none left alive"
            if count
            else "no process of it was left to stop"
        )
        click.echo(
            safe_text(f"cancelled {task_id}: {stopped}; ending written by {done.concluded_by}")
        )
        for note in done.notes:
            click.echo(safe_text(f"note: {note}"))
    else:
        click.echo(
            safe_text(f"{task_id} had already ended: {record.status.value}; nothing to cancel")
        )


@click.command()
@click.argument("task_id")
@click.argument("question_id")
@click.argument("answer_text", metavar="ANSWER")
@project_options
def answer(task_id: str, question_id: str, answer_text: str, root: Path, as_json: bool) -> None:
    """Answer a task's pending question (as shown by `caesar ps` and `caesar watch`)."""
    from caesar_core.runner.control import answer as answer_question
    from caesar_core.store import TaskStore

    reply = answer_question(TaskStore(root), task_id, question_id, answer_text, by="cli")
    if as_json:
        emit_json({"answered": True, **reply.to_json_dict()})
    else:
        click.echo(safe_text(f"answered {question_id} of {task_id}: {answer_text}"))
