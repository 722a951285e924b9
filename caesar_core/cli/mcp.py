"""``caesar mcp serve|install`` and ``caesar channel serve``: caesar over MCP, on stdio.

The servers import the MCP SDK only when they run, so other commands (and the hook path)
never pay for it. While a server runs, stdout belongs to the protocol: nothing else is
printed there.
"""

from __future__ import annotations

from pathlib import Path

import click

from caesar_core.cli.common import apply_installation, project_options


@click.group()
def mcp() -> None:
    """The orchestrator MCP server, for a main agent driving caesar."""


@mcp.command("serve")
@click.option(
    "--root",
    type=click.Path(path_type=Path),
    help="Project root (default: nearest directory with .caesar/ or .git, else the cwd).",
)
def mcp_serve(root: Path | None) -> None:
    """Serve the ten caesar_* tools on stdin/stdout."""
    from caesar_core.mcp.orchestrator import serve
    from caesar_core.store import find_root

    found = find_root(root)
    serve(found, Path.cwd() if root is None else found)


@mcp.command("install")
@click.argument(
    "client", type=click.Choice(["claude", "codex", "opencode", "gemini", "copilot", "qwen"])
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@project_options
def mcp_install(client: str, dry_run: bool, root: Path, as_json: bool) -> None:
    """Register `caesar mcp serve` with CLIENT's configuration (other entries are kept)."""
    from caesar_core.mcp.install import plan

    apply_installation(plan(client, root.resolve()), dry_run=dry_run, as_json=as_json)


@click.group()
def channel() -> None:
    """The per-task return channel (started by an agent's CLI, not by hand)."""


@channel.command("serve")
@click.option(
    "--task-dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    required=True,
    help="The task's directory (CAESAR_TASK_DIR).",
)
def channel_serve(task_dir: Path) -> None:
    """Serve get_task, report_progress, ask_orchestrator and submit_report on stdio."""
    from caesar_core.mcp.channel import serve

    serve(task_dir)
