"""``caesar hooks install CLIENT``: put ``caesar hook CLIENT`` in the client's hook settings."""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import emit_json, project_options


@click.group()
def hooks() -> None:
    """Gate and record an agent's tool calls through its own hooks (caesar bridge)."""


@hooks.command("install")
@click.argument("client", type=click.Choice(["claude-code", "codex", "gemini"]))
@click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")
@project_options
def hooks_install(client: str, dry_run: bool, root: Path, as_json: bool) -> None:
    """Register `caesar hook CLIENT` in CLIENT's project settings (other hooks are kept).

    claude-code: .claude/settings.json (VS Code reads it too); codex: .codex/hooks.json;
    gemini: .gemini/settings.json.
    """
    from caesar_core.bridge.hooks_install import plan

    installation = plan(client, root.resolve())
    if not dry_run and installation.changed:
        installation.write()
    if as_json:
        emit_json(
            {
                "client": client,
                "path": str(installation.path),
                "changed": installation.changed,
                "written": installation.changed and not dry_run,
                "diff": installation.diff(),
            }
        )
        return
    if not installation.changed:
        click.echo(f"{installation.path}: already up to date")
        return
    click.echo(installation.diff().rstrip())
    verb = "would write" if dry_run else "wrote"
    click.echo(f"{verb} {installation.path}")
