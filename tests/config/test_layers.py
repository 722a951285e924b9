"""Layers: discovery, merge rules (tables by key, lists replace, entries by id) and provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.config import (
    DEFAULT_SOURCE,
    Config,
    Duration,
    LoadedConfig,
    Policy,
    layer_path,
    load_config,
    xdg_config_home,
)
from caesar_core.protocol.task import Mode
from tests.config.conftest import Layers

JQ = """
[[agent]]
id = "jqagent"
bin = "/path/agent.sh"
args = "{{prompt}}"
"""


def test_no_file_at_all_gives_the_defaults(layers: Layers) -> None:
    loaded = layers.load()
    assert loaded.config == Config()
    assert loaded.layers == []
    policy = loaded.config.policy
    assert (policy.allowed, policy.denied) == ([], [])
    assert (policy.max_parallel, policy.max_depth) == (4, 3)
    assert policy.default_mode is Mode.WRITE
    assert (policy.default_isolation, policy.default_network) == ("auto", "auto")
    assert policy.default_timeout == Duration(600_000)
    assert policy.timeout_ms == 600_000
    assert policy.allow_inplace_write is False
    assert (loaded.config.worktree.copy, loaded.config.worktree.link) == ([], [])
    assert loaded.config.worktree.setup == []
    assert loaded.config.models == {}
    assert loaded.config.agents == []
    bridge = loaded.config.bridge
    assert (bridge.approval_timeout.ms, bridge.on_approval_timeout, bridge.rules) == (
        120_000,
        "deny",
        [],
    )
    roles = {role.name: role for role in loaded.config.roles}
    assert list(roles) == ["reviewer", "implementer", "investigator"]
    assert roles["reviewer"].mode is Mode.READ_ONLY
    assert (roles["implementer"].mode, roles["implementer"].isolation) == (Mode.WRITE, "worktree")
    assert (roles["investigator"].mode, roles["investigator"].isolation) == (
        Mode.READ_ONLY,
        "auto",
    )
    assert all(role.agents[-1] == "demo" for role in roles.values())
    assert loaded.source_of("policy.allow_inplace_write") == DEFAULT_SOURCE


def test_empty_files_are_fine_and_are_listed_as_read(layers: Layers) -> None:
    paths = [layers.write(layer, "") for layer in ("global", "project", "local")]
    loaded = layers.load()
    assert loaded.config == Config()
    assert loaded.layers == paths


def test_each_layer_overrides_the_one_before_key_by_key(layers: Layers) -> None:
    glob = layers.write(
        "global", "[policy]\nmax_parallel = 8\nmax_depth = 3\ndefault_timeout = '1h'\n"
    )
    proj = layers.write("project", "[policy]\nmax_depth = 5\ndefault_mode = 'read-only'\n")
    local = layers.write("local", "[policy]\nallow_inplace_write = true\nmax_depth = 1\n")
    loaded = layers.load()
    policy = loaded.config.policy
    assert policy.max_parallel == 8  # global only
    assert policy.default_timeout.ms == 3_600_000  # global only
    assert policy.default_mode is Mode.READ_ONLY  # project only
    assert policy.max_depth == 1  # all three: local wins
    assert policy.allow_inplace_write is True
    assert loaded.layers == [glob, proj, local]
    assert loaded.source_of("policy.max_parallel") == str(glob)
    assert loaded.source_of("policy.default_mode") == str(proj)
    assert loaded.source_of("policy.max_depth") == str(local)
    assert loaded.source_of("policy.allow_inplace_write") == str(local)
    assert loaded.source_of("policy.denied") == DEFAULT_SOURCE
    # A table answers the most specific file that set anything in it.
    assert loaded.source_of("policy") == str(local)
    assert loaded.source_of("bridge") == DEFAULT_SOURCE


def test_lists_replace_never_union(layers: Layers) -> None:
    layers.write("global", '[policy]\nallowed = ["codex", "claude"]\n[worktree]\ncopy = [".env"]\n')
    proj = layers.write("project", '[policy]\nallowed = ["demo"]\n')
    local = layers.write("local", "[worktree]\ncopy = []\n")
    loaded = layers.load()
    assert loaded.config.policy.allowed == ["demo"]
    assert loaded.config.worktree.copy == []
    assert loaded.source_of("policy.allowed") == str(proj)
    assert loaded.source_of("worktree.copy") == str(local)


def test_bridge_rules_are_a_list_and_replace_too(layers: Layers) -> None:
    layers.write(
        "global",
        '[[bridge.rule]]\ntool = "Bash"\ndecision = "deny"\n'
        '[[bridge.rule]]\ntool = "Edit"\ndecision = "allow"\n',
    )
    proj = layers.write(
        "project",
        '[bridge]\napproval_timeout = "30s"\n[[bridge.rule]]\ntool = "*"\ndecision = "halt"\n',
    )
    loaded = layers.load()
    assert [rule.tool for rule in loaded.config.bridge.rules] == ["*"]
    assert loaded.config.bridge.approval_timeout.ms == 30_000
    assert loaded.source_of("bridge.rule") == str(proj)


def test_models_merge_key_by_key(layers: Layers) -> None:
    glob = layers.write("global", '[models]\ncodex = "gpt-5"\nclaude = "opus"\n')
    local = layers.write("local", '[models]\nclaude = "sonnet"\n')
    loaded = layers.load()
    assert loaded.config.models == {"codex": "gpt-5", "claude": "sonnet"}
    assert loaded.source_of("models.codex") == str(glob)
    assert loaded.source_of("models.claude") == str(local)
    assert loaded.source_of("models.gemini") == DEFAULT_SOURCE


def test_agents_merge_by_id_replacing_whole_entries_in_first_seen_order(layers: Layers) -> None:
    glob = layers.write(
        "global",
        '[[agent]]\nid = "alpha"\nbin = "a"\nargs = "-v {{prompt}}"\nnative_read_only = true\n'
        '[[agent]]\nid = "beta"\nbin = "b"\n',
    )
    proj = layers.write(
        "project",
        '[[agent]]\nid = "gamma"\nbin = "g"\n[[agent]]\nid = "alpha"\nbin = "a2"\n',
    )
    loaded = layers.load()
    agents = loaded.config.agents
    assert [agent.id for agent in agents] == ["alpha", "beta", "gamma"]
    alpha = loaded.config.agent("alpha")
    assert alpha is not None
    # The whole entry was replaced: the global args and native_read_only did not survive.
    assert (alpha.bin, alpha.args, alpha.native_read_only) == ("a2", "{{prompt}}", False)
    assert loaded.source_of("agent.alpha") == str(proj)
    assert loaded.source_of("agent.alpha.bin") == str(proj)
    assert loaded.source_of("agent.beta.args") == str(glob)
    assert loaded.config.agent("nope") is None


def test_roles_merge_by_name_over_the_builtin_ones(layers: Layers) -> None:
    proj = layers.write(
        "project",
        '[[role]]\nname = "docs"\nagents = ["claude"]\nmode = "write"\n'
        '[[role]]\nname = "reviewer"\nagents = ["claude", "codex"]\nmode = "read-only"\n'
        'timeout = "20m"\nmodel = "opus"\n',
    )
    local = layers.write(
        "local", '[[role]]\nname = "docs"\nagents = ["gemini"]\nmode = "read-only"\n'
    )
    loaded = layers.load()
    assert [role.name for role in loaded.config.roles] == [
        "reviewer",
        "implementer",
        "investigator",
        "docs",
    ]
    reviewer = loaded.config.role("reviewer")
    assert reviewer is not None
    assert (reviewer.agents, reviewer.timeout_ms, reviewer.model) == (
        ["claude", "codex"],
        1_200_000,
        "opus",
    )
    assert reviewer.purpose == ""  # replaced whole: the built-in purpose is gone
    assert reviewer.system_prompt_file is None
    docs = loaded.config.role("docs")
    assert docs is not None and docs.agents == ["gemini"] and docs.mode is Mode.READ_ONLY
    assert loaded.source_of("role.reviewer.timeout") == str(proj)
    assert loaded.source_of("role.docs") == str(local)
    assert loaded.source_of("role.implementer.mode") == DEFAULT_SOURCE
    assert loaded.config.model_for("codex", reviewer) == "opus"


def test_the_issue_example_agent_loads(layers: Layers) -> None:
    layers.write("project", JQ)
    agent = layers.load().config.agent("jqagent")
    assert agent is not None
    assert (agent.bin, agent.args, agent.cwd_mode, agent.env) == (
        "/path/agent.sh",
        "{{prompt}}",
        "process",
        {},
    )
    assert agent.render_args({"prompt": "hello world"}) == ["hello world"]


def test_a_full_agent_entry_loads(layers: Layers) -> None:
    layers.write(
        "project",
        """
[[agent]]
id = "my-cli_2"
bin = "my-cli"
args = "run --cd {{workspace}} --model {{model}} --report {{reportPath}} {{prompt}}"
display_name = "My CLI"
cwd_mode = "flag"
native_read_only = true
read_only_args = "--read-only"
network_args = "--offline"
env = { MY_CLI_COLOR = "0", _X = "y" }
[models]
my-cli_2 = "large"
""",
    )
    config = layers.load().config
    agent = config.agent("my-cli_2")
    assert agent is not None
    assert agent.env == {"MY_CLI_COLOR": "0", "_X": "y"}
    assert config.model_for("my-cli_2") == "large"
    values = {
        "prompt": "p",
        "workspace": "/w",
        "reportPath": "/r",
        "model": config.model_for(agent.id),
    }
    assert agent.render_args(values) == [
        "run", "--cd", "/w", "--model", "large", "--report", "/r", "p",
    ]  # fmt: skip


def test_root_none_reads_only_the_global_layer(layers: Layers) -> None:
    glob = layers.write("global", "[policy]\nmax_parallel = 2\n")
    layers.write("project", "[policy]\nmax_parallel = 3\n")
    loaded = load_config(None, config_home=layers.home)
    assert loaded.config.policy.max_parallel == 2
    assert loaded.layers == [glob]


def test_layer_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "p"
    assert layer_path(root, "project") == root / ".caesar" / "config.toml"
    assert layer_path(root, "local") == root / ".caesar" / "config.local.toml"
    assert layer_path(None, "global", tmp_path) == tmp_path / "caesar" / "config.toml"
    with pytest.raises(ValueError, match="pass its root"):
        layer_path(None, "project")

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert layer_path(None, "global") == tmp_path / "xdg" / "caesar" / "config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # the XDG spec says: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert xdg_config_home() == tmp_path / "home" / ".config"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert layer_path(None, "global") == tmp_path / "home" / ".config" / "caesar" / "config.toml"


def test_the_environment_picks_the_global_layer(
    layers: Layers, monkeypatch: pytest.MonkeyPatch
) -> None:
    layers.write("global", "[policy]\nmax_parallel = 7\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(layers.home))
    assert load_config(layers.root).config.policy.max_parallel == 7


def test_source_of_refuses_keys_that_do_not_exist(layers: Layers) -> None:
    layers.write("project", JQ)
    loaded = layers.load()
    for key in ("policy.max_paralel", "nope", "agent.jqagent.nope", "models.a.b", "role.x.y.z"):
        with pytest.raises(KeyError):
            loaded.source_of(key)
    # Ids are open-ended: a built-in agent or role no file defines comes from the defaults.
    assert loaded.source_of("agent.codex") == DEFAULT_SOURCE
    assert loaded.source_of("agent.codex.args") == DEFAULT_SOURCE
    assert loaded.source_of("role.reviewer") == DEFAULT_SOURCE
    # Whole arrays are known keys: they answer the most specific file with an entry in them.
    assert loaded.source_of("agent") == str(layers.path("project"))
    assert loaded.source_of("role") == DEFAULT_SOURCE


def test_a_loaded_config_can_be_built_in_code() -> None:
    """Callers' tests build one without files: defaults everywhere, sources all default."""
    loaded = LoadedConfig(Config(policy=Policy(max_parallel=1)))
    assert loaded.config.policy.max_parallel == 1
    assert loaded.source_of("policy.max_parallel") == DEFAULT_SOURCE


def test_policy_permits_names_the_rule() -> None:
    open_policy = Policy()
    assert open_policy.permits("codex") == (
        True,
        "policy.allowed is empty and policy.denied does not list 'codex'",
    )
    policy = Policy(allowed=["codex", "claude"], denied=["claude"])
    assert policy.permits("codex") == (True, "policy.allowed lists 'codex'")
    assert policy.permits("claude") == (False, "policy.denied lists 'claude'")  # denied wins
    allowed, why = policy.permits("gemini")
    assert not allowed
    assert why == "policy.allowed does not list 'gemini' (it lists codex, claude)"
