"""The command table: every built-in loads under its own name, and only when it is asked for."""

from __future__ import annotations

import json
import subprocess
import sys

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
