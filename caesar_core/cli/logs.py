"""``caesar logs``: a task's events (or its raw output), once or followed live."""

from __future__ import annotations

import threading
from pathlib import Path

import click

from caesar_core.cli.common import project_options
from caesar_core.cli.event_view import EventPrinter
from caesar_core.terminal import safe_text


@click.command()
@click.argument("task_id")
@click.option("--follow", "-f", is_flag=True, help="Keep printing until the task ends.")
@click.option("--raw", is_flag=True, help="The agent's raw output (raw.log), not its events.")
@project_options
def logs(task_id: str, follow: bool, raw: bool, root: Path, as_json: bool) -> None:
    """Print a task's events (or raw output), optionally following it live."""
    from caesar_core.events import EventTail, LineTail
    from caesar_core.runner.abandoned import needs_sweep
    from caesar_core.store import TaskStore

    store = TaskStore(root)
    record = store.get(task_id)
    if needs_sweep(record):  # an abandoned task concluded, then shown (the sweep loaded for it)
        from caesar_core.runner.sweep import sweep_one

        _, problem = sweep_one(store, record)
        if problem:
            click.echo(safe_text(f"caesar: {problem}"), err=True)
    paths = store.paths(task_id)
    printer = EventPrinter(as_json=as_json)

    told = [""]

    def flush_raw(tail: LineTail) -> None:
        for line in tail.read().lines:
            click.echo(safe_text(line.decode("utf-8", errors="replace"), lines=True))
        if tail.problem and tail.problem != told[0]:
            click.echo(safe_text(f"caesar: raw.log is not read: {tail.problem}"), err=True)
        told[0] = tail.problem

    with EventTail(paths.events) as events, LineTail(paths.raw_log) as lines:

        def flush() -> None:
            if raw:
                flush_raw(lines)
            else:
                printer.batch(events)

        flush()
        if not follow:
            if not raw:
                printer.settle(store.get(task_id))
            return
        from watchfiles import watch

        stop = threading.Event()
        try:
            for _ in watch(
                paths.root,
                debounce=50,
                rust_timeout=500,
                yield_on_timeout=True,
                recursive=False,
                stop_event=stop,
            ):
                flush()
                record = store.get(task_id)
                if record.status.terminal:
                    flush()
                    if not raw:
                        printer.settle(store.get(task_id))
                    stop.set()
        except KeyboardInterrupt:
            return
