"""caesar_core never reaches for the screen, and no command loads what it does not need,
proven in fresh interpreters.

The core is what the MCP servers and the hook path run; loading Textual there would cost start-up
time on every hook call and make the core depend on its own front end. Each plain command is run
for real and its process's modules listed when it exits (import lists, not timings): a command
that starts loading the screen, git, the MCP SDK, Dask or building JSON Schemas fails here.
"""

from __future__ import annotations

import ast
import json
import os
import pkgutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import caesar_core
import caesar_tui
from caesar_core.events import EventWriter
from caesar_core.protocol import Message, ToolStatus, ToolUse
from caesar_core.store import TaskStore
from tests.bridge.core_support import Bridge
from tests.bridge.hookkit import HookWorld, fixture
from tests.store.conftest import make_record

SCREEN = ("textual", "rich", "caesar_tui")
HEAVY = ("pygit2", "mcp", "watchfiles")


def loaded_modules(code: str) -> set[str]:
    """Every module loaded once ``code`` ran, in a fresh interpreter."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def loaded_after(code: str) -> set[str]:
    """The top-level packages loaded once ``code`` ran, in a fresh interpreter."""
    return {name.split(".")[0] for name in loaded_modules(code)}


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
        "import caesar_core.cli.logs, caesar_core.cli.control\n"
        "import caesar_core.executor.base, caesar_core.executor.dask\n"
        "import caesar_core.executor.landing, caesar_core.runner.sweep\n"
        "import caesar_core.runner.control\n"
    )
    assert "caesar_core" in loaded
    assert not loaded & {"distributed", "dask"}


LAZY_PACKAGES = (
    "caesar_core.store",
    "caesar_core.protocol",
    "caesar_core.events",
    "caesar_core.config",
    "caesar_core.report",
)


def test_every_name_a_package_offers_is_there() -> None:
    """The packages load what they name on first use (``caesar_core.lazy``): every name of
    their ``__all__`` still resolves, to what its module defines."""
    import importlib

    for name in LAZY_PACKAGES:
        package = importlib.import_module(name)
        for exported in package.__all__:
            value = getattr(package, exported)
            assert value is not None, f"{name}.{exported}"
    from caesar_core.protocol import parse
    from caesar_core.protocol.parse import parse as parse_function

    assert parse is parse_function  # the function, not its module


def test_a_module_of_a_package_loads_without_its_siblings() -> None:
    """A command that reads records (or writes events) does not build every model of the
    contract nor its JSON Schemas."""
    loaded = loaded_modules("import caesar_core.store.record, caesar_core.events.writer")
    assert "caesar_core.store.record" in loaded
    assert not loaded & {
        "caesar_core.protocol.schema",
        "caesar_core.protocol.lifecycle",
        "caesar_core.protocol.mailbox",
        "caesar_core.protocol.documents",
        "caesar_core.store.mailbox",
        "caesar_core.store.store",
        "caesar_core.events.fold",
    }


# -- what each command loads, run for real --------------------------------------------------

PLAIN_HEAVY = frozenset({*SCREEN, *HEAVY, "distributed"})
"""What no plain command needs: the screen, git, the MCP SDK, the file watcher, Dask."""
HOT_PATH_HEAVY = PLAIN_HEAVY | {"click", "pydantic", "pydantic_core"}
"""``caesar bridge`` and ``caesar hook`` run once per tool call: stdlib only."""

COMMAND_PROBE = """
import atexit, importlib.abc, importlib.machinery, json, os, sys

schemas = []


class CountSchemas(importlib.abc.MetaPathFinder):
    '''Once pydantic's JSON Schema module loads (it comes with pydantic's models), count the
    schemas generated: a command that builds one at run time pays for it on every start.'''

    def find_spec(self, name, path, target=None):
        if name != "pydantic.json_schema":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            generate = module.GenerateJsonSchema.generate

            def counted(self, *args, **kwargs):
                schemas.append(1)
                return generate(self, *args, **kwargs)

            module.GenerateJsonSchema.generate = counted

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, CountSchemas())


def report():
    with open(os.environ["PROBE_REPORT"], "w") as out:
        json.dump({"modules": sorted(sys.modules), "schemas": len(schemas)}, out)


atexit.register(report)
sys.argv = ["caesar", *sys.argv[1:]]
from caesar_core.cli.entry import main

main()
"""


@dataclass(frozen=True)
class Ran:
    """What a command's process had loaded when it exited, and the JSON Schemas it built."""

    modules: frozenset[str]
    """Top-level packages."""
    schemas: int
    names: frozenset[str] = frozenset()
    """Every module, by its full dotted name."""


def ran(
    tmp: Path, *args: str, env: Mapping[str, str] | None = None, stdin: bytes = b"", cwd: Path
) -> Ran:
    report = tmp / "probe.json"
    report.unlink(missing_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    base |= {"XDG_CONFIG_HOME": str(tmp / "no-config"), **(env or {})}
    subprocess.run(
        [sys.executable, "-c", COMMAND_PROBE, *args],
        input=stdin,
        capture_output=True,
        env={**base, "PROBE_REPORT": str(report)},
        cwd=cwd,
        timeout=60,
        check=False,
    )
    data = json.loads(report.read_text())
    names = frozenset(data["modules"])
    return Ran(frozenset(name.split(".")[0] for name in names), data["schemas"], names)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A project with two tasks, one of which said things (``ps`` and ``logs`` read them)."""
    root = tmp_path_factory.mktemp("project")
    store = TaskStore(root)
    records = [make_record(), make_record()]
    for record in records:
        store.create(record)
    with EventWriter(store.paths(records[0].id).events, records[0].id) as events:
        events.append(Message(text="hello"))
        events.append(ToolUse(tool="bash", id="c1", input_summary="ls", status=ToolStatus.STARTED))
    return root, records[0].id


def test_version_loads_no_machinery_at_all(tmp_path: Path) -> None:
    loaded = ran(tmp_path, "--version", cwd=tmp_path)
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & (PLAIN_HEAVY | {"pydantic"})
    assert loaded.schemas == 0


def test_the_schema_command_loads_neither_the_screen_nor_git(tmp_path: Path) -> None:
    loaded = ran(tmp_path, "protocol", "schema", "report", "--strict", cwd=tmp_path)
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & PLAIN_HEAVY


@pytest.mark.parametrize(
    "args",
    [("ps", "--all"), ("ps", "--all", "--json"), ("logs", "ID"), ("logs", "ID", "--json")],
    ids=" ".join,
)
def test_reading_commands_load_no_screen_git_or_schema_building(
    tmp_path: Path, project: tuple[Path, str], args: tuple[str, ...]
) -> None:
    root, task_id = project
    argv = [task_id if arg == "ID" else arg for arg in args]
    loaded = ran(tmp_path, *argv, "--root", str(root), cwd=root)
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & PLAIN_HEAVY
    assert loaded.schemas == 0


def test_the_bridge_loads_only_the_standard_library(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    admission = bridge.begin()["admission_id"]
    request = {"op": "pre-tool", "admission_id": admission, "tool": "Bash"}
    request |= {"tool_input": {"command": "ls"}}
    loaded = ran(
        tmp_path, "bridge", env=bridge.env, stdin=json.dumps(request).encode(), cwd=tmp_path
    )
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & HOT_PATH_HEAVY


def hook_call(tmp: Path, world: HookWorld) -> Ran:
    payload = json.dumps(world.localize(fixture("claude-code", "pre_tool_bash"))).encode()
    return ran(tmp, "hook", "claude-code", env=world.env(), stdin=payload, cwd=world.project)


def test_a_client_hook_loads_only_the_standard_library(tmp_path: Path) -> None:
    """A tool call of a session already begun (the first call of a session begins it)."""
    world = HookWorld(tmp_path)
    hook_call(tmp_path, world)
    loaded = hook_call(tmp_path, world)
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & HOT_PATH_HEAVY


def test_a_sessions_first_hook_call_loads_only_the_standard_library(tmp_path: Path) -> None:
    loaded = hook_call(tmp_path, HookWorld(tmp_path))
    assert "caesar_core" in loaded.modules
    assert not loaded.modules & HOT_PATH_HEAVY


def test_the_watch_app_leaves_git_until_a_diff_is_asked_for() -> None:
    """``caesar watch`` starts without pygit2: the Diff tab's worker imports it."""
    loaded = loaded_after("import caesar_tui.app, caesar_tui.cli")
    assert "textual" in loaded
    assert "pygit2" not in loaded


def test_the_watch_app_leaves_the_diff_report_and_log_tabs_until_they_are_shown() -> None:
    """The first frame shows the Activity tab: the Diff, Report and Log tabs' views (and
    what draws a diff) are imported when their tab is first opened."""
    loaded = loaded_modules("import caesar_tui.app, caesar_tui.cli")
    assert "caesar_tui.screens.main" in loaded
    later = {"caesar_tui.widgets.diff_view", "caesar_tui.widgets.diff_text"}
    later |= {"caesar_tui.widgets.report_view", "caesar_tui.widgets.log_view"}
    assert later.isdisjoint(loaded)


ADAPTER_MODULES = frozenset(
    f"caesar_core.agents.{name}"
    for name in ("claude", "codex", "copilot", "gemini", "opencode", "qwen", "stream")
)
"""The built-in adapters' modules (and the stream parsing they share)."""


def script_project(tmp: Path) -> Path:
    """A git project whose ``[[agent]] jq`` is a shell script that writes its report."""
    root = tmp / "scripted"
    root.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (root / ".gitignore").write_text(".caesar/\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "initial"], check=True)
    script = tmp / "agent.sh"
    script.write_text(
        "#!/bin/sh\n"
        'printf \'{"protocol":"caesar.report/v1","status":"success","summary":"ok"}\' '
        '> "$CAESAR_REPORT_PATH"\n'
    )
    script.chmod(0o755)
    (root / ".caesar").mkdir()
    (root / ".caesar" / "config.toml").write_text(
        f'[[agent]]\nid = "jq"\nbin = "{script}"\nargs = "{{{{prompt}}}}"\n'
    )
    return root


@pytest.mark.parametrize("mode", ["read-only", "write"])
def test_running_a_declared_agent_loads_no_built_in_adapter(tmp_path: Path, mode: str) -> None:
    """``caesar run --agent jq`` looks its agent up: the seven built-in adapters' modules (and
    their stream parsers) stay unloaded, and so do the screen, the MCP SDK and Dask."""
    root = script_project(tmp_path)
    loaded = ran(tmp_path, "run", "Say hello", "--agent", "jq", "--mode", mode, cwd=root)
    assert "caesar_core.runner.engine" in loaded.names
    assert not loaded.names & ADAPTER_MODULES, loaded.names & ADAPTER_MODULES
    assert not loaded.modules & (PLAIN_HEAVY - {"pygit2"})
    assert loaded.schemas == 0
    (task,) = (root / ".caesar" / "tasks").iterdir()
    assert json.loads((task / "report.json").read_text())["status"] == "success"


def writing_script_project(tmp: Path) -> Path:
    """:func:`script_project` whose agent also creates ``hello.txt`` in its working directory."""
    root = script_project(tmp)
    script = tmp / "agent.sh"
    script.write_text("#!/bin/sh\necho hi > hello.txt\n" + script.read_text().split("\n", 1)[1])
    return root


def concluded(root: Path) -> None:
    """The one task's worktree exists, locked, holding the agent's file, and its conclusion
    (the diff git saw, reconciled into the report) names that file."""
    (task,) = (root / ".caesar" / "tasks").iterdir()
    record = json.loads((task / "task.json").read_text())
    report = json.loads((task / "report.json").read_text())
    assert report["status"] == "success"
    assert [change["path"] for change in report["changes"]] == ["hello.txt"]
    worktree = Path(record["workspace"])
    assert record["isolation"] == "worktree" and worktree.parent == root / ".caesar" / "wt"
    assert (worktree / "hello.txt").read_text() == "hi\n"
    assert (
        "locked caesar task"
        in subprocess.run(
            ["git", "-C", str(root), "worktree", "list", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )


@pytest.mark.parametrize("mode", ["read-only", "write"])
def test_running_in_a_worktree_with_git_on_the_path_loads_no_pygit2(
    tmp_path: Path, mode: str
) -> None:
    """With the ``git`` program on the ``PATH``, ``caesar run`` finds the repository, makes the
    task's worktree and concludes its diff by git: libgit2 (whose import parses the system's CA
    bundle) and the pygit2 reconciliation stay unloaded."""
    root = writing_script_project(tmp_path)
    loaded = ran(
        tmp_path,
        "run",
        "Say hi",
        "--agent",
        "jq",
        "--mode",
        mode,
        "--isolation",
        "worktree",
        cwd=root,
    )
    assert "caesar_core.runner.engine" in loaded.names
    assert "pygit2" not in loaded.modules
    assert not loaded.names & {"caesar_core.git.diff", "caesar_core.git.repo"}
    concluded(root)


def test_running_without_git_on_the_path_falls_back_to_pygit2(tmp_path: Path) -> None:
    """No ``git`` program: pygit2 finds the repository, makes the worktree and reconciles."""
    root = writing_script_project(tmp_path)
    no_git = tmp_path / "no-git-bin"
    no_git.mkdir()
    loaded = ran(
        tmp_path,
        "run",
        "Say hi",
        "--agent",
        "jq",
        "--mode",
        "write",
        "--isolation",
        "worktree",
        env={"PATH": str(no_git)},
        cwd=root,
    )
    assert "pygit2" in loaded.modules
    assert "caesar_core.git.diff" in loaded.names
    concluded(root)


def test_continuing_a_worktree_task_with_git_on_the_path_loads_no_pygit2(tmp_path: Path) -> None:
    """``caesar continue`` records where its turn starts (``turn_base``) and concludes the
    turn's own changes by git, as ``caesar run`` does: no pygit2."""
    root = writing_script_project(tmp_path)
    first = ran(tmp_path, "run", "Say hi", "--agent", "jq", "--isolation", "worktree", cwd=root)
    assert "pygit2" not in first.modules
    (task,) = (root / ".caesar" / "tasks").iterdir()
    loaded = ran(tmp_path, "continue", task.name, "Once more", cwd=root)
    assert "caesar_core.runner.turns" in loaded.names
    assert "pygit2" not in loaded.modules
    assert not loaded.names & {"caesar_core.git.diff", "caesar_core.git.repo"}
    turns = {
        json.loads((t / "task.json").read_text())["id"]
        for t in (root / ".caesar" / "tasks").iterdir()
    }
    assert len(turns) == 2
