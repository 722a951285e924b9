"""``caesar config`` outside a terminal: what the screen shows, printed once (text or JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.runner.conftest import caesar, caesar_env, repo

__all__ = ["repo"]

CONFIG = [sys.executable, "-c", "from caesar_tui.cli import config; config(prog_name='caesar')"]
"""The command itself in its own process, whether or not this install registers it."""


def run(root: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CONFIG, *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=caesar_env({"XDG_CONFIG_HOME": str(home)}),
        check=False,
        timeout=60,
    )


def test_piped_it_prints_the_three_tables(repo: Path, tmp_path: Path) -> None:
    (repo / ".caesar").mkdir()
    (repo / ".caesar" / "config.toml").write_text('[policy]\ndenied = ["codex"]\n')
    done = run(repo, home=tmp_path / "xdg")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "[agents]" in out and "[roles]" in out and "[policy]" in out
    assert f'denied               ["codex"]  project ({repo}/.caesar/config.toml)' in out

    shown = json.loads(run(repo, "--json", home=tmp_path / "xdg").stdout)
    assert shown["layers"]["project"] == str(repo / ".caesar" / "config.toml")
    denied = next(s for s in shown["policy"] if s["key"] == "policy.denied")
    assert denied["origin"] == "project" and denied["value"] == ["codex"]
    assert {row["name"] for row in shown["roles"]} >= {"reviewer", "implementer"}


def test_a_config_that_does_not_load_exits_2(repo: Path, tmp_path: Path) -> None:
    (repo / ".caesar").mkdir()
    (repo / ".caesar" / "config.toml").write_text("[policy\n")
    done = run(repo, "--json", home=tmp_path / "xdg")
    assert done.returncode == 2
    assert "invalid TOML" in json.loads(done.stdout)["problem"]


@pytest.mark.skipif(
    "config" not in {ep.name for ep in entry_points(group="caesar.commands")},
    reason="caesar config is not registered in this install: run `pip install -e .` again",
)
def test_it_joins_the_caesar_command(repo: Path) -> None:
    done = caesar(repo, "config", "--json")
    assert done.returncode == 0, done.stderr
    assert "policy" in json.loads(done.stdout)
