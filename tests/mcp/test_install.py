"""``caesar mcp install copilot|qwen``: the ``caesar`` entry merged into each client's project
file, everything else kept, an unreadable file refused untouched. (The real CLIs reading what
was written: ``tests/live/test_mcp_install_live.py``.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import run_caesar

FILES = {"copilot": ".github/mcp.json", "qwen": ".qwen/settings.json"}


def install(repo: Path, client: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_caesar("mcp", "install", client, *args, "--root", str(repo))


@pytest.mark.parametrize("client", sorted(FILES))
def test_install_merges_with_the_users_servers_and_settings(repo: Path, client: str) -> None:
    path = repo / FILES[client]
    path.parent.mkdir(parents=True, exist_ok=True)
    mine: dict[str, Any] = {
        "theme": "dark",
        "mcpServers": {"docs": {"command": "npx", "args": ["docs"]}},
    }
    path.write_text(json.dumps(mine))

    dry = install(repo, client, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would write" in dry.stdout
    assert json.loads(path.read_text()) == mine

    done = install(repo, client)
    assert done.returncode == 0, done.stderr
    written = json.loads(path.read_text())
    assert written["theme"] == "dark"
    assert written["mcpServers"]["docs"] == mine["mcpServers"]["docs"]
    server = written["mcpServers"]["caesar"]
    assert Path(server["command"]).is_absolute()
    assert server["args"][-4:] == ["mcp", "serve", "--root", str(repo.resolve())]
    assert "already up to date" in install(repo, client).stdout


def test_qwen_settings_carry_their_version(repo: Path) -> None:
    """Without ``$version`` Qwen Code rewrites the file at its next start (a task's diff)."""
    assert install(repo, "qwen").returncode == 0
    assert json.loads((repo / ".qwen" / "settings.json").read_text())["$version"] == 4


def test_copilot_gets_its_own_server_shape(repo: Path) -> None:
    assert install(repo, "copilot").returncode == 0
    server = json.loads((repo / ".github" / "mcp.json").read_text())["mcpServers"]["caesar"]
    assert (server["type"], server["tools"]) == ("local", ["*"])


@pytest.mark.parametrize("client", sorted(FILES))
def test_a_file_that_does_not_parse_is_refused_untouched(repo: Path, client: str) -> None:
    path = repo / FILES[client]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json")
    done = install(repo, client)
    assert done.returncode == 2
    assert "cannot be read" in done.stderr and "remedy" in done.stderr
    assert path.read_text() == "{ not json"


def test_an_unknown_client_lists_the_known_ones(repo: Path) -> None:
    done = install(repo, "cursor")
    assert done.returncode == 2
    assert "copilot" in done.stderr and "qwen" in done.stderr
