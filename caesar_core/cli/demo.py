"""``caesar demo``: the built-in demo agent on a throwaway repository, followed live.

Everything a person needs to see the contract work, with no agent CLI and no API key: a task
laid out in the store, an agent process fed only the ``CAESAR_*`` variables, its events tailed
and printed as they land, its report read back and checked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from caesar_core.errors import CaesarError

if TYPE_CHECKING:
    from caesar_core.events import EventFormatter, EventTail


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to create the throwaway repository (default: a new temporary directory).",
)
@click.option(
    "--delay",
    type=click.FloatRange(0, 10),
    default=0.4,
    show_default=True,
    help="Seconds the demo agent pauses between steps, so there is something to watch.",
)
def demo(directory: Path | None, delay: float) -> None:
    """Run the built-in demo agent on a throwaway repository and follow it live."""
    import json

    from caesar_core.events import EventFormatter, EventTail, EventWriter
    from caesar_core.fs import atomic_write, dump_json
    from caesar_core.protocol import (
        Finished,
        Isolation,
        Mode,
        ReportStatus,
        Started,
        Task,
        read_report,
        task_environment,
    )
    from caesar_core.protocol.versions import TASK_V1
    from caesar_core.store import TaskRecord, TaskStatus, TaskStore, new_task_id

    workspace = _throwaway_repository(directory)
    store = TaskStore(workspace)
    task_id = new_task_id()
    now = datetime.now(UTC)
    objective = "Leave a note of what you were asked"
    paths = store.create(
        TaskRecord(
            id=task_id,
            created_at=now,
            agent="demo",
            objective=objective,
            workspace=str(workspace),
            source_workspace=str(workspace),
            isolation=Isolation.INPLACE,
            mode=Mode.WRITE,
        )
    )
    task = Task(
        protocol=TASK_V1,
        id=task_id,
        created_at=now,
        agent="demo",
        objective=objective,
        context=json.dumps({"script": "work", "delay": delay}),
        mode=Mode.WRITE,
        isolation=Isolation.INPLACE,
        workspace=str(workspace),
        deadline_ms=120_000,
        report_path=str(paths.report),
        events_path=str(paths.events),
    )
    atomic_write(paths.task_file, dump_json(task.to_json_dict()))
    command = [sys.executable, "-m", "caesar_core.agents.demo"]
    click.echo(f"workspace  {workspace}")
    click.echo(f"task       {task_id}\n")

    with paths.raw_log.open("ab") as raw, EventWriter(paths.events, task_id) as events:
        agent = subprocess.Popen(
            command,
            cwd=workspace,
            env={**os.environ, **task_environment(paths, task_id, "demo", 0)},
            stdin=subprocess.DEVNULL,
            stdout=raw,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        store.set(task_id, status=TaskStatus.RUNNING, started_at=datetime.now(UTC), pid=agent.pid)
        events.append(Started(agent="demo", command=" ".join(command)))
        formatter = EventFormatter()
        with EventTail(paths.events) as tail:
            try:
                _follow(paths.root, agent, tail, formatter)
            except KeyboardInterrupt:
                os.killpg(agent.pid, signal.SIGTERM)
                agent.wait()
                store.conclude(task_id, TaskStatus.CANCELLED, ended_reason="interrupted")
                raise click.Abort() from None
            try:
                report = read_report(paths.report)
            except (OSError, ValueError, CaesarError) as error:
                events.append(Finished(status=ReportStatus.FAILED, summary=str(error)))
                store.conclude(task_id, TaskStatus.FAILED, exit_code=agent.returncode)
                _flush(tail, formatter)
                raise CaesarError(
                    f"the demo agent left no valid report: {error}", f"see {paths.raw_log}"
                ) from None
            events.append(
                Finished(status=report.status, summary=report.summary, exit_code=agent.returncode)
            )
            _flush(tail, formatter)
    status = TaskStatus.SUCCEEDED if agent.returncode == 0 else TaskStatus.FAILED
    store.conclude(task_id, status, exit_code=agent.returncode, report_status=report.status)
    click.echo(f"\nreport     {report.status.value}: {report.summary}")
    for change in report.changes:
        click.echo(f"  {change.action.value:<9} {change.path}")
    click.echo(f"files      {paths.root}")


def _follow(
    task_dir: Path, agent: subprocess.Popen[bytes], tail: EventTail, formatter: EventFormatter
) -> None:
    """Print events as they land until the agent exits; file events wake us, not a timer."""
    from watchfiles import watch

    for _ in watch(task_dir, debounce=50, rust_timeout=250, yield_on_timeout=True, recursive=False):
        _flush(tail, formatter)
        if agent.poll() is not None:
            break


def _flush(tail: EventTail, formatter: EventFormatter) -> None:
    batch = tail.read()
    for event in batch.events:
        click.echo(formatter.format(event))
    for bad in batch.bad:
        click.echo(f"  (line {bad.line} skipped: {bad.reason})", err=True)


def _throwaway_repository(directory: Path | None) -> Path:
    """A small git repository with one commit, so the demo runs where real work would."""
    import pygit2

    root = directory or Path(tempfile.mkdtemp(prefix="caesar-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    (root / "README.md").write_text("# demo project\n\nA throwaway repository for caesar.\n")
    (root / "app.py").write_text('def greet(name: str) -> str:\n    return f"hello {name}"\n')
    (root / ".gitignore").write_text(".caesar/\n")
    repo = pygit2.init_repository(str(root))
    repo.index.add_all()
    repo.index.write()
    signature = pygit2.Signature("caesar demo", "demo@caesar.invalid")
    tree = repo.index.write_tree()
    repo.create_commit("HEAD", signature, signature, "initial commit", tree, [])
    return root
