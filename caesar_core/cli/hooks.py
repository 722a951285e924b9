"""``caesar hooks install CLIENT``: put ``caesar hook CLIENT`` in the client's hook settings."""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import apply_installation, project_options


@click.group()
def hooks() -> None:
    """Gate and record an agent's tool calls through its own hooks (caesar bridge)."""


@hooks.command("install")
@click.argument("client", type=click.Choice(["claude-code", "codex", "gemini", "copilot", "qwen"]))
@click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")
@project_options
def hooks_install(client: str, dry_run: bool, root: Path, as_json: bool) -> None:
    """Register `caesar hook CLIENT` in CLIENT's project settings (other hooks are kept).

    claude-code: .claude/settings.json (VS Code reads it too); codex: .codex/hooks.json;
    gemini: .gemini/settings.json; copilot: .github/hooks/caesar.json; qwen:
    .qwen/settings.json.
    """
    from caesar_core.bridge.hooks_install import plan

    apply_installation(plan(client, root.resolve()), dry_run=dry_run, as_json=as_json)
