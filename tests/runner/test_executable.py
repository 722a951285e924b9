"""One lookup of the caesar executable: what mcp install, hooks install and the return channel
hand to other processes, and what the demo agent's delegate runs."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from caesar_core.executable import caesar_command
from tests.runner.conftest import caesar, run_json
from tests.runner.test_broken_clis import stand_in


def test_the_script_beside_the_interpreter_else_the_interpreter_with_dash_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    monkeypatch.setattr(sys, "executable", str(python))
    on_path = tmp_path / "elsewhere"
    on_path.mkdir()
    (on_path / "caesar").write_text("#!/bin/sh\n")
    (on_path / "caesar").chmod(0o755)
    monkeypatch.setenv("PATH", str(on_path))
    # No script beside: another installation's caesar on PATH is not this code.
    assert caesar_command() == [str(python), "-m", "caesar_core"]
    (bin_dir / "caesar").write_text("#!/bin/sh\n")
    assert caesar_command() == [str(python), "-m", "caesar_core"]  # not executable
    (bin_dir / "caesar").chmod(0o755)
    assert caesar_command() == [str(bin_dir / "caesar")]


def test_mcp_install_hooks_install_and_the_channel_name_the_same_caesar(
    repo: Path, tmp_path: Path
) -> None:
    env = {"CODEX_HOME": str(tmp_path / "codex")}
    assert caesar(repo, "mcp", "install", "claude", "--root", str(repo), env=env).returncode == 0
    server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["caesar"]
    assert caesar(repo, "hooks", "install", "claude-code", "--root", str(repo)).returncode == 0
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    hook = settings["hooks"]["PreToolUse"][-1]["hooks"][0]["command"]
    # A stand-in claude (it only says its version): the run lays down the task and its channel.
    claude = stand_in(
        tmp_path / "bin",
        "claude",
        "case \"$1\" in --version) echo '2.1.0'; exit 0;; esac\nexit 1\n",
    )
    started = run_json(repo, "look", "--agent", "claude", "--channel", env=claude)
    task = json.loads(Path(started["task_dir"], "task.json").read_text())
    channel = task["channel"]

    executable = server["command"]
    assert Path(executable).is_absolute()
    assert shlex.split(hook)[0] == executable
    assert channel["command"] == executable
    assert "channel serve --task-dir" in shlex.join(channel["args"])
