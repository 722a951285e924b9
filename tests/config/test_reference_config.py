"""The reference implementation's configuration files, read unchanged and meaning the same.

The files under ``tests/fixtures/reference_config/`` were written by hand from reading the
reference implementation's source (Koumalabs/caesar: ``config.ts`` ``saveLayer`` and
``defaultConfig``, the ``init``/``agents``/``role``/``policy`` commands, smol-toml's
``stringify``), as its commands write them; see the README there. Recorded ones under
``tests/fixtures/reference/``, when that directory exists, are read too.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from caesar_core.agents.base import Invocation, NetworkControl
from caesar_core.agents.registry import GenericAdapter, catalogue
from caesar_core.config import (
    DEFAULT_PROJECT_CONFIG,
    AgentConfig,
    ConfigError,
    render_template,
)
from caesar_core.protocol.task import Mode
from tests.agents.replay import invocation_for
from tests.config.conftest import Layers
from tests.runner.conftest import caesar, git

FIXTURES = Path(__file__).parents[1] / "fixtures"
WRITTEN = FIXTURES / "reference_config"
RECORDED = FIXTURES / "reference"


def fixture(name: str) -> str:
    return (WRITTEN / name).read_text(encoding="utf-8")


def recorded_configs() -> list[Path]:
    """Config files recorded from a run of the reference, when the fixtures hold any."""
    if not RECORDED.is_dir():
        return []
    return sorted(p for p in RECORDED.rglob("*.toml") if p.is_file())


def test_init_global_is_read_with_its_meaning(layers: Layers) -> None:
    layers.write("global", fixture("global.toml"))
    config = layers.load().config
    policy = config.policy
    assert (policy.max_parallel, policy.max_depth, policy.timeout_ms) == (4, 2, 600_000)
    assert policy.allow_recursion is False
    assert policy.permits("claude")[0] is False
    assert "allow_recursion" in policy.permits("claude")[1]
    assert policy.permits("codex")[0] is True
    reviewer = config.role("reviewer")
    assert reviewer is not None
    assert (reviewer.agents, reviewer.isolation, reviewer.timeout_ms) == (
        ["codex", "antigravity"],
        "inplace",
        600_000,
    )
    assert config.agents == []


@pytest.mark.parametrize("name", ["project-bare.toml", "project-node.toml", "project-edited.toml"])
def test_project_layers_are_accepted(layers: Layers, name: str) -> None:
    layers.write("global", fixture("global.toml"))
    layers.write("project", fixture(name))
    layers.load()


def test_the_worktree_section_init_detects(layers: Layers) -> None:
    layers.write("project", fixture("project-node.toml"))
    worktree = layers.load().config.worktree
    assert (worktree.copy, worktree.link) == (["node_modules", ".env"], [])
    assert worktree.setup == ["pnpm install --frozen-lockfile --prefer-offline"]


@pytest.mark.parametrize("path", recorded_configs(), ids=lambda p: p.name)
def test_recorded_config_files_are_accepted(layers: Layers, path: Path) -> None:
    layers.write("project", path.read_text(encoding="utf-8"))
    layers.load()


def edited_agents(layers: Layers) -> dict[str, AgentConfig]:
    layers.write("project", fixture("project-edited.toml"))
    return {agent.id: agent for agent in layers.load().config.agents}


def launch(adapter: GenericAdapter, tmp_path: Path, **overrides: Any) -> list[str]:
    call: Invocation = invocation_for(
        adapter.id,
        tmp_path / "tasks",
        tmp_path / "work",
        mode=Mode.WRITE,
        tier="file",
        prompt="PROMPT",
        **overrides,
    )
    return adapter.launch(call).argv


def test_array_args_are_one_argument_per_item_and_network_args_open_the_network(
    layers: Layers, tmp_path: Path
) -> None:
    """The reference's meaning: each item one argument (a token without a value drops its item
    alone), ``network_args`` appended when the task has the network, absent when it is cut."""
    aider = GenericAdapter(edited_agents(layers)["aider"])
    assert aider.capabilities.network is NetworkControl.TOGGLE
    assert aider.capabilities.model is True
    task_dir = str(tmp_path / "tasks")
    base = ["aider", "--message", "PROMPT", "--yes", "--model"]
    assert launch(aider, tmp_path) == [*base, "--allow-net", f"--net-dir={task_dir}"]
    assert launch(aider, tmp_path, network_off=True) == base
    modelled = launch(aider, tmp_path, model="gpt-5", network_off=True)
    assert modelled == [*base, "gpt-5"]


def test_a_flag_agent_runs_in_its_task_directory(layers: Layers, tmp_path: Path) -> None:
    jq = GenericAdapter(edited_agents(layers)["jqagent"])
    assert jq.capabilities.native_read_only is True
    assert jq.capabilities.network is NetworkControl.UNKNOWN
    call = invocation_for(
        "jqagent",
        tmp_path / "tasks",
        tmp_path / "work",
        mode=Mode.READ_ONLY,
        tier="file",
        prompt="P",
    )
    launched = jq.launch(call)
    assert launched.argv == ["/opt/agents/jqagent.sh", "--dir", str(tmp_path / "work"), "P"]
    assert launched.cwd == tmp_path / "tasks"


def test_offline_args_cut_the_network_and_both_forms_mix() -> None:
    agent = AgentConfig.model_validate(
        {
            "id": "mixed",
            "bin": "mixed",
            "args": "run {{prompt}}",
            "offline_args": ["--offline", "--sandbox={{taskDir}}"],
            "network_args": "--net",
        }
    )
    adapter = GenericAdapter(agent)
    assert adapter.capabilities.network is NetworkControl.TOGGLE
    assert render_template(agent.offline_args or [], {"taskDir": "/t"}) == [
        "--offline",
        "--sandbox=/t",
    ]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["exec"], "must contain {{prompt}}"),
        (["{{prompt}}", "{{modle}}"], "unknown token {{modle}}"),
        (["{{prompt}}", 3], "item [1] is int"),
        (7, "expected a command line (a string"),
    ],
)
def test_bad_array_templates_are_refused_by_name(
    layers: Layers, args: object, fragment: str
) -> None:
    value = json.dumps(args)
    path = layers.write("project", f'[[agent]]\nid = "x"\nbin = "x"\nargs = {value}\n')
    with pytest.raises(ConfigError) as caught:
        layers.load()
    text = str(caught.value)
    assert f"{path}:4:" in text and 'agent "x".args' in text and fragment in text


def test_the_builtin_catalogue_keeps_working_with_the_reference_global(layers: Layers) -> None:
    layers.write("global", fixture("global.toml"))
    agents = catalogue(layers.load().config)
    assert {"codex", "claude", "demo"} <= set(agents)


# -- the commands a user runs ------------------------------------------------------------


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository configured the reference's way: its global file, its edited project file,
    and a stand-in ``aider`` on PATH that hands back the arguments it was given."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (root / ".caesar").mkdir()
    (root / ".caesar" / "config.toml").write_text(fixture("project-edited.toml"))
    home = tmp_path / "xdg"
    (home / "caesar").mkdir(parents=True)
    (home / "caesar" / "config.toml").write_text(fixture("global.toml"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    aider = bin_dir / "aider"
    aider.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "report = {'protocol': 'caesar.report/v1', 'status': 'success', 'summary': 'argv',\n"
        "          'details': json.dumps(sys.argv[1:])}\n"
        "open(os.environ['CAESAR_REPORT_PATH'], 'w').write(json.dumps(report))\n"
    )
    aider.chmod(0o755)
    env = {"XDG_CONFIG_HOME": str(home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    return root, env


def test_doctor_and_agents_list_accept_the_reference_files(
    shared: tuple[Path, dict[str, str]],
) -> None:
    root, env = shared
    doctor = caesar(root, "doctor", "--json", env=env)
    assert doctor.returncode == 0, doctor.stderr
    checks = {item["check"]: item for item in json.loads(doctor.stdout)}
    assert checks["configuration"]["ok"]
    listed = caesar(root, "agents", "list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows["aider"]["capabilities"]["network"] == "toggle"
    assert rows["aider"]["installed"] is True
    assert (
        rows["claude"]["allowed"] is False
        and "allow_recursion" in rows["claude"]["policy"]["reason"]
    )


@pytest.mark.parametrize(("network", "appended"), [("on", True), ("off", False)])
def test_the_command_line_follows_the_network(
    shared: tuple[Path, dict[str, str]], network: str, appended: bool
) -> None:
    root, env = shared
    done = caesar(
        root, "run", "say hi", "--agent", "aider", "--network", network, "--json", env=env
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    argv = json.loads(out["report"]["details"])
    task_dir = root / ".caesar" / "tasks" / out["task_id"]
    assert argv[0] == "--message" and argv[2:4] == ["--yes", "--model"]
    net = ["--allow-net", f"--net-dir={task_dir}"]
    assert argv[4:] == (net if appended else [])


REFERENCE_KEYS = {
    "policy": {
        "allowed",
        "denied",
        "max_parallel",
        "default_isolation",
        "default_mode",
        "default_network",
        "default_timeout",
        "allow_recursion",
        "allow_inplace_write",
        "max_depth",
    },
    "worktree": {"copy", "link", "setup"},
    "models": None,
    "role": None,
    "agent": None,
}
"""What the reference's strict schema accepts at the top of a file (``RawFileSchema``)."""


def test_the_file_caesar_init_writes_is_one_the_reference_reads() -> None:
    """Untouched, it declares only sections the reference knows (it refuses any other)."""
    data = tomllib.loads(DEFAULT_PROJECT_CONFIG)
    assert set(data) <= set(REFERENCE_KEYS)
    for section, keys in REFERENCE_KEYS.items():
        if keys is not None and section in data:
            assert set(data[section]) <= keys


def test_max_depth_means_what_it_means_to_the_reference(tmp_path: Path) -> None:
    """A task's depth must be below ``max_depth``: the reference's ``max_depth = 2`` lets the
    main agent delegate and refuses the delegate's own delegation."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (root / ".caesar").mkdir()
    (root / ".caesar" / "config.toml").write_text("[policy]\nmax_depth = 2\n")
    quick = ["run", "x", "--agent", "demo", "--context", '{"script": "quick"}']
    first = caesar(root, *quick, "--json")
    assert first.returncode == 0, first.stderr
    nested = caesar(root, *quick, env={"CAESAR_DEPTH": "1"})
    assert nested.returncode == 2
    assert "depth 2 reaches policy.max_depth = 2" in nested.stderr
