"""caesar_core never reaches for the screen, proven in fresh interpreters.

The core is what the MCP servers and the hook path run; loading Textual there would cost start-up
time on every hook call and make the core depend on its own front end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import caesar_core

SCREEN = ("textual", "rich", "caesar_tui")
HEAVY = ("pygit2", "mcp", "watchfiles")


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


def modules_of(package: Path) -> list[str]:
    """Every module of a package, found on disk: ``pkgutil.walk_packages`` skips a directory
    without ``__init__.py`` (a namespace package) and every module below it."""
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if "__pycache__" in parts or parts[-1] == "__main__":  # running is not importing
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_core_module_imports_without_the_screen() -> None:
    modules = modules_of(Path(caesar_core.__file__).parent)
    assert "caesar_core.protocol.event" in modules
    assert "caesar_core.mcp.channel" in modules  # caesar_core/mcp has no __init__.py
    loaded = loaded_after("\n".join(f"import {name}" for name in modules))
    assert not loaded & set(SCREEN)


def test_the_text_frame_loads_no_textual() -> None:
    """``caesar watch --once`` (a pipe, a script) prints text: no Textual, no Rich."""
    loaded = loaded_after("import caesar_tui.frame, caesar_tui.cli")
    assert "caesar_tui" in loaded
    assert not loaded & {"textual", "rich"}


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
