"""Getting a project ready: ``init`` and ``doctor``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from caesar_core.assets.install import CLIENTS
from caesar_core.cli.common import emit_json, project_options
from caesar_core.errors import ExitCode
from caesar_core.terminal import safe_text

if TYPE_CHECKING:
    from caesar_core.assets.install import Plan
    from caesar_core.clientfiles import Installation


@click.command()
@click.option("--force", is_flag=True, help="Rewrite the config and role prompts if present.")
@click.option(
    "--global",
    "global_layer",
    is_flag=True,
    help="Write the documented config to the global layer ($XDG_CONFIG_HOME/caesar) only.",
)
@click.option(
    "--agent",
    "clients",
    multiple=True,
    type=click.Choice(CLIENTS),
    help="Write the skill and commands for this main agent (repeatable; default: those on PATH).",
)
@click.option("--no-skills", is_flag=True, help="Write no skill, command or allow list.")
@click.option(
    "--force-assets", is_flag=True, help="Replace skills and commands you changed or wrote."
)
@project_options
def init(
    force: bool,
    global_layer: bool,
    clients: tuple[str, ...],
    no_skills: bool,
    force_assets: bool,
    root: Path,
    as_json: bool,
) -> None:
    """Write a documented .caesar/config.toml, role prompts, .gitignore lines, and the skill
    and slash commands that teach a main agent to delegate through caesar."""
    if global_layer:
        if clients or force_assets:
            raise click.UsageError(
                "--global writes the global configuration only; run `caesar init --agent "
                "CLIENT` in a project for its skill and commands"
            )
        _init_global(force, as_json)
        return
    from caesar_core.assets import install as assets
    from caesar_core.config import DEFAULT_PROJECT_CONFIG, DEFAULT_ROLE_PROMPTS, GITIGNORE_LINES
    from caesar_core.fs import atomic_write

    # Everything the assets need is read first: a settings file that does not parse stops
    # init before it writes anything.
    chosen = clients or assets.detected()
    planned = None if no_skills else assets.plan(root, chosen, force=force_assets)
    home = root / ".caesar"
    written: list[str] = []
    kept: list[str] = []
    targets = {home / "config.toml": DEFAULT_PROJECT_CONFIG}
    targets.update(
        {home / "roles" / f"{name}.md": text for name, text in DEFAULT_ROLE_PROMPTS.items()}
    )
    for path, text in targets.items():
        if path.exists() and not force:
            kept.append(str(path.relative_to(root)))
            continue
        atomic_write(path, text.encode())
        written.append(str(path.relative_to(root)))
    ignore = root / ".gitignore"
    present = set(ignore.read_text().splitlines()) if ignore.exists() else set()
    missing = [line for line in GITIGNORE_LINES if line not in present]
    if missing and (root / ".git").exists():
        with ignore.open("a", encoding="utf-8") as out:
            prefix = "" if not ignore.exists() or ignore.read_text().endswith("\n") else "\n"
            out.write(prefix + "# caesar\n" + "\n".join(missing) + "\n")
        written.append(".gitignore (+" + ", ".join(missing) + ")")
    if planned is not None:
        planned.write()
    if as_json:
        emit_json(
            {
                "root": str(root),
                "written": written,
                "kept": kept,
                "clients": [] if planned is None else list(planned.clients),
                "assets": [] if planned is None else [p.to_json() for p in planned.placed],
                "settings": None if planned is None else _settings_json(planned.settings),
            }
        )
        return
    for item in written:
        click.echo(f"wrote {item}")
    for item in kept:
        click.echo(f"kept  {item} (exists; --force rewrites it)")
    if planned is not None:
        _say_assets(planned)
    click.echo("next: caesar doctor, then caesar run 'OBJECTIVE' --agent demo")


def _init_global(force: bool, as_json: bool) -> None:
    """The global layer's file: every key documented at its default, commented out."""
    from caesar_core.config import layer_path
    from caesar_core.config.documented import global_config
    from caesar_core.fs import atomic_write

    path = layer_path(None, "global")
    exists = path.exists()
    if not exists or force:
        atomic_write(path, global_config().encode())
    if as_json:
        emit_json({"path": str(path), "written": not exists or force, "kept": exists and not force})
    elif exists and not force:
        click.echo(f"kept  {path} (exists; --force rewrites it)")
    else:
        click.echo(f"wrote {path}")


def _settings_json(settings: Installation | None) -> dict[str, Any] | None:
    if settings is None:
        return None
    return {"path": str(settings.path), "changed": settings.changed, "diff": settings.diff()}


def _say_assets(planned: Plan) -> None:
    if not planned.clients:
        click.echo("no main agent found on PATH (--agent names one): the shared skill only")
    for item in planned.placed:
        owners = f" ({', '.join(item.asset.clients)})" if item.asset.clients else ""
        reason = f": {item.reason}" if item.reason else ""
        click.echo(safe_text(f"{item.action:<9} {item.asset.relative}{owners}{reason}"))
    if planned.settings is not None:
        verb = "allowed  " if planned.settings.changed else "unchanged"
        click.echo(f"{verb} caesar's read-only MCP tools in .claude/settings.json")


@click.command()
@click.option("--verbose", "-v", is_flag=True, help="Each agent's path and capabilities.")
@click.option(
    "--on",
    "on",
    metavar="ADDRESS",
    help="Check a Dask cluster instead (tcp://HOST:PORT): its workers, slots and agents.",
)
@project_options
def doctor(verbose: bool, on: str | None, root: Path, as_json: bool) -> None:
    """Check the project: configuration, git, the store, and every agent."""
    from caesar_core.agents.describe import agent_rows, spelled_capabilities
    from caesar_core.config import load_config
    from caesar_core.git import find_repository, head_commit

    if on is not None and on != "local":
        from caesar_core.cli.remote import doctor_on

        doctor_on(root, on, as_json)
        return

    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool, detail: str, remedy: str = "", **more: Any) -> None:
        checks.append({"check": name, "ok": ok, "detail": detail, "remedy": remedy, **more})

    loaded = load_config(root)
    layers = ", ".join(str(p) for p in loaded.layers) or "none (defaults)"
    check("configuration", True, f"read {layers}")
    repo = find_repository(root)
    if repo is None:
        check(
            "git",
            False,
            f"{root} is not in a git repository",
            "git init && git commit: worktree isolation and verified changes need git",
        )
    elif head_commit(repo) is None:
        check("git", False, f"{repo} has no commit yet", "make a first commit")
    else:
        check("git", True, f"repository at {repo}")
    for row in agent_rows(root):
        more = (
            {
                "path": row["path"],
                "version": row["version"],
                "capabilities": row["capabilities"],
                "can": spelled_capabilities(row["capabilities"]),
            }
            if verbose
            else {}
        )
        check(f"agent {row['id']}", *_agent_state(row), **more)
    if as_json:
        emit_json(checks)
    else:
        for item in checks:
            mark = "ok " if item["ok"] else "-- "
            # details quote agents' --version output and paths: shown safe
            click.echo(safe_text(f"{mark} {item['check']:<18} {item['detail']}"))
            if item["remedy"]:
                click.echo(safe_text(f"{'':22} remedy: {item['remedy']}"))
            if "can" in item:
                click.echo(safe_text(f"{'':22} path: {item['path'] or '-'}"))
                for line in item["can"]:
                    click.echo(safe_text(f"{'':22} - {line}"))
    if not any(c["ok"] for c in checks if c["check"].startswith("agent ")):
        raise SystemExit(int(ExitCode.FAILURE))


def _agent_state(row: dict[str, Any]) -> tuple[bool, str, str]:
    """Whether an agent can run, what doctor says about it, and the remedy."""
    if not row["installed"]:
        return False, f"{row['bin']} not found", "install it, or set bin in its [[agent]] entry"
    if not row["allowed"]:
        return (
            False,
            f"denied: {row['policy']['reason']}",
            f"caesar agents enable {row['id']} (or change [policy] allowed/denied)",
        )
    if row["outdated"]:
        return (
            False,
            f"{row['version']} is older than {row['min_version']}, the version caesar's "
            "adapter was verified against; its stream may not be understood",
            f"upgrade {row['bin']} to {row['min_version']} or newer",
        )
    return True, row["version"] or row["path"], ""
