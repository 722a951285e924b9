"""caesar_core never reaches for the screen, proven in fresh interpreters.

The core is what the MCP servers and the hook path run; loading Textual there would cost start-up
time on every hook call and make the core depend on its own front end.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import caesar_core
import caesar_tui

SCREEN = ("textual", "rich", "caesar_tui")
HEAVY = ("pygit2", "mcp", "watchfiles")


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


def sources(package: Path) -> dict[str, Path]:
    """Every module of a package, found on disk, and its file: ``pkgutil.walk_packages`` skips
    a directory without ``__init__.py`` (a namespace package) and every module below it."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if "__pycache__" in parts or parts[-1] == "__main__":  # running is not importing
            continue
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def modules_of(package: Path) -> list[str]:
    return list(sources(package))


def test_every_core_module_imports_without_the_screen() -> None:
    modules = modules_of(Path(caesar_core.__file__).parent)
    assert "caesar_core.protocol.event" in modules
    assert "caesar_core.mcp.channel" in modules
    loaded = loaded_after("\n".join(f"import {name}" for name in modules))
    assert not loaded & set(SCREEN)


def imports_of(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of the same distribution it imports, wherever
    the import statement is (a function's lazy import counts: it is a dependency all the same)."""
    names = sources(package)
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name in names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.update({node.module} & names.keys())
                found.update(
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if f"{node.module}.{alias.name}" in names
                )
        graph[name] = found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_through_others() -> None:
    """A circle (``claude_code`` -> ``vscode`` -> ``claude_code`` once) means two modules that
    are one: what they share belongs in a third."""
    core = imports_of(Path(caesar_core.__path__[0]))
    assert "caesar_core.bridge.clients.claude_format" in core
    assert cycles(core) == []
    assert cycles(imports_of(Path(caesar_tui.__path__[0]))) == []


def test_every_package_is_a_regular_one() -> None:
    """A directory without ``__init__.py`` is a namespace package: ``pkgutil`` and tools that walk
    packages skip it and everything below (``caesar_core/mcp`` once)."""
    for package in (caesar_core, caesar_tui):
        root = Path(package.__path__[0])
        walked = {
            info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
        }
        assert set(sources(root)) - {package.__name__} <= walked


def test_the_mcp_package_loads_no_mcp_sdk() -> None:
    loaded = loaded_after("import caesar_core.mcp")
    assert "caesar_core" in loaded and "mcp" not in loaded


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


def test_plain_commands_load_no_dask() -> None:
    """Only a task on a cluster (``--on``, its shepherd, ``doctor --on``) loads ``distributed``:
    listing, cancelling or answering tasks, remote ones included, does not."""
    loaded = loaded_after(
        "import caesar_core.cli.main, caesar_core.cli.tasks, caesar_core.cli.remote\n"
        "import caesar_core.executor.base, caesar_core.executor.dask\n"
        "import caesar_core.executor.landing, caesar_core.runner.sweep\n"
        "import caesar_core.runner.control\n"
    )
    assert "caesar_core" in loaded
    assert not loaded & {"distributed", "dask"}
