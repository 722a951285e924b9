"""What ``caesar config`` shows and writes, as plain functions a thread worker runs.

:func:`read_settings` reads the effective configuration once: every agent (installed, its
version, allowed, its capabilities; versions are probed, so this is slow work), every role
with the agent it would pick now, and each ``[policy]`` key with the layer that set it.
:func:`run_edit` runs one edit of :class:`caesar_core.configure.Editor` (the ones ``caesar
policy``, ``agents`` and ``role`` make), writes it once checked, and says what came of it;
a refusal is an outcome too, nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from caesar_core.config import ConfigError, Layer, load_config
from caesar_core.config.provenance import Setting, layer_paths, origin_of, section_settings
from caesar_core.configure import Change, Editor
from caesar_core.errors import CaesarError
from caesar_core.terminal import safe_text


@dataclass(frozen=True)
class Settings:
    """One reading of the configuration (``problem``: why it could not be read)."""

    agents: list[dict[str, Any]] = field(default_factory=list)
    roles: list[dict[str, Any]] = field(default_factory=list)
    policy: list[Setting] = field(default_factory=list)
    paths: dict[Layer, Path] = field(default_factory=dict)
    problem: str | None = None


@dataclass(frozen=True)
class EditOutcome:
    ok: bool
    text: str
    notes: tuple[str, ...] = ()


def read_settings(root: Path, config_home: Path | None = None) -> Settings:
    from caesar_core.agents.listing import agent_rows, role_rows

    paths = layer_paths(root, config_home)
    try:
        loaded = load_config(root, config_home=config_home)
    except ConfigError as error:
        return Settings(paths=paths, problem=f"{error.reason}\n  remedy: {error.remedy}")
    roles = role_rows(loaded)
    for row in roles:
        row["origin"] = origin_of(loaded, f"role.{row['name']}", config_home)[0]
    return Settings(
        agents=agent_rows(loaded),
        roles=roles,
        policy=section_settings(loaded, "policy", config_home),
        paths=paths,
    )


def run_edit(root: Path, config_home: Path | None, edit: Callable[[Editor], Change]) -> EditOutcome:
    """Make the edit and write it; a refusal (an unknown id, an invalid result, a file that
    does not parse) comes back as a failed outcome with its remedy, nothing written."""
    try:
        change = edit(Editor(root, config_home))
        change.edit.write()
    except CaesarError as error:
        remedy = f"\nremedy: {error.remedy}" if error.remedy else ""
        return EditOutcome(False, f"{error.reason}{remedy}")
    if not change.edit.changed:
        return EditOutcome(True, f"already so: {change.summary}", change.notes)
    verb = "created" if change.edit.created else "wrote"
    return EditOutcome(True, f"{verb} {change.edit.path}: {change.summary}", change.notes)


def settings_json(settings: Settings) -> dict[str, Any]:
    """``caesar config --json``: the same reading as data."""
    return {
        "layers": {layer: str(path) for layer, path in settings.paths.items()},
        "agents": settings.agents,
        "roles": settings.roles,
        "policy": [setting.to_json() for setting in settings.policy],
        "problem": settings.problem,
    }


def value_text(value: Any) -> str:
    """A value as TOML writes it (``["codex"]``, ``"10m"``, ``4``, ``true``)."""
    return json.dumps(value, ensure_ascii=False)


def settings_text(settings: Settings) -> str:
    """``caesar config`` in a pipe: the three tables as text (cells made terminal-safe)."""
    if settings.problem is not None:
        return safe_text(settings.problem, lines=True) + "\n"
    sections = [
        (
            "agents",
            ["AGENT", "INSTALLED", "ALLOWED", "MODEL", "FROM"],
            [
                [
                    row["id"],
                    (row["version"] or "yes") if row["installed"] else "no",
                    "yes" if row["allowed"] else "denied",
                    row["model"] or "-",
                    row["source"],
                ]
                for row in settings.agents
            ],
        ),
        (
            "roles",
            ["ROLE", "MODE", "AGENTS", "WOULD PICK", "FROM"],
            [
                [
                    r["name"],
                    r["mode"],
                    " > ".join(r["agents"]),
                    r["would_pick"] or "none",
                    r["origin"],
                ]
                for r in settings.roles
            ],
        ),
        (
            "policy",
            ["KEY", "VALUE", "FROM"],
            [
                [
                    s.key.removeprefix("policy."),
                    value_text(s.value),
                    s.origin if s.path is None else f"{s.origin} ({s.path})",
                ]
                for s in settings.policy
            ],
        ),
    ]
    out: list[str] = []
    for title, headers, rows in sections:
        cells = [[safe_text(cell) for cell in row] for row in rows]
        widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]
        out.append(f"[{title}]")
        for row in [headers, *cells]:
            out.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        out.append("")
    return "\n".join(out)
