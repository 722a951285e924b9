"""caesar_core never reaches for the screen, proven in fresh interpreters.

The core is what the MCP servers and the hook path run; loading Textual there would cost start-up
time on every hook call and make the core depend on its own front end.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import caesar_core

SCREEN = ("textual", "rich", "caesar_tui")
HEAVY = ("pygit2", "mcp", "watchfiles")


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


def test_every_core_module_imports_without_the_screen() -> None:
    modules = [
        info.name
        for info in pkgutil.walk_packages(caesar_core.__path__, prefix="caesar_core.")
        if not info.name.endswith(".__main__")  # running the CLI is not importing it
    ]
    assert "caesar_core.protocol.event" in modules
    loaded = loaded_after("\n".join(f"import {name}" for name in ["caesar_core", *modules]))
    assert not loaded & set(SCREEN)


def test_protocol_commands_load_neither_the_screen_nor_heavy_machinery() -> None:
    loaded = loaded_after(
        "from caesar_core.cli.main import cli\n"
        "for args in (['protocol', 'schema'], ['protocol', 'schema', 'report', '--strict']):\n"
        "    try:\n"
        "        cli.main(args=args, prog_name='caesar', standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    assert "caesar_core" in loaded
    assert not loaded & set(SCREEN + HEAVY)
