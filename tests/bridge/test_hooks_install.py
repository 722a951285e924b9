"""``caesar hooks install``: our hooks merged into each client's settings, nothing else touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from caesar_core.bridge.hooks_install import TARGETS, is_caesar_hook
from tests.runner.conftest import caesar

FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "qwen": ".qwen/settings.json",
}
COPILOT = ".github/hooks/caesar.json"


def ours(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Event -> the caesar hook commands registered for it."""
    found: dict[str, list[str]] = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if is_caesar_hook(handler.get("command")):
                    found.setdefault(event, []).append(handler["command"])
    return found


@pytest.mark.parametrize("client", sorted(FILES))
def test_install_into_an_empty_project(tmp_path: Path, client: str) -> None:
    done = caesar(tmp_path, "hooks", "install", client, "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    settings = json.loads((tmp_path / FILES[client]).read_text())
    registered = ours(settings)
    assert set(registered) == set(TARGETS[client].events)
    for commands in registered.values():
        assert len(commands) == 1
        executable, hook, name = commands[0].rsplit(" ", 2)
        assert Path(executable).is_absolute()
        assert (hook, name) == ("hook", client)
    for groups in settings["hooks"].values():
        assert groups[-1]["matcher"] == "*"
        assert groups[-1]["hooks"][0]["type"] == "command"


@pytest.mark.parametrize(
    ("client", "event"),
    [("claude-code", "PreToolUse"), ("codex", "PreToolUse"), ("qwen", "PreToolUse")],
)
def test_the_pre_tool_hook_may_wait_for_an_approval(
    tmp_path: Path, client: str, event: str
) -> None:
    """VS Code reads Claude's file with a 30 s default: a killed hook lets the call run."""
    caesar(tmp_path, "hooks", "install", client, "--root", str(tmp_path))
    settings = json.loads((tmp_path / FILES[client]).read_text())
    assert settings["hooks"][event][-1]["hooks"][0]["timeout"] == 600


def test_gemini_gives_the_pre_tool_hook_time_for_an_approval(tmp_path: Path) -> None:
    caesar(tmp_path, "hooks", "install", "gemini", "--root", str(tmp_path))
    settings = json.loads((tmp_path / FILES["gemini"]).read_text())
    (before_tool,) = settings["hooks"]["BeforeTool"]
    assert before_tool["hooks"][0]["timeout"] == 600_000  # milliseconds in Gemini
    assert before_tool["hooks"][0]["name"] == "caesar"


def test_qwen_settings_carry_their_version_so_qwen_never_rewrites_them(tmp_path: Path) -> None:
    """Qwen Code 0.24.4 migrates a settings file without ``$version`` (rewriting it) at its
    next start; a version already there is kept."""
    caesar(tmp_path, "hooks", "install", "qwen", "--root", str(tmp_path))
    assert json.loads((tmp_path / FILES["qwen"]).read_text())["$version"] == 4
    (tmp_path / FILES["qwen"]).write_text('{"$version": 5, "theme": "dark"}')
    caesar(tmp_path, "hooks", "install", "qwen", "--root", str(tmp_path))
    settings = json.loads((tmp_path / FILES["qwen"]).read_text())
    assert (settings["$version"], settings["theme"]) == (5, "dark")


def test_copilot_gets_its_own_file_in_its_own_shape(tmp_path: Path) -> None:
    """No matcher groups, the command under ``bash``, ``timeoutSec``; PascalCase events, so
    Copilot CLI sends Claude-format payloads."""
    done = caesar(tmp_path, "hooks", "install", "copilot", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / COPILOT).read_text())
    assert config["version"] == 1
    assert set(config["hooks"]) == set(TARGETS["copilot"].events)
    for event, handlers in config["hooks"].items():
        (handler,) = handlers
        assert handler["type"] == "command"
        assert handler["bash"].endswith(" hook copilot") and is_caesar_hook(handler["bash"])
        assert handler.get("timeoutSec") == (600 if event == "PreToolUse" else None)


def test_copilot_hooks_merge_with_what_the_file_holds(tmp_path: Path) -> None:
    path = tmp_path / COPILOT
    path.parent.mkdir(parents=True)
    mine = {"type": "command", "bash": "./audit.sh", "timeoutSec": 5}
    stale = {"type": "command", "bash": "/old/bin/caesar hook copilot"}
    path.write_text(json.dumps({"version": 1, "hooks": {"PreToolUse": [mine, stale]}}))
    assert caesar(tmp_path, "hooks", "install", "copilot", "--root", str(tmp_path)).returncode == 0
    pre = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert pre[0] == mine and len(pre) == 2 and "/old/bin" not in path.read_text()
    again = caesar(tmp_path, "hooks", "install", "copilot", "--root", str(tmp_path))
    assert "already up to date" in again.stdout


def test_install_merges_and_replaces_only_caesar_hooks(tmp_path: Path) -> None:
    path = tmp_path / FILES["claude-code"]
    path.parent.mkdir()
    existing: dict[str, Any] = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "/x/guard.sh", "timeout": 30},
                        {"type": "command", "command": "/old/venv/bin/caesar hook claude-code"},
                    ],
                },
                {"matcher": "Write", "hooks": [{"type": "http", "url": "http://127.0.0.1:1/h"}]},
            ],
            "SessionStart": [{"hooks": [{"type": "command", "command": "/abs/start.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "caesar hook claude-code"}]}],
        },
    }
    path.write_text(json.dumps(existing))
    done = caesar(tmp_path, "hooks", "install", "claude-code", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    settings = json.loads(path.read_text())
    assert settings["permissions"] == existing["permissions"]
    assert settings["hooks"]["SessionStart"] == existing["hooks"]["SessionStart"]
    pre = settings["hooks"]["PreToolUse"]
    assert pre[0] == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "/x/guard.sh", "timeout": 30}],
    }
    assert pre[1] == existing["hooks"]["PreToolUse"][1]
    assert len(pre) == 3
    assert all(len(commands) == 1 for commands in ours(settings).values())
    assert "/old/venv" not in path.read_text()
    # A second install changes nothing.
    again = caesar(tmp_path, "hooks", "install", "claude-code", "--root", str(tmp_path))
    assert "already up to date" in again.stdout
    assert json.loads(path.read_text()) == settings


def test_dry_run_shows_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / FILES["codex"]
    path.parent.mkdir()
    path.write_text('{"hooks": {}}\n')
    done = caesar(tmp_path, "hooks", "install", "codex", "--dry-run", "--root", str(tmp_path))
    assert done.returncode == 0
    assert done.stdout.startswith("---")
    assert '+        "matcher": "*",' in done.stdout
    assert "would write" in done.stdout
    assert path.read_text() == '{"hooks": {}}\n'
    absent = tmp_path / FILES["gemini"]
    caesar(tmp_path, "hooks", "install", "gemini", "--dry-run", "--root", str(tmp_path))
    assert not absent.exists()


@pytest.mark.parametrize("text", ["{ not json", "[]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_an_unreadable_file_is_refused_and_left_untouched(tmp_path: Path, text: str) -> None:
    path = tmp_path / FILES["gemini"]
    path.parent.mkdir()
    path.write_text(text)
    done = caesar(tmp_path, "hooks", "install", "gemini", "--root", str(tmp_path))
    assert done.returncode == 2
    assert "nothing was written" in done.stderr
    assert path.read_text() == text


def test_json_output(tmp_path: Path) -> None:
    done = caesar(tmp_path, "hooks", "install", "codex", "--json", "--root", str(tmp_path))
    result = json.loads(done.stdout)
    assert (result["client"], result["changed"], result["written"]) == ("codex", True, True)
    assert result["path"].endswith(".codex/hooks.json")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/usr/local/bin/caesar hook claude-code", True),
        ("caesar hook gemini --integration-mode managed_hook", True),
        ("/venv/bin/caesar hook copilot", True),
        ("/venv/bin/caesar hook qwen", True),
        ("/usr/bin/python3 -m caesar_core hook codex", True),
        ("'/path with space/caesar' hook vscode", True),
        ("/x/guard.sh hook claude-code", False),
        ("caesar mcp serve", False),
        ("caesar hook unknown-client", False),
        ("echo 'unbalanced", False),
    ],
)
def test_which_commands_are_ours(command: str, expected: bool) -> None:
    assert is_caesar_hook(command) is expected
