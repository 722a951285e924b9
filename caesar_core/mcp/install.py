"""``caesar mcp install CLIENT``: register ``caesar mcp serve`` where each client looks.

Each client keeps its MCP servers in its own file and format. The entry named ``caesar`` is
ours and is replaced; every other entry, key and (for TOML) comment is kept as it was. A
file we cannot read is refused, never overwritten: it may hold a user's only copy of their
other servers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from caesar_core.clientfiles import (
    QWEN_SETTINGS_VERSION,
    ClientFileUnreadableError,
    Installation,
    installation,
    json_object,
    json_text,
)
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.executable import caesar_command

SERVER = "caesar"
CLIENTS = ("claude", "codex", "opencode", "gemini", "copilot", "qwen")


class ConfigUnreadableError(ClientFileUnreadableError):
    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, detail, kind="configuration", command="caesar mcp install")


def server_command(root: Path) -> tuple[str, list[str]]:
    """How a client starts ``caesar mcp serve`` for ``root``: an absolute executable
    (``caesar_command``), since clients start servers with their own PATH."""
    command, *prefix = caesar_command()
    return command, [*prefix, "mcp", "serve", "--root", str(root)]


def plan(client: str, root: Path, *, home: Path | None = None) -> Installation:
    """What installing for ``client`` would write; nothing is written here."""
    home = home or Path.home()
    command, args = server_command(root)
    targets: dict[str, tuple[Path, Callable[[str | None], str]]] = {
        "claude": (root / ".mcp.json", lambda text: _claude(text, command, args)),
        "gemini": (root / ".gemini" / "settings.json", lambda text: _gemini(text, command, args)),
        "opencode": (root / "opencode.json", lambda text: _opencode(text, command, args)),
        "codex": (_codex_home(home) / "config.toml", lambda text: _codex(text, command, args)),
        "copilot": (root / ".github" / "mcp.json", lambda text: _copilot(text, command, args)),
        "qwen": (root / ".qwen" / "settings.json", lambda text: _qwen(text, command, args)),
    }
    if client not in targets:
        raise CaesarError(
            f"unknown client {client!r}",
            f"use one of: {', '.join(CLIENTS)}",
            exit_code=ExitCode.USAGE,
        )
    path, render = targets[client]
    return installation(client, path, render, ConfigUnreadableError)


def _codex_home(home: Path) -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else home / ".codex"


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    section = data.setdefault(key, {})
    if not isinstance(section, dict):
        raise ValueError(f"{key!r} is not an object")
    return section


def _claude(text: str | None, command: str, args: list[str]) -> str:
    data = json_object(text)
    _section(data, "mcpServers")[SERVER] = {"type": "stdio", "command": command, "args": args}
    return json_text(data)


def _gemini(text: str | None, command: str, args: list[str]) -> str:
    data = json_object(text)
    _section(data, "mcpServers")[SERVER] = {"command": command, "args": args}
    return json_text(data)


def _qwen(text: str | None, command: str, args: list[str]) -> str:
    """Qwen Code (a Gemini CLI fork) keeps its servers in Gemini CLI's shape, in a file that
    carries its format's version (``clientfiles.QWEN_SETTINGS_VERSION``)."""
    data = json_object(text)
    data.setdefault("$version", QWEN_SETTINGS_VERSION)
    _section(data, "mcpServers")[SERVER] = {"command": command, "args": args}
    return json_text(data)


def _copilot(text: str | None, command: str, args: list[str]) -> str:
    """Copilot CLI's workspace servers (``copilot mcp add`` writes the same shape to the
    user's ``mcp-config.json``): every tool of the server offered (``tools``)."""
    data = json_object(text)
    server = {"type": "local", "command": command, "args": args, "tools": ["*"]}
    _section(data, "mcpServers")[SERVER] = server
    return json_text(data)


def _opencode(text: str | None, command: str, args: list[str]) -> str:
    data = json_object(text)
    data.setdefault("$schema", "https://opencode.ai/config.json")
    _section(data, "mcp")[SERVER] = {
        "type": "local",
        "command": [command, *args],
        "enabled": True,
    }
    return json_text(data)


def _codex(text: str | None, command: str, args: list[str]) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(text or "")
    except TOMLKitError as error:
        raise ValueError(str(error)) from None
    servers = document.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document["mcp_servers"] = servers
    elif not isinstance(servers, dict):
        raise ValueError("mcp_servers is not a table")
    entry = tomlkit.table()
    entry["command"] = command
    entry["args"] = args
    servers[SERVER] = entry
    return tomlkit.dumps(document)
