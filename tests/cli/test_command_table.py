"""The command table: every built-in loads under its own name, and only when it is asked for."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest

from caesar_core import __version__
from caesar_core.cli.main import COMMANDS, cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_built_in_command_loads_under_its_name(name: str) -> None:
    with click.Context(cli) as ctx:
        command = cli.get_command(ctx, name)
    assert isinstance(command, click.Command)
    assert command.name == name


def test_the_help_lists_built_ins_and_plugins() -> None:
    with click.Context(cli) as ctx:
        listed = cli.list_commands(ctx)
    assert set(COMMANDS) <= set(listed)
    assert "watch" in listed  # caesar_tui joins through its entry point


def modules_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_a_built_in_command_loads_no_other_command_module() -> None:
    loaded = modules_after(
        "from caesar_core.cli.main import cli\n"
        "try:\n"
        "    cli.main(args=['protocol', 'schema', 'task'], prog_name='caesar',"
        " standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    commands = {target.partition(":")[0] for target in COMMANDS.values()}
    assert loaded & commands == {"caesar_core.cli.protocol"}


def test_the_version_loads_no_command_module_and_no_distribution_metadata() -> None:
    loaded = modules_after(
        "from caesar_core.cli.main import cli\n"
        "try:\n"
        "    cli.main(args=['--version'], prog_name='caesar', standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    commands = {target.partition(":")[0] for target in COMMANDS.values()}
    assert not loaded & commands
    assert "importlib.metadata" not in loaded


def test_the_console_scripts_version_is_clicks_answer() -> None:
    """``caesar --version`` is answered before click loads, in click's own words."""
    answers = [
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"from caesar_core.cli.{module} import main; main()",
                "--version",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for module in ("entry", "main")
    ]
    assert answers == [f"caesar, version {__version__}\n"] * 2


NOT_FOR_PS = ("textual", "rich", "mcp", "pygit2", "distributed", "watchfiles")
"""What ``caesar ps`` never loads: the screen, the MCP SDK, git, Dask, the file watcher."""


def _ended_tasks(root: Path, count: int) -> None:
    from caesar_core.protocol.task import Isolation, Mode
    from caesar_core.store import TaskRecord, TaskStatus, TaskStore, new_task_id

    store = TaskStore(root)
    for number in range(count):
        record = TaskRecord(
            id=new_task_id(),
            created_at=datetime(2026, 11, 30, 12, number, tzinfo=UTC),
            agent="demo",
            objective=f"task {number}",
            workspace=str(root),
            isolation=Isolation.INPLACE,
            mode=Mode.READ_ONLY,
        )
        store.create(record)
        store.conclude(record.id, TaskStatus.SUCCEEDED)


def _ps(root: Path, *args: str) -> str:
    return (
        "from caesar_core.cli.main import cli\n"
        "try:\n"
        f"    cli.main(args=['ps', '--root', {str(root)!r}, *{list(args)!r}], prog_name='caesar',"
        " standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
    )


def test_ps_of_tasks_read_before_builds_no_model(tmp_path: Path) -> None:
    """Once a listing has read the records, ``caesar ps`` of ended tasks takes them from the
    listing's cache: no pydantic (nor its JSON Schema machinery), no record model."""
    _ended_tasks(tmp_path, 3)
    first = modules_after(_ps(tmp_path, "--all"))
    assert "caesar_core.cli.tasks" in first
    assert not {name.split(".")[0] for name in first} & set(NOT_FOR_PS)
    for args in (["--all"], ["--all", "--json"], []):
        loaded = modules_after(_ps(tmp_path, *args))
        assert "caesar_core.store.listing" in loaded
        assert not {name.split(".")[0] for name in loaded} & {*NOT_FOR_PS, "pydantic"}
        assert "caesar_core.store.record" not in loaded


def test_ps_shows_the_same_from_the_cache_as_from_the_records(tmp_path: Path) -> None:
    _ended_tasks(tmp_path, 3)
    cache = tmp_path / ".caesar" / "state" / "listing.json"
    shown = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "caesar_core", "ps", "--json", "--root", str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        )
        shown.append(json.loads(done.stdout))
        assert cache.is_file()
    assert shown[0] == shown[1]
    assert [task["objective"] for task in shown[0]] == ["task 0", "task 1", "task 2"]
    assert {task["status"] for task in shown[0]} == {"succeeded"}


def test_run_loads_neither_the_watcher_nor_the_apply_machinery(tmp_path: Path) -> None:
    """``caesar run`` of a read-only task in a worktree, to its end: the git program for the
    worktree and the diff (no pygit2), none of the screen, the MCP SDK, Dask, a file watcher,
    the apply machinery, the sweep or the schemas of the contract."""
    from tests.runner.conftest import caesar_env, git

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("# project\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "initial")
    code = (
        "from caesar_core.cli.main import cli\n"
        "try:\n"
        "    cli.main(args=['run', 'say hello', '--agent', 'demo', '--mode', 'read-only',"
        f" '--root', {str(project)!r}], prog_name='caesar', standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "import sys, json\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env=caesar_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "succeeded" in done.stdout, done.stdout + done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert {"caesar_core.runner.engine", "caesar_core.git.worktree_by_git"} <= loaded
    assert not {name.split(".")[0] for name in loaded} & {*NOT_FOR_PS}  # git by the program
    assert not loaded & {
        "concurrent.futures",
        "caesar_core.git.apply",
        "caesar_core.runner.sweep",
        "caesar_core.runner.turns",
        "caesar_core.protocol.schema",
        "caesar_core.protocol.lifecycle",
    }
