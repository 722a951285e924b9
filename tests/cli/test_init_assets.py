"""``caesar init --agent``: the skill, the slash commands and Claude Code's allow list, written
where each client reads them, through the real executable."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from caesar_core.assets.install import READ_ONLY_TOOLS, allowed_tools
from tests.runner.conftest import caesar, repo

__all__ = ["repo"]

ALL = ("claude", "codex", "opencode", "gemini", "copilot")
COMMANDS = ("caesar-delegate", "caesar-review", "caesar-tasks")
TAUGHT = (
    "caesar_delegate",
    "caesar_await",
    "caesar_answer",
    "caesar_diff",
    "caesar_apply",
    "caesar_reject",
    "caesar_continue",
    "caesar_comment",
    "caesar_check",
    "caesar_list_roles",
)
FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


def init(root: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    done = caesar(root, "init", *args, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def front_matter(path: Path) -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    found = FRONT.match(path.read_text())
    assert found, f"{path} has no front matter"
    data = yaml.safe_load(found.group(1))
    assert isinstance(data, dict)
    return data


def test_each_client_gets_its_files_in_its_own_place(repo: Path) -> None:
    args = [arg for client in ALL for arg in ("--agent", client)]
    done = init(repo, *args)
    actions = {item["path"]: item for item in done["assets"]}
    assert set(actions) == {
        ".claude/skills/caesar/SKILL.md",
        ".agents/skills/caesar/SKILL.md",
        *(f".claude/commands/{name}.md" for name in COMMANDS),
        *(f".opencode/commands/{name}.md" for name in COMMANDS),
        *(f".gemini/commands/{name}.toml" for name in COMMANDS),
        *(f".github/skills/{name}/SKILL.md" for name in COMMANDS),
    }
    assert all(item["action"] == "created" for item in done["assets"])
    assert actions[".agents/skills/caesar/SKILL.md"]["clients"] == [
        "codex",
        "opencode",
        "gemini",
        "copilot",
    ]

    for skill in (".claude/skills/caesar/SKILL.md", ".agents/skills/caesar/SKILL.md"):
        meta = front_matter(repo / skill)
        assert meta["name"] == "caesar" and "caesar" in meta["description"]
        body = (repo / skill).read_text()
        for tool in TAUGHT:
            assert f"`{tool}`" in body
    claude = front_matter(repo / ".claude/commands/caesar-delegate.md")
    assert set(claude) == {"description", "argument-hint"}
    assert "$ARGUMENTS" in (repo / ".claude/commands/caesar-delegate.md").read_text()
    opencode = front_matter(repo / ".opencode/commands/caesar-review.md")
    assert set(opencode) == {"description"}
    for name in COMMANDS:
        gemini = tomllib.loads((repo / f".gemini/commands/{name}.toml").read_text())
        assert set(gemini) == {"description", "prompt"}
        assert "{{args}}" in gemini["prompt"] and "$ARGUMENTS" not in gemini["prompt"]
        copilot = front_matter(repo / f".github/skills/{name}/SKILL.md")
        assert copilot["name"] == name  # a skill's name is its folder's
        assert "$ARGUMENTS" not in (repo / f".github/skills/{name}/SKILL.md").read_text()

    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    assert settings["permissions"]["allow"] == allowed_tools()
    assert done["settings"]["changed"] is True


def test_claude_settings_are_merged_keeping_everything_else(repo: Path) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    mine: dict[str, Any] = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)", "mcp__caesar__caesar_diff"], "deny": ["X"]},
        "hooks": {"Stop": []},
    }
    path.write_text(json.dumps(mine))
    init(repo, "--agent", "claude")
    merged = json.loads(path.read_text())
    assert merged["model"] == "opus" and merged["hooks"] == {"Stop": []}
    assert merged["permissions"]["deny"] == ["X"]
    assert merged["permissions"]["allow"][:2] == ["Bash(npm test)", "mcp__caesar__caesar_diff"]
    assert sorted(merged["permissions"]["allow"]) == sorted({"Bash(npm test)", *allowed_tools()})
    before = path.read_bytes()
    again = init(repo, "--agent", "claude")
    assert again["settings"]["changed"] is False and path.read_bytes() == before


def test_a_settings_file_that_does_not_parse_stops_init_before_any_write(repo: Path) -> None:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    done = caesar(repo, "init", "--agent", "claude")
    assert done.returncode == 2
    assert "settings.json" in done.stderr and "nothing was written" in done.stderr
    assert path.read_text() == "{ not json"
    assert not (repo / ".caesar").exists() and not (repo / ".claude" / "skills").exists()


def test_init_again_refreshes_caesar_files_and_keeps_the_users(repo: Path) -> None:
    init(repo, "--agent", "claude", "--agent", "gemini")
    skill = repo / ".claude/skills/caesar/SKILL.md"
    changed = repo / ".claude/commands/caesar-tasks.md"
    mine = repo / ".claude/commands/caesar-review.md"
    older = repo / ".gemini/commands/caesar-delegate.toml"
    # an older caesar's file: its marker matches its (older) text
    current = older.read_text()
    text = current.replace("Delegate this work", "Hand this work")
    marker = re.search(r"sha256=([0-9a-f]{16})", text)
    assert marker
    rest = re.sub(r"^# caesar-asset [^\n]*\n", "", text, flags=re.MULTILINE)
    older.write_text(text.replace(marker.group(1), hashlib.sha256(rest.encode()).hexdigest()[:16]))
    changed.write_text(changed.read_text() + "\nAlso list the worktrees.\n")
    mine.write_text("my own review command\n")

    again = {
        item["path"]: item
        for item in init(repo, "--agent", "claude", "--agent", "gemini")["assets"]
    }
    assert again[".gemini/commands/caesar-delegate.toml"]["action"] == "refreshed"
    assert older.read_text() == current
    assert again[".claude/skills/caesar/SKILL.md"]["action"] == "unchanged"
    assert again[".claude/commands/caesar-tasks.md"]["action"] == "kept"
    assert "changed since caesar wrote it" in again[".claude/commands/caesar-tasks.md"]["reason"]
    assert changed.read_text().endswith("Also list the worktrees.\n")
    assert again[".claude/commands/caesar-review.md"]["action"] == "kept"
    assert "not written by caesar" in again[".claude/commands/caesar-review.md"]["reason"]
    assert mine.read_text() == "my own review command\n"
    assert skill.exists()

    forced = init(repo, "--agent", "claude", "--force-assets")
    replaced = {item["path"]: item["action"] for item in forced["assets"]}
    assert replaced[".claude/commands/caesar-review.md"] == "replaced"
    assert "caesar_" in mine.read_text()


def test_no_skills_writes_none(repo: Path) -> None:
    done = init(repo, "--agent", "claude", "--no-skills")
    assert done["assets"] == [] and done["settings"] is None
    assert not (repo / ".claude").exists() and not (repo / ".agents").exists()


def _fake_path(tmp_path: Path, *names: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in names:
        tool = bin_dir / name
        tool.write_text("#!/bin/sh\nexit 0\n")
        tool.chmod(0o755)
    return os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])


def test_by_default_the_clients_found_on_path(repo: Path, tmp_path: Path) -> None:
    done = init(repo, env={"PATH": _fake_path(tmp_path, "claude", "gemini")})
    assert done["clients"] == ["claude", "gemini"]
    paths = {item["path"] for item in done["assets"]}
    assert ".claude/commands/caesar-delegate.md" in paths
    assert ".gemini/commands/caesar-tasks.toml" in paths
    assert not any(path.startswith((".opencode", ".github")) for path in paths)


def test_none_on_path_gives_the_shared_skill_alone(repo: Path, tmp_path: Path) -> None:
    done = caesar(repo, "init", env={"PATH": _fake_path(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "the shared skill only" in done.stdout
    assert (repo / ".agents/skills/caesar/SKILL.md").exists()
    assert not (repo / ".claude").exists()


async def test_the_allowed_tools_are_the_servers_read_only_ones(repo: Path) -> None:
    from caesar_core.mcp.orchestrator import build_server

    server, session = build_server(repo)
    try:
        tools = await server.list_tools()
    finally:
        session.close()
    read_only = {
        tool.name for tool in tools if tool.annotations and tool.annotations.read_only_hint
    }
    assert read_only == set(READ_ONLY_TOOLS)


def test_the_assets_are_package_data(tmp_path: Path) -> None:
    """The skill and commands load from the installed package, not from the source tree."""
    code = "from caesar_core.assets.install import assets; print(len(assets(['claude'])))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "4"


def test_links_and_fifos_in_the_assets_places_are_neither_followed_nor_waited_on(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("not caesar's\n")
    commands = repo / ".claude" / "commands"
    commands.mkdir(parents=True)
    os.mkfifo(commands / "caesar-tasks.md")
    (commands / "caesar-review.md").symlink_to(outside)
    done = {item["path"]: item for item in init(repo, "--agent", "claude")["assets"]}
    assert done[".claude/commands/caesar-tasks.md"]["action"] == "kept"
    assert done[".claude/commands/caesar-review.md"]["action"] == "kept"
    assert "not a file caesar can read" in done[".claude/commands/caesar-review.md"]["reason"]
    assert done[".claude/commands/caesar-delegate.md"]["action"] == "created"

    forced = {
        item["path"]: item for item in init(repo, "--agent", "claude", "--force-assets")["assets"]
    }
    assert forced[".claude/commands/caesar-review.md"]["action"] == "replaced"
    assert not (commands / "caesar-review.md").is_symlink()
    assert outside.read_text() == "not caesar's\n"


def test_a_linked_client_folder_is_not_written_through(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".gemini").symlink_to(elsewhere)
    done = {
        item["path"]: item for item in init(repo, "--agent", "gemini", "--force-assets")["assets"]
    }
    assert done[".gemini/commands/caesar-tasks.toml"]["action"] == "kept"
    assert list(elsewhere.iterdir()) == []
