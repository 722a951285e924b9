"""What ``caesar mcp install copilot|qwen`` writes, read by the real CLIs: each lists the
``caesar`` server from the project's file (``copilot mcp list``, ``qwen mcp list``; no model
needed). Copilot CLI reads workspace servers only in a folder it trusts, Qwen Code lists a
project's server as pending until the user approves it: both as a user would see them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.live.clis import CACHE, cli_path, requires
from tests.mcp.conftest import run_caesar


def _run(cli: str, repo: Path, home: Path, *args: str) -> str:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_CACHE_HOME": str(CACHE / "copilot-xdg-cache"),
        "COPILOT_OFFLINE": "true",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [str(cli_path(cli)), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("trusted", [True, False])
@requires("copilot")
def test_copilot_lists_the_installed_server_in_a_trusted_folder(
    repo: Path, tmp_path: Path, trusted: bool
) -> None:
    assert run_caesar("mcp", "install", "copilot", "--root", str(repo)).returncode == 0
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    folders = [str(repo.resolve())] if trusted else []
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": folders}))

    listed = _run("copilot", repo, home, "mcp", "list")

    assert ("Workspace servers:\n  caesar (local)" in listed) == trusted, listed


@requires("qwen")
def test_qwen_lists_the_installed_server(repo: Path, tmp_path: Path) -> None:
    assert run_caesar("mcp", "install", "qwen", "--root", str(repo)).returncode == 0
    (tmp_path / "home").mkdir()

    listed = _run("qwen", repo, tmp_path / "home", "mcp", "list")

    line = next(row for row in listed.splitlines() if "caesar:" in row)
    assert f"mcp serve --root {repo.resolve()} (stdio)" in line
