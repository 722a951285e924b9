"""``caesar policy``, ``role``, ``agents`` edits, ``init --global`` and ``doctor --verbose``
through the real executable, on real files in a temporary project and config home."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from caesar_core.config import LAYERS, Config, Layer, layer_path, load_config
from tests.runner.conftest import caesar, repo

__all__ = ["repo"]

PROJECT = """\
# team settings: keep this comment
[policy]
max_parallel = 3  # the CI box
# denied = []
"""
GLOBAL = '[policy]\nmax_depth = 5\n\n[[agent]]\nid = "jq"\nbin = "/usr/bin/jq"\n'
LOCAL = '# mine\n[models]\nclaude = "opus"\n'


class Project:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home

    def path(self, layer: Layer) -> Path:
        return layer_path(self.root, layer, self.home)

    def write(self, layer: Layer, text: str) -> None:
        self.path(layer).parent.mkdir(parents=True, exist_ok=True)
        self.path(layer).write_text(text)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return caesar(self.root, *args, env={"XDG_CONFIG_HOME": str(self.home)})

    def json(self, *args: str) -> Any:
        done = self.run(*args, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def digests(self) -> dict[str, str | None]:
        return {
            layer: hashlib.sha256(self.path(layer).read_bytes()).hexdigest()
            if self.path(layer).exists()
            else None
            for layer in LAYERS
        }

    def effective(self) -> Config:
        return load_config(self.root, config_home=self.home).config


@pytest.fixture
def project(repo: Path, tmp_path: Path) -> Project:
    made = Project(repo, tmp_path / "xdg")
    made.write("global", GLOBAL)
    made.write("project", PROJECT)
    made.write("local", LOCAL)
    return made


def test_policy_show_says_where_each_value_came_from(project: Project) -> None:
    shown = project.json("policy", "show")
    settings = {s["key"]: s for s in shown["settings"]}
    assert shown["policy"]["max_parallel"] == 3
    assert settings["policy.max_parallel"]["origin"] == "project"
    assert settings["policy.max_depth"]["origin"] == "global"
    assert settings["policy.max_depth"]["path"] == str(project.path("global"))
    assert settings["policy.default_timeout"] == {
        "key": "policy.default_timeout",
        "value": "10m",
        "origin": "default",
        "path": None,
    }
    text = project.run("policy", "show").stdout
    assert f"project ({project.path('project')})" in text
    assert "max_depth" in text and "default_timeout" in text


def test_deny_writes_only_its_layer_and_keeps_the_comments(project: Project) -> None:
    before = project.digests()
    done = project.run("policy", "deny", "codex")
    assert done.returncode == 0, done.stderr
    assert "policy.denied in the project layer lists codex" in done.stdout

    after = project.digests()
    assert after["global"] == before["global"] and after["local"] == before["local"]
    text = project.path("project").read_text()
    assert text.startswith(PROJECT)  # every line and comment kept, the key added in [policy]
    assert tomllib.loads(text)["policy"]["denied"] == ["codex"]
    assert project.effective().policy.denied == ["codex"]
    again = project.json("policy", "deny", "codex")
    assert again["changed"] is False and again["written"] is False


def test_dry_run_prints_the_diff_and_writes_nothing(project: Project) -> None:
    before = project.digests()
    done = project.run("agents", "set-model", "codex", "gpt-5", "--local", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert '+codex = "gpt-5"' in done.stdout
    assert f"would write {project.path('local')}" in done.stdout
    shown = project.json("agents", "set-model", "codex", "gpt-5", "--local", "--dry-run")
    assert shown["written"] is False and shown["changed"] is True
    assert '+codex = "gpt-5"' in shown["diff"]
    assert project.digests() == before


def test_editing_a_layer_that_does_not_exist_creates_it(repo: Path, tmp_path: Path) -> None:
    project = Project(repo, tmp_path / "xdg")
    created = project.json("agents", "disable", "gemini", "--local")
    assert created["created"] is True and created["layer"] == "local"
    assert tomllib.loads(project.path("local").read_text()) == {"policy": {"denied": ["gemini"]}}
    made = project.json("agents", "set-model", "claude", "sonnet", "--global")
    assert made["path"] == str(project.path("global")) and made["created"] is True
    assert not project.path("project").exists()
    assert project.effective().models == {"claude": "sonnet"}


def test_a_layer_that_does_not_parse_is_refused_untouched(project: Project) -> None:
    project.write("project", "[policy\nmax_parallel = 2\n")
    before = project.digests()
    done = project.run("policy", "allow", "demo")
    assert done.returncode == 2
    assert "config.toml:1:" in done.stderr and "invalid TOML" in done.stderr
    assert "remedy:" in done.stderr
    assert project.digests() == before


def test_an_edit_that_would_make_the_config_invalid_is_refused(project: Project) -> None:
    before = project.digests()
    no_prompt = project.run("agents", "add", "bad", "--bin", "/bin/echo", "--args", "hello")
    assert no_prompt.returncode == 2
    assert "{{prompt}}" in no_prompt.stderr and "nothing was written" in no_prompt.stderr
    too_long = project.run(
        "role", "add", "slow", "--agents", "demo", "--mode", "write", "--timeout", "900h"
    )
    assert too_long.returncode == 2 and "168h" in too_long.stderr
    assert project.digests() == before


def test_unknown_agents_and_roles_list_the_known_ones(project: Project) -> None:
    agent = project.run("agents", "enable", "nosuch")
    assert agent.returncode == 2
    assert "unknown agent 'nosuch'" in agent.stderr
    assert "demo, codex, claude, opencode, gemini, copilot, qwen, jq" in agent.stderr
    role = project.run("role", "show", "nosuch")
    assert role.returncode == 2
    assert "reviewer, implementer, investigator" in role.stderr
    in_role = project.run("role", "add", "r", "--agents", "demo,ghost", "--mode", "write")
    assert in_role.returncode == 2 and "unknown agent 'ghost'" in in_role.stderr


def test_removing_what_the_layer_does_not_declare_names_the_layer_that_does(
    project: Project,
) -> None:
    before = project.digests()
    elsewhere = project.run("agents", "remove", "jq")
    assert elsewhere.returncode == 2
    assert "the project layer does not declare [[agent]] jq: the global layer does" in (
        elsewhere.stderr
    )
    assert "--global" in elsewhere.stderr
    builtin = project.run("role", "remove", "reviewer", "--local")
    assert builtin.returncode == 2 and "built-in" in builtin.stderr
    model = project.run("agents", "unset-model", "claude")
    assert model.returncode == 2 and "the local layer does" in model.stderr
    assert project.digests() == before

    removed = project.json("agents", "remove", "jq", "--global")
    assert removed["written"] is True
    assert "jq" not in {agent.id for agent in project.effective().agents}
    assert project.path("global").read_text() == "[policy]\nmax_depth = 5\n"


def test_a_more_specific_layer_that_would_win_is_named(project: Project) -> None:
    project.write("local", LOCAL + '\n[policy]\ndenied = ["opencode"]\n')
    before = project.digests()
    done = project.run("policy", "deny", "codex")
    assert done.returncode == 2
    assert "the local layer sets policy.denied too" in done.stderr
    assert "--local" in done.stderr
    assert project.digests() == before
    local = project.json("agents", "disable", "codex", "--local")
    assert local["denied"] == ["opencode", "codex"]


def test_allow_undenies_and_warns_when_it_narrows_the_list(project: Project) -> None:
    project.write("global", GLOBAL.replace("max_depth = 5", 'max_depth = 5\ndenied = ["demo"]'))
    done = project.json("policy", "allow", "demo")
    assert done["allowed"] == ["demo"]
    notes = " ".join(done["notes"])
    assert "demo was denied" in notes
    assert "the other agents cannot run" in notes
    assert "the global layer's policy.denied no longer reaches it" in notes
    policy = project.effective().policy
    assert policy.permits("demo")[0] and not policy.permits("codex")[0]
    enabled = project.json("agents", "enable", "codex")
    assert project.effective().policy.allowed == ["demo", "codex"]
    assert enabled["changed"] is True


def test_roles_add_list_show_remove(project: Project) -> None:
    added = project.json(
        "role", "add", "fixer", "--agents", "demo", "--mode", "write", "--purpose", "Fixes."
    )
    assert added["written"] is True
    rows = {row["name"]: row for row in project.json("role", "list")}
    assert rows["fixer"]["would_pick"] == "demo" and rows["fixer"]["origin"] == "project"
    assert rows["reviewer"]["origin"] == "default"
    shown = project.json("role", "show", "reviewer")
    assert shown["mode"] == "read-only" and "You review code" in shown["system_prompt"]
    text = project.run("role", "show", "fixer").stdout
    assert "would pick   demo" in text and "Fixes." in text

    # an existing (built-in) role keeps what is not given
    project.json("role", "add", "reviewer", "--agents", "demo", "--local")
    reviewer = project.effective().role("reviewer")
    assert reviewer is not None
    assert reviewer.agents == ["demo"] and reviewer.mode.value == "read-only"
    assert reviewer.timeout.ms == 600_000

    new_needs = project.run("role", "add", "vague", "--agents", "demo")
    assert new_needs.returncode == 2 and "--mode" in new_needs.stderr
    removed = project.json("role", "remove", "fixer")
    assert removed["written"] is True
    assert project.effective().role("fixer") is None
    assert project.path("project").read_text().startswith(PROJECT)


def test_agents_add_then_list_then_remove(project: Project) -> None:
    added = project.json(
        "agents",
        "add",
        "echoer",
        "--bin",
        "/bin/echo",
        "--read-only-args",
        "--dry",
        "--native-read-only",
    )
    assert added["written"] is True
    rows = {row["id"]: row for row in project.json("agents", "list")}
    assert rows["echoer"]["installed"] is True
    assert rows["echoer"]["capabilities"]["native_read_only"] is True
    entry = tomllib.loads(project.path("project").read_text())["agent"]
    assert entry == [
        {"id": "echoer", "bin": "/bin/echo", "native_read_only": True, "read_only_args": "--dry"}
    ]
    replaced = project.json("agents", "add", "codex", "--bin", "/bin/echo")
    assert "replaces caesar's built-in codex adapter" in " ".join(replaced["notes"])
    project.json("agents", "remove", "echoer")
    project.json("agents", "remove", "codex")
    assert project.path("project").read_text() == PROJECT


def test_agents_test_refuses_without_yes_and_says_what_it_would_do(project: Project) -> None:
    done = project.run("agents", "test", "demo")
    assert done.returncode == 2
    assert "starts a real task" in done.stderr and "--yes" in done.stderr
    assert not (project.root / ".caesar" / "state").exists()
    unknown = project.run("agents", "test", "nosuch", "--yes")
    assert unknown.returncode == 2 and "known agents: demo" in unknown.stderr


def test_agents_test_responded_only_with_a_real_report(project: Project) -> None:
    tested = project.json("agents", "test", "demo", "--yes")
    assert tested["responded"] is True, tested
    assert tested["report_source"] != "synthesized"
    text = project.run("agents", "test", "demo", "--yes")
    assert text.returncode == 0 and "demo responded in" in text.stdout

    project.json("agents", "add", "mute", "--bin", "/bin/true")
    silent = project.run("agents", "test", "mute", "--yes", "--json")
    assert silent.returncode == 1
    result = json.loads(silent.stdout)
    assert result["responded"] is False and result["report_source"] == "synthesized"


def test_init_global_writes_the_documented_config(repo: Path, tmp_path: Path) -> None:
    project = Project(repo, tmp_path / "xdg")
    done = project.json("init", "--global")
    assert done == {"path": str(project.path("global")), "written": True, "kept": False}
    text = project.path("global").read_text()
    assert "config.toml): this file" in text and "[policy]" in text
    assert load_config(None, config_home=project.home).config == load_config(None).config
    assert not (repo / ".caesar").exists()
    again = project.json("init", "--global")
    assert again["kept"] is True
    mixed = project.run("init", "--global", "--agent", "claude")
    assert mixed.returncode == 2 and "--global writes the global configuration only" in (
        mixed.stderr
    )


def test_doctor_verbose_spells_out_paths_and_capabilities(project: Project) -> None:
    checks = {c["check"]: c for c in project.json("doctor", "--verbose")}
    demo = checks["agent demo"]
    assert demo["path"] and "enforces read-only tasks itself" in demo["can"]
    assert "path" not in {c["check"]: c for c in project.json("doctor")}["agent demo"]
    text = project.run("doctor", "--verbose").stdout
    assert "path: " in text and "- caesar can cut its network" in text
