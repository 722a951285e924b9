"""``caesar init --agent CLIENT``: the skill and commands written where each client reads them.

Where each client looks (project scope):

* claude (Claude Code): the skill in ``.claude/skills/caesar/SKILL.md`` (it does not read the
  shared folder), commands in ``.claude/commands/caesar-*.md``; and caesar's read-only MCP
  tools added to ``permissions.allow`` of ``.claude/settings.json`` (other entries kept).
* codex, opencode, gemini, copilot: the skill in the shared ``.agents/skills/caesar/SKILL.md``,
  which each of them reads. Commands: opencode ``.opencode/commands/caesar-*.md`` (Markdown,
  ``description`` only in the front matter), Gemini CLI ``.gemini/commands/caesar-*.toml``
  (``description`` and ``prompt``, ``{{args}}`` for the arguments); Copilot CLI has no
  command files but runs a skill by its name, so each command is a skill of its own in
  ``.github/skills/caesar-*/SKILL.md`` (a folder only Copilot reads); Codex reads custom
  prompts only from its home directory, so it gets the skill alone.

Every file caesar writes carries a marker line with the SHA-256 of the rest of its text
(a YAML comment in the front matter, a TOML comment). Running ``init`` again refreshes a file
whose text still matches its marker; a file changed since, or one caesar did not write, is
kept and reported (``--force-assets`` replaces it).
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path, PurePosixPath
from typing import Literal

from caesar_core import safefs
from caesar_core.clientfiles import (
    ClientFileUnreadableError,
    Installation,
    installation,
    json_object,
    json_text,
)
from caesar_core.errors import CaesarError, ExitCode

CLIENTS = ("claude", "codex", "opencode", "gemini", "copilot")
BINARIES: Mapping[str, str] = {client: client for client in CLIENTS}
"""The executable whose presence on PATH makes ``init`` write a client's assets."""
COMMANDS = ("caesar-delegate", "caesar-review", "caesar-tasks")
SERVER = "caesar"
READ_ONLY_TOOLS = (
    "caesar_await",
    "caesar_status",
    "caesar_logs",
    "caesar_diff",
    "caesar_list_agents",
    "caesar_list_roles",
)
"""The orchestrator's tools that change nothing (``readOnlyHint``; a test checks the server
agrees), which Claude Code may call without asking."""

SHARED_SKILL = ".agents/skills/caesar/SKILL.md"
_MARKER = re.compile(r"^# caesar-asset sha256=([0-9a-f]{16})\b[^\n]*\n", re.MULTILINE)
_MARKER_TEXT = (
    "# caesar-asset sha256={digest} (written by `caesar init`, which refreshes this file "
    "while it is unchanged)\n"
)
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)

Action = Literal["created", "refreshed", "unchanged", "kept", "replaced"]


@dataclass(frozen=True)
class Asset:
    relative: str
    """Where it goes, relative to the project root."""
    text: str
    """The content, marker included."""
    clients: tuple[str, ...]


@dataclass(frozen=True)
class Placed:
    asset: Asset
    path: Path
    action: Action
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.asset.relative,
            "clients": list(self.asset.clients),
            "action": self.action,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Plan:
    """Everything ``init`` would write for the clients; nothing is written until ``write``."""

    root: Path
    clients: tuple[str, ...]
    placed: tuple[Placed, ...]
    settings: Installation | None
    """``.claude/settings.json`` with the read-only tools allowed (claude only)."""

    def write(self) -> None:
        for item in self.placed:
            if item.action in ("created", "refreshed", "replaced"):
                safefs.atomic_write(self.root, item.asset.relative, item.asset.text.encode())
        if self.settings is not None and self.settings.changed:
            self.settings.write()


def detected(which: Callable[[str], str | None] = shutil.which) -> tuple[str, ...]:
    """The clients whose executable is on PATH."""
    return tuple(client for client in CLIENTS if which(BINARIES[client]) is not None)


def plan(root: Path, clients: Sequence[str], *, force: bool = False) -> Plan:
    """What writing the assets of ``clients`` (none: the shared skill alone) would do.

    A ``.claude/settings.json`` that does not parse is refused here (exit 2), before
    anything is written."""
    unknown = [client for client in clients if client not in CLIENTS]
    if unknown:
        raise CaesarError(
            f"unknown client {unknown[0]!r}",
            f"use one of: {', '.join(CLIENTS)}",
            exit_code=ExitCode.USAGE,
        )
    chosen = tuple(dict.fromkeys(clients))
    placed = tuple(_place(root, asset, force=force) for asset in assets(chosen))
    settings = _settings(root) if "claude" in chosen else None
    return Plan(root, chosen, placed, settings)


def assets(clients: Sequence[str]) -> list[Asset]:
    """Every file for ``clients``, each path once (the shared skill serves four); no client:
    the shared skill alone."""
    found: dict[str, tuple[str, list[str]]] = {}

    def add(relative: str, text: str, client: str | None) -> None:
        owners = found.setdefault(relative, (text, []))[1]
        if client is not None:
            owners.append(client)

    skill = _source("skill/SKILL.md")
    if not clients:
        add(SHARED_SKILL, skill, None)
    for client in clients:
        add(".claude/skills/caesar/SKILL.md" if client == "claude" else SHARED_SKILL, skill, client)
        if client in _COMMANDS:
            relative, render = _COMMANDS[client]
            for name in COMMANDS:
                text = render(name, _source(f"commands/{name}.md"))
                add(relative.format(name=name), text, client)
    return [
        Asset(relative, _marked(text), tuple(owners)) for relative, (text, owners) in found.items()
    ]


def allowed_tools() -> list[str]:
    """The read-only tools as Claude Code names them (``mcp__<server>__<tool>``)."""
    return [f"mcp__{SERVER}__{tool}" for tool in READ_ONLY_TOOLS]


# -- one file --------------------------------------------------------------------------------


def _place(root: Path, asset: Asset, *, force: bool) -> Placed:
    """What writing ``asset`` would do. The file is read as any file an agent may have
    written is (``safefs``: no link followed, no FIFO waited on, bounded)."""
    path = root / asset.relative
    try:
        now = safefs.read_bytes(root, asset.relative).decode("utf-8")
    except FileNotFoundError:
        return Placed(asset, path, "created")
    except (OSError, UnicodeDecodeError) as error:
        why = f"not a file caesar can read ({error})"
        if force and _parents_safe(root, asset.relative):
            return Placed(asset, path, "replaced", why)
        return Placed(asset, path, "kept", f"{why}; --force-assets replaces it")
    if now == asset.text:
        return Placed(asset, path, "unchanged")
    ours = _unchanged_since_written(now)
    if ours:
        return Placed(asset, path, "refreshed")
    why = "changed since caesar wrote it" if ours is None else "not written by caesar"
    if force:
        return Placed(asset, path, "replaced", why)
    return Placed(asset, path, "kept", f"{why}; --force-assets replaces it")


def _parents_safe(root: Path, relative: str) -> bool:
    """Whether every directory above ``relative`` is a real directory (not a link)."""
    parent = PurePosixPath(relative).parent
    try:
        with safefs.directory(root, parent):
            return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _unchanged_since_written(text: str) -> bool | None:
    """True: caesar wrote it and nobody changed it since; None: caesar wrote it, it was
    changed; False: no marker, not caesar's."""
    found = _MARKER.search(text)
    if found is None:
        return False
    rest = text[: found.start()] + text[found.end() :]
    return True if _digest(rest) == found.group(1) else None


def _marked(text: str) -> str:
    """``text`` with its marker: the last line of the front matter, or the first line."""
    front = _FRONT.match(text)
    at = front.end(1) + 1 if front else 0
    marker = _MARKER_TEXT.format(digest=_digest(text))
    return text[:at] + marker + text[at:]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _source(name: str) -> str:
    return files("caesar_core.assets").joinpath("files", *name.split("/")).read_text("utf-8")


# -- each client's command format ------------------------------------------------------------


def _split(text: str) -> tuple[dict[str, str], str]:
    """A command's front matter (one ``key: value`` a line) and its body."""
    front = _FRONT.match(text)
    if front is None:
        return {}, text
    fields = {}
    for line in front.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, text[front.end() :].lstrip("\n")


def _front(fields: Mapping[str, str], body: str) -> str:
    lines = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\n{lines}---\n\n{body}"


def _claude(name: str, text: str) -> str:
    return text


def _opencode(name: str, text: str) -> str:
    fields, body = _split(text)
    return _front({"description": fields["description"]}, body)


def _gemini(name: str, text: str) -> str:
    import tomlkit

    fields, body = _split(text)
    document = tomlkit.document()
    document["description"] = fields["description"]
    document["prompt"] = tomlkit.string(body.replace("$ARGUMENTS", "{{args}}"), multiline=True)
    return tomlkit.dumps(document)


def _copilot(name: str, text: str) -> str:
    fields, body = _split(text)
    said = f"(what the user wrote after /{name})"
    return _front({"name": name, "description": fields["description"]}, body).replace(
        "$ARGUMENTS", said
    )


_COMMANDS: Mapping[str, tuple[str, Callable[[str, str], str]]] = {
    "claude": (".claude/commands/{name}.md", _claude),
    "opencode": (".opencode/commands/{name}.md", _opencode),
    "gemini": (".gemini/commands/{name}.toml", _gemini),
    "copilot": (".github/skills/{name}/SKILL.md", _copilot),
}


# -- Claude Code's allow list ----------------------------------------------------------------


class SettingsUnreadableError(ClientFileUnreadableError):
    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, detail, kind="settings", command="caesar init")


def _settings(root: Path) -> Installation:
    return installation(
        "claude", root / ".claude" / "settings.json", _allow_tools, SettingsUnreadableError
    )


def _allow_tools(text: str | None) -> str:
    data = json_object(text)
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise TypeError("permissions is not a JSON object")
    allow = permissions.setdefault("allow", [])
    if not isinstance(allow, list):
        raise TypeError("permissions.allow is not an array")
    added = [tool for tool in allowed_tools() if tool not in allow]
    if text is not None and not added:
        return text  # as the user formatted it
    allow.extend(added)
    return json_text(data)
