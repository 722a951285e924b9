"""``caesar mcp install CLIENT``: register ``caesar mcp serve`` where each client looks.

Each client keeps its MCP servers in its own file and format. The entry named ``caesar`` is
ours and is replaced; every other entry, key and (for TOML) comment is kept as it was. A
file we cannot read is refused, never overwritten: it may hold a user's only copy of their
other servers.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import atomic_write

SERVER = "caesar"
CLIENTS = ("claude", "codex", "opencode", "gemini")


@dataclass(frozen=True)
class Installation:
    client: str
    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, self.after.encode())


class ConfigUnreadableError(CaesarError):
    exit_code = ExitCode.USAGE

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(
            f"{path} exists but cannot be read as its client's configuration: {detail}",
            "fix the file (or move it aside), then run `caesar mcp install` again; "
            "nothing was written",
        )


def server_command(root: Path) -> tuple[str, list[str]]:
    """How a client starts ``caesar mcp serve`` for ``root``: an absolute executable, since
    clients start servers with their own PATH."""
    beside = Path(sys.executable).with_name("caesar")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside), ["mcp", "serve", "--root", str(root)]
    found = shutil.which("caesar")
    if found:
        return str(Path(found).resolve()), ["mcp", "serve", "--root", str(root)]
    return sys.executable, ["-m", "caesar_core", "mcp", "serve", "--root", str(root)]


def plan(client: str, root: Path, *, home: Path | None = None) -> Installation:
    """What installing for ``client`` would write; nothing is written here."""
    home = home or Path.home()
    command, args = server_command(root)
    targets: dict[str, tuple[Path, Callable[[str | None], str]]] = {
        "claude": (root / ".mcp.json", lambda text: _claude(text, command, args)),
        "gemini": (root / ".gemini" / "settings.json", lambda text: _gemini(text, command, args)),
        "opencode": (root / "opencode.json", lambda text: _opencode(text, command, args)),
        "codex": (_codex_home(home) / "config.toml", lambda text: _codex(text, command, args)),
    }
    if client not in targets:
        raise CaesarError(
            f"unknown client {client!r}",
            f"use one of: {', '.join(CLIENTS)}",
            exit_code=ExitCode.USAGE,
        )
    path, render = targets[client]
    before = path.read_text() if path.exists() else None
    try:
        after = render(before)
    except (ValueError, TypeError) as error:
        raise ConfigUnreadableError(path, str(error)) from None
    return Installation(client, path, before, after)


def _codex_home(home: Path) -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else home / ".codex"


def _json_object(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the top level is not a JSON object")
    return data


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    section = data.setdefault(key, {})
    if not isinstance(section, dict):
        raise ValueError(f"{key!r} is not an object")
    return section


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _claude(text: str | None, command: str, args: list[str]) -> str:
    data = _json_object(text)
    _section(data, "mcpServers")[SERVER] = {"type": "stdio", "command": command, "args": args}
    return _dump(data)


def _gemini(text: str | None, command: str, args: list[str]) -> str:
    data = _json_object(text)
    _section(data, "mcpServers")[SERVER] = {"command": command, "args": args}
    return _dump(data)


def _opencode(text: str | None, command: str, args: list[str]) -> str:
    data = _json_object(text)
    data.setdefault("$schema", "https://opencode.ai/config.json")
    _section(data, "mcp")[SERVER] = {
        "type": "local",
        "command": [command, *args],
        "enabled": True,
    }
    return _dump(data)


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
