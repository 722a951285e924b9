"""Editing one layer's file: what the user wrote stays, the whole is checked first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core.config import ConfigError
from caesar_core.config.edit import EditRefusedError, open_layer
from caesar_core.config.provenance import (
    layers_declaring,
    layers_setting,
    origin_of,
    section_settings,
)
from tests.config.conftest import Layers

COMMENTED = """\
# my policy, reviewed by the team
[policy]
max_parallel = 3   # the CI box has 4 cores
# denied = []

[[agent]]
# the jq one
id = "jq"
bin = "/usr/bin/jq"
args = "{{prompt}}"
"""


def test_an_edit_keeps_comments_order_and_formatting(layers: Layers) -> None:
    path = layers.write("project", COMMENTED)
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.set(("policy", "denied"), ["codex"])
    file.put_entry("agent", "sh", {"bin": "/bin/sh", "args": "-c {{prompt}}"})
    edit = file.finish()
    edit.write()

    text = path.read_text()
    for line in COMMENTED.splitlines():
        assert line in text.splitlines()
    assert 'denied = ["codex"]' in text
    assert text.index('id = "jq"') < text.index('id = "sh"')
    loaded = layers.load()
    assert loaded.config.policy.denied == ["codex"]
    assert loaded.config.policy.max_parallel == 3
    assert [agent.id for agent in loaded.config.agents] == ["jq", "sh"]


def test_dry_run_diff_and_nothing_written(layers: Layers) -> None:
    path = layers.write("project", COMMENTED)
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.set(("models", "jq"), "m1")
    edit = file.finish()

    assert '+jq = "m1"' in edit.diff()
    assert edit.changed and not edit.created
    assert path.read_text() == COMMENTED


def test_a_layer_that_does_not_exist_is_created_by_the_edit(layers: Layers) -> None:
    file = open_layer(layers.root, "local", config_home=layers.home)
    file.set(("policy", "max_depth"), 1)
    edit = file.finish()
    assert edit.created and edit.diff().startswith("--- /dev/null")
    edit.write()

    assert layers.path("local").read_text() == "[policy]\nmax_depth = 1\n"
    assert layers.load().config.policy.max_depth == 1


def test_a_file_that_does_not_parse_is_refused_located_and_untouched(layers: Layers) -> None:
    path = layers.write("project", "[policy\nmax_parallel = 2\n")
    with pytest.raises(ConfigError) as refused:
        open_layer(layers.root, "project", config_home=layers.home)
    assert refused.value.exit_code == 2
    assert refused.value.line == 1 and "invalid TOML" in refused.value.reason
    assert path.read_text() == "[policy\nmax_parallel = 2\n"


def test_an_edit_that_would_make_the_config_invalid_is_refused(layers: Layers) -> None:
    path = layers.write("project", COMMENTED)
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.set(("policy", "max_parallel"), 0)
    with pytest.raises(EditRefusedError) as refused:
        file.finish()
    assert refused.value.exit_code == 2
    assert "policy.max_parallel" in refused.value.reason
    assert "nothing was written" in refused.value.reason
    assert path.read_text() == COMMENTED


def test_an_entry_left_incomplete_is_refused(layers: Layers) -> None:
    """The project's role replaces the global one whole, and names no agent."""
    layers.write("global", '[[role]]\nname = "fix"\nagents = ["demo"]\nmode = "write"\n')
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.put_entry("role", "fix", {"agents": [], "mode": "write"})
    with pytest.raises(EditRefusedError, match="agents"):
        file.finish()
    assert not layers.path("project").exists()


def test_a_file_changed_meanwhile_is_not_overwritten(layers: Layers) -> None:
    path = layers.write("project", COMMENTED)
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.set(("policy", "max_depth"), 1)
    edit = file.finish()
    path.write_text(COMMENTED + "\n# someone else\n")
    with pytest.raises(EditRefusedError, match="changed while"):
        edit.write()
    assert path.read_text().endswith("# someone else\n")


def test_a_linked_layer_is_written_through_its_link(layers: Layers, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "caesar.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text("[policy]\nmax_parallel = 2\n")
    os.chmod(dotfiles, 0o600)
    link = layers.path("global")
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    file = open_layer(layers.root, "global", config_home=layers.home)
    file.set(("policy", "max_depth"), 1)
    file.finish().write()

    assert link.is_symlink()
    assert dotfiles.read_text() == "[policy]\nmax_parallel = 2\nmax_depth = 1\n"
    assert dotfiles.stat().st_mode & 0o777 == 0o600


def test_a_byte_order_mark_stays(layers: Layers) -> None:
    path = layers.path("project")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf[policy]\nmax_parallel = 2\n")
    file = open_layer(layers.root, "project", config_home=layers.home)
    file.set(("policy", "max_depth"), 1)
    file.finish().write()
    assert path.read_bytes() == b"\xef\xbb\xbf[policy]\nmax_parallel = 2\nmax_depth = 1\n"


def test_entries_in_inline_arrays_and_their_removal(layers: Layers) -> None:
    layers.write("project", 'agent = [{ id = "a", bin = "/bin/a" }, { id = "b", bin = "/b" }]\n')
    file = open_layer(layers.root, "project", config_home=layers.home)
    assert file.entry_names("agent") == ["a", "b"]
    assert file.drop_entry("agent", "a")
    assert not file.drop_entry("agent", "zzz")
    file.put_entry("agent", "b", {"bin": "/bin/bb"})
    file.finish().write()
    assert [(a.id, a.bin) for a in layers.load().config.agents] == [("b", "/bin/bb")]


def test_provenance_names_each_values_layer(layers: Layers) -> None:
    layers.write("global", "[policy]\nmax_parallel = 2\n")
    layers.write("project", '[policy]\ndenied = ["codex"]\nmax_parallel = 3\n')
    layers.write("local", '[policy]\ndefault_timeout = "5m"\n')
    loaded = layers.load()
    settings = {s.key: s for s in section_settings(loaded, "policy", layers.home)}

    assert settings["policy.max_parallel"].origin == "project"
    assert settings["policy.max_parallel"].value == 3
    assert settings["policy.denied"].path == layers.path("project")
    assert settings["policy.default_timeout"].value == "5m"
    assert settings["policy.default_timeout"].origin == "local"
    assert settings["policy.max_depth"].origin == "default"
    assert origin_of(loaded, "role.reviewer", layers.home) == ("default", None)
    assert layers_setting(layers.root, ("policy", "max_parallel"), layers.home) == [
        "global",
        "project",
    ]
    assert layers_declaring(layers.root, "agent", "x", layers.home) == []
