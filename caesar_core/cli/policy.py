"""``caesar policy show|allow|deny``: the effective policy and where each value came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from caesar_core.cli.common import emit_json, project_options, table
from caesar_core.cli.layered import layer_options, show_change

if TYPE_CHECKING:
    from caesar_core.config import Layer


@click.group()
def policy() -> None:
    """The policy: which agents may run, how many at once, and the tasks' defaults."""


@policy.command("show")
@project_options
def policy_show(root: Path, as_json: bool) -> None:
    """Every [policy] key: its effective value and the layer that set it."""
    from caesar_core.config import load_config
    from caesar_core.config.provenance import section_settings

    settings = section_settings(load_config(root), "policy")
    if as_json:
        emit_json(
            {
                "policy": {s.key.removeprefix("policy."): s.value for s in settings},
                "settings": [s.to_json() for s in settings],
            }
        )
        return
    table(
        [
            [
                s.key.removeprefix("policy."),
                json.dumps(s.value, ensure_ascii=False),
                s.origin if s.path is None else f"{s.origin} ({s.path})",
            ]
            for s in settings
        ],
        ["KEY", "VALUE", "FROM"],
    )


@policy.command("allow")
@click.argument("agent_id")
@layer_options
@project_options
def policy_allow(agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Add AGENT_ID to policy.allowed (and take it out of policy.denied)."""
    from caesar_core.configure import Editor

    change = Editor(root).allow(layer, agent_id)
    show_change(change, dry_run=dry_run, as_json=as_json)


@policy.command("deny")
@click.argument("agent_id")
@layer_options
@project_options
def policy_deny(agent_id: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Add AGENT_ID to policy.denied: it never runs (denied wins over allowed)."""
    from caesar_core.configure import Editor

    change = Editor(root).deny(layer, agent_id)
    show_change(change, dry_run=dry_run, as_json=as_json)


@policy.command("set")
@click.argument("key")
@click.argument("value")
@layer_options
@project_options
def policy_set(
    key: str, value: str, layer: Layer, dry_run: bool, root: Path, as_json: bool
) -> None:
    """Set [policy] KEY to VALUE, written as in TOML (4, true, "write", ["codex"]); a bare
    word is a string (10m, read-only)."""
    from caesar_core.configure import Editor, toml_value

    change = Editor(root).set_value(layer, ("policy", key), toml_value(value))
    show_change(change, dry_run=dry_run, as_json=as_json)


@policy.command("unset")
@click.argument("key")
@layer_options
@project_options
def policy_unset(key: str, layer: Layer, dry_run: bool, root: Path, as_json: bool) -> None:
    """Remove [policy] KEY from that layer: a less specific layer's value (or the default)
    applies again."""
    from caesar_core.configure import Editor

    show_change(Editor(root).unset_value(layer, ("policy", key)), dry_run=dry_run, as_json=as_json)
