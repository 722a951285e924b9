"""The config ``caesar init`` writes documents every key and loads to exactly the defaults."""

from __future__ import annotations

import re
import tomllib

import pytest

from caesar_core.config import (
    BUILTIN_ROLES,
    DEFAULT_PROJECT_CONFIG,
    DEFAULT_ROLE_PROMPTS,
    DEFAULT_SOURCE,
    GITIGNORE_LINES,
    WATCH_KEYS,
    Config,
    Policy,
)
from caesar_core.config.problems import known_keys
from tests.config.conftest import Layers

SETTING = re.compile(r"(?m)^# (?!#)")
"""A commented setting is ``# key = value``; prose is ``## ...`` and stays a comment."""


def uncommented() -> str:
    return SETTING.sub("", DEFAULT_PROJECT_CONFIG)


def test_the_default_config_loads_to_the_defaults_and_pins_nothing(layers: Layers) -> None:
    layers.write("global", "[policy]\nmax_parallel = 9\n")
    path = layers.write("project", DEFAULT_PROJECT_CONFIG)
    loaded = layers.load()
    assert loaded.layers[-1] == path
    # Everything is commented out, so the global layer still shows through.
    assert loaded.config == Config(policy=Policy(max_parallel=9))
    assert loaded.source_of("policy.default_timeout") == DEFAULT_SOURCE


def test_uncommented_the_settings_are_exactly_the_defaults(layers: Layers) -> None:
    """Each ``# key = value`` line shows the real default: uncommenting changes nothing."""
    path = layers.write("project", uncommented())
    loaded = layers.load()
    assert loaded.config == Config()
    assert loaded.source_of("policy.max_parallel") == str(path)
    assert loaded.source_of("role.reviewer") == str(path)
    assert [role.name for role in loaded.config.roles] == [role["name"] for role in BUILTIN_ROLES]


@pytest.mark.parametrize(
    ("section", "header"),
    [
        (("policy",), "[policy]"),
        (("worktree",), "[worktree]"),
        (("bridge",), "[bridge]"),
        (("bridge", "rule"), "[[bridge.rule]]"),
        (("agent",), "[[agent]]"),
        (("role",), "[[role]]"),
        (("watch",), "[watch]"),
        (("review",), "[review]"),
        (("executor",), "[executor]"),
    ],
)
def test_every_key_is_documented(section: tuple[str, ...], header: str) -> None:
    text = DEFAULT_PROJECT_CONFIG
    assert header in text
    after = text[text.index(header) :]
    for key in known_keys(section):
        if key in ("rule", "keys"):
            continue  # the [[bridge.rule]] and [watch.keys] headers document them
        assert re.search(rf"(?m)^#+ {key} = ", after), f"{header} {key} is not documented"
    assert "[models]" in text


def test_the_documented_examples_are_valid_too(layers: Layers) -> None:
    """The ``##`` examples ([[agent]], [[bridge.rule]], [models]) load once uncommented."""
    text = re.sub(r"(?m)^#+ ?(?=\[\[?[a-z.]+\]\]?$|[a-z_]+ = )", "", DEFAULT_PROJECT_CONFIG)
    layers.write("project", text)
    config = layers.load().config
    assert [agent.id for agent in config.agents] == ["jqagent"]
    assert config.bridge.rules[0].decision == "require_approval"
    assert [check.command for check in config.review.checks] == ["pytest -q", "ruff check ."]
    assert str(config.review.checks[1].timeout) == "2m"
    assert config.models == {"codex": "gpt-5-codex", "claude": "sonnet"}
    reviewer = config.role("reviewer")
    assert reviewer is not None and reviewer.model == "sonnet"
    assert config.watch.keys == WATCH_KEYS  # the documented keys are the defaults


def test_role_prompts_exist_for_every_builtin_role() -> None:
    assert set(DEFAULT_ROLE_PROMPTS) == {role["name"] for role in BUILTIN_ROLES}
    for name, prompt in DEFAULT_ROLE_PROMPTS.items():
        assert prompt.startswith("# ") and prompt.endswith("\n"), name
    for role in BUILTIN_ROLES:
        assert role["system_prompt_file"] == f"roles/{role['name']}.md"


def test_builtin_roles_read_their_default_prompt_until_the_file_exists(layers: Layers) -> None:
    reviewer = Config().role("reviewer")
    assert reviewer is not None
    assert reviewer.read_system_prompt(layers.root) == DEFAULT_ROLE_PROMPTS["reviewer"]
    prompt = layers.root / ".caesar" / "roles" / "reviewer.md"
    prompt.parent.mkdir(parents=True)
    prompt.write_text("be brief\n", encoding="utf-8")
    assert reviewer.system_prompt_path(layers.root) == prompt
    assert reviewer.read_system_prompt(layers.root) == "be brief\n"


def test_a_custom_role_without_its_prompt_file_reads_empty(layers: Layers) -> None:
    layers.write(
        "project",
        '[[role]]\nname = "docs"\nagents = ["demo"]\nmode = "write"\n'
        'system_prompt_file = "roles/docs.md"\n[[role]]\nname = "bare"\nagents = ["demo"]\n'
        'mode = "write"\n',
    )
    config = layers.load().config
    docs, bare = config.role("docs"), config.role("bare")
    assert docs is not None and bare is not None
    assert docs.read_system_prompt(layers.root) == ""
    assert bare.system_prompt_path(layers.root) is None
    assert bare.read_system_prompt(layers.root) == ""


def test_gitignore_lines() -> None:
    assert GITIGNORE_LINES == [
        ".caesar/config.local.toml",
        ".caesar/tasks/",
        ".caesar/wt/",
        ".caesar/state/",
    ]


def test_the_default_config_is_valid_toml_as_written() -> None:
    tomllib.loads(DEFAULT_PROJECT_CONFIG)
