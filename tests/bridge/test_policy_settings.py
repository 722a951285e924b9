"""begin's bridge settings: the stdlib answer for a project that configured nothing is the one
``load_config`` gives, and any layer file there goes through ``load_config``."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.bridge import policy
from caesar_core.config import load_config


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}


def test_no_layer_file_answers_what_load_config_answers(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".caesar").mkdir(parents=True)
    assert policy.default_settings() == policy.configured_settings(project, tmp_path / "xdg")
    assert policy.settings(str(project), env_for(tmp_path)) == policy.default_settings()
    assert load_config(project, config_home=tmp_path / "xdg").layers == []


@pytest.mark.parametrize(
    "where",
    ["project/.caesar/config.toml", "project/.caesar/config.local.toml", "xdg/caesar/config.toml"],
)
def test_any_layer_file_is_read_by_load_config(tmp_path: Path, where: str) -> None:
    """A broken file anywhere refuses the begin, as before; a rule in any layer applies."""
    project = tmp_path / "project"
    (project / ".caesar").mkdir(parents=True)
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[policy]\nmax_paralel = 2\n")
    with pytest.raises(policy.PolicyError, match="configuration refused"):
        policy.settings(str(project), env_for(tmp_path))
    path.write_text('[[bridge.rule]]\ntool = "Bash"\ndecision = "deny"\n')
    rules = policy.settings(str(project), env_for(tmp_path))["rules"]
    assert [rule["tool"] for rule in rules] == ["Bash"]


def test_a_link_to_nothing_is_not_taken_for_no_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".caesar").mkdir(parents=True)
    (project / ".caesar" / "config.toml").symlink_to(tmp_path / "gone.toml")
    with pytest.raises(policy.PolicyError, match="symbolic link"):
        policy.settings(str(project), env_for(tmp_path))
