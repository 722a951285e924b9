"""``caesar role list|show|add|remove``: named jobs, their agents and what each picks now."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from caesar_core.cli.common import emit_json, project_options, table
from caesar_core.cli.layered import layer_options, show_change
from caesar_core.terminal import safe_text

if TYPE_CHECKING:
    from caesar_core.config import Layer, LoadedConfig


@click.group()
def role() -> None:
    """Roles: a job, its agents in fallback order, and the defaults of its tasks."""


def _rows(loaded: LoadedConfig) -> list[dict[str, Any]]:
    from caesar_core.agents.listing import role_rows
    from caesar_core.config.provenance import origin_of

    rows = role_rows(loaded)
    for row in rows:
        origin, path = origin_of(loaded, f"role.{row['name']}")
        row["origin"] = origin
        row["path"] = None if path is None else str(path)
    return rows


@role.command("list")
@project_options
def role_list(root: Path, as_json: bool) -> None:
    """Every role: its agents in fallback order and the one it would pick now."""
    from caesar_core.config import load_config

    rows = _rows(load_config(root))
    if as_json:
        emit_json(rows)
        return
    table(
        [
            [
                r["name"],
                r["mode"],
                " > ".join(r["agents"]),
                r["would_pick"] or f"none ({'; '.join(r['skipped']) or '-'})",
                r["origin"],
            ]
            for r in rows
        ],
        ["ROLE", "MODE", "AGENTS (FALLBACK ORDER)", "WOULD PICK", "FROM"],
    )


@role.command("show")
@click.argument("name")
@project_options
def role_show(name: str, root: Path, as_json: bool) -> None:
    """One role: every setting, where it was declared, the agent it picks, its prompt."""
    from caesar_core.config import load_config
    from caesar_core.configure import known_role

    loaded = load_config(root)
    known_role(loaded, name)
    found = loaded.config.role(name)
    assert found is not None  # known_role refused otherwise
    row = next(r for r in _rows(loaded) if r["name"] == name)
    prompt = found.read_system_prompt(root)
    shown = {
        **found.model_dump(mode="json"),
        "would_pick": row["would_pick"],
        "skipped": row["skipped"],
        "origin": row["origin"],
        "path": row["path"],
        "system_prompt": prompt,
    }
    if as_json:
        emit_json(shown)
        return
    origin = row["origin"] if row["path"] is None else f"{row['origin']} ({row['path']})"
    lines = [
        ("from", origin),
        ("purpose", found.purpose or "-"),
        ("agents", " > ".join(found.agents)),
        ("would pick", row["would_pick"] or f"none ({'; '.join(row['skipped']) or '-'})"),
        ("mode", found.mode.value),
        ("isolation", found.isolation),
        ("network", found.network),
        ("timeout", str(found.timeout)),
        ("model", found.model or "- ([models] decides per agent)"),
        ("prompt file", found.system_prompt_file or "-"),
    ]
    click.echo(f"role {name}")
    for label, value in lines:
        click.echo(safe_text(f"  {label:<12} {value}"))
    click.echo("")
    click.echo(safe_text(prompt.rstrip() or "(no system prompt)", lines=True))


@role.command("add")
@click.argument("name")
@click.option("--purpose", help="What the role is for (shown to main agents).")
@click.option("--agents", "agents", help="Agent ids in fallback order: a,b,c.")
@click.option("--mode", type=click.Choice(["read-only", "write"]))
@click.option("--isolation", type=click.Choice(["inplace", "worktree", "auto"]))
@click.option("--network", type=click.Choice(["auto", "on", "off"]))
@click.option("--timeout", help="e.g. 10m, 1h.")
@click.option("--model", help="The model its tasks ask for (wins over [models]).")
@click.option("--system-prompt-file", help="Markdown prepended to the brief, under .caesar/.")
@layer_options
@project_options
def role_add(
    name: str,
    purpose: str | None,
    agents: str | None,
    mode: str | None,
    isolation: str | None,
    network: str | None,
    timeout: str | None,
    model: str | None,
    system_prompt_file: str | None,
    layer: Layer,
    dry_run: bool,
    root: Path,
    as_json: bool,
) -> None:
    """Declare the role NAME in that layer, whole. An existing role (a built-in one too)
    keeps the values not given; a new one needs --agents and --mode."""
    from caesar_core.configure import Editor

    fields = {
        "purpose": purpose,
        "agents": None if agents is None else [a.strip() for a in agents.split(",") if a.strip()],
        "mode": mode,
        "isolation": isolation,
        "network": network,
        "timeout": timeout,
        "model": model,
        "system_prompt_file": system_prompt_file,
    }
    show_change(Editor(root).add_role(layer, name, fields), dry_run=dry_run, as_json=as_json)


@role.command("remove")
@click.argument("name")
@layer_options
@project_options
def role_remove(name: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Remove that layer's [[role]] NAME (a built-in role declared nowhere cannot be)."""
    from caesar_core.configure import Editor

    show_change(Editor(root).remove_role(layer, name), dry_run=dry_run, as_json=as_json)
