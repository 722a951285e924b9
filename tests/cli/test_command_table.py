"""The command table: every built-in loads under its own name, and only when it is asked for."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
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


def modules_after(
    code: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=cwd,
        env=env,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def command_modules(args: list[str], cwd: Path, env: Mapping[str, str]) -> set[str]:
    """The modules ``caesar ARGS`` loads, run in ``cwd`` (its output on stdout discarded)."""
    return modules_after(
        "import os, sys\n"
        "from caesar_core.cli.main import cli\n"
        "sys.stdout = open(os.devnull, 'w')\n"
        "try:\n"
        f"    cli.main(args={args!r}, prog_name='caesar', standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout = sys.__stdout__\n",
        cwd,
        env,
    )


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


NOT_FOR_A_DIFF = {
    "mcp",
    "textual",
    "rich",
    "watchfiles",
    "distributed",
    "caesar_core.git.apply",
    "caesar_core.git.checkout",
    "caesar_core.git.select",
    "caesar_core.git.worktree",
    "caesar_core.git.writeout",
    "caesar_core.runner.worktrees",
    "caesar_core.runner.turns",
    "caesar_core.runner.engine",
    "caesar_core.runner.sweep",
    "caesar_core.agents",
    "caesar_core.config",
    "caesar_core.events",
    "caesar_core.protocol.documents",
    "caesar_core.protocol.event",
    "caesar_core.protocol.mailbox",
}
"""What ``caesar diff`` has no use for: the merge and checkout machinery, the runner, the
agents, the event log, the documents it does not read, the MCP SDK and the screen."""


def test_diff_loads_the_reconciliation_and_nothing_it_does_not_use(tmp_path: Path) -> None:
    from tests.runner.conftest import caesar_env, context, git, run_json

    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    task = run_json(root, "note it", "--agent", "demo", "--context", context("work"))
    assert task["_exit"] == 0, task["_stderr"]
    loaded = command_modules(["diff", str(task["task_id"]), "--json"], root, caesar_env())
    assert {"pygit2", "caesar_core.git.diff", "caesar_core.runner.taskdiff"} <= loaded
    assert not loaded & NOT_FOR_A_DIFF
    assert {"caesar_core.runner.turns"} <= command_modules(
        ["diff", str(task["task_id"]), "--since-previous", "--json"], root, caesar_env()
    )


def test_logs_passes_a_log_on_without_the_git_layer_the_fold_or_the_screen(
    tmp_path: Path,
) -> None:
    from tests.cli.test_logs_passthrough import line, task_with_log
    from tests.runner.conftest import caesar_env

    task_id, _ = task_with_log(tmp_path, [line(0, '"type":"message","text":"hi"')])
    args = ["logs", task_id, "--json", "--root", str(tmp_path)]
    loaded = command_modules(args, tmp_path, caesar_env())
    assert "caesar_core.events.tail" in loaded
    assert not loaded & {
        "pygit2",
        "mcp",
        "textual",
        "rich",
        "watchfiles",
        "distributed",
        "caesar_core.git",
        "caesar_core.events.fold",
        "caesar_core.events.activity",
    }
