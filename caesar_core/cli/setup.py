"""Getting a project ready: ``init``, ``doctor``, ``agents list``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from caesar_core.cli.common import emit_json, project_options, table
from caesar_core.errors import ExitCode
from caesar_core.terminal import safe_text


@click.command()
@click.option("--force", is_flag=True, help="Rewrite the config and role prompts if present.")
@project_options
def init(force: bool, root: Path, as_json: bool) -> None:
    """Write a documented .caesar/config.toml, role prompts, and .gitignore lines."""
    from caesar_core.config import DEFAULT_PROJECT_CONFIG, DEFAULT_ROLE_PROMPTS, GITIGNORE_LINES
    from caesar_core.fs import atomic_write

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
    if as_json:
        emit_json({"root": str(root), "written": written, "kept": kept})
        return
    for item in written:
        click.echo(f"wrote {item}")
    for item in kept:
        click.echo(f"kept  {item} (exists; --force rewrites it)")
    click.echo("next: caesar doctor, then caesar run 'OBJECTIVE' --agent demo")


def _agent_rows(root: Path) -> list[dict[str, Any]]:
    from caesar_core.agents.listing import agent_rows
    from caesar_core.config import load_config

    return agent_rows(load_config(root))


@click.group()
def agents() -> None:
    """The agents caesar can delegate to."""


@agents.command("list")
@project_options
def agents_list(root: Path, as_json: bool) -> None:
    """Every known agent: installed or not, allowed or not, and what it can do."""
    rows = _agent_rows(root)
    if as_json:
        emit_json(rows)
        return
    table(
        [
            [
                r["id"],
                r["version"] or ("missing" if not r["installed"] else "?"),
                "yes" if r["allowed"] else "denied",
                _caps(r["capabilities"]),
                r["model"] or "-",
                r["source"],
            ]
            for r in rows
        ],
        ["AGENT", "VERSION", "ALLOWED", "CAN", "MODEL", "FROM"],
    )


def _caps(caps: dict[str, Any]) -> str:
    marks = [
        ("events", caps["json_events"]),
        ("schema", caps["output_schema"]),
        ("final-file", caps["final_message_file"]),
        ("read-only", caps["native_read_only"]),
        ("model", caps["model"]),
        ("resume", caps["resume"]),
    ]
    shown = [name for name, on in marks if on] + [f"net:{caps['network']}"]
    if caps["mcp"] != "none":
        shown.append(f"mcp:{caps['mcp']}")
    return " ".join(shown)


@click.command()
@click.option(
    "--on",
    "on",
    metavar="ADDRESS",
    help="Check a Dask cluster instead (tcp://HOST:PORT): its workers, slots and agents.",
)
@project_options
def doctor(on: str | None, root: Path, as_json: bool) -> None:
    """Check the project: configuration, git, the store, and every agent."""
    from caesar_core.config import load_config
    from caesar_core.git import find_repository, head_commit

    if on is not None and on != "local":
        from caesar_core.cli.remote import doctor_on

        doctor_on(root, on, as_json)
        return

    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool, detail: str, remedy: str = "") -> None:
        checks.append({"check": name, "ok": ok, "detail": detail, "remedy": remedy})

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
    for row in _agent_rows(root):
        if not row["installed"]:
            check(
                f"agent {row['id']}",
                False,
                f"{row['bin']} not found",
                "install it, or set bin in its [[agent]] entry",
            )
        elif not row["allowed"]:
            check(
                f"agent {row['id']}",
                False,
                f"denied: {row['policy']}",
                "change [policy] allowed/denied",
            )
        elif row["outdated"]:
            check(
                f"agent {row['id']}",
                False,
                f"{row['version']} is older than {row['min_version']}, the version caesar's "
                "adapter was verified against; its stream may not be understood",
                f"upgrade {row['bin']} to {row['min_version']} or newer",
            )
        else:
            check(f"agent {row['id']}", True, row["version"] or row["path"])
    if as_json:
        emit_json(checks)
    else:
        for item in checks:
            mark = "ok " if item["ok"] else "-- "
            # details quote agents' --version output and paths: shown safe
            click.echo(safe_text(f"{mark} {item['check']:<18} {item['detail']}"))
            if item["remedy"]:
                click.echo(safe_text(f"{'':22} remedy: {item['remedy']}"))
    if not any(c["ok"] for c in checks if c["check"].startswith("agent ")):
        raise SystemExit(int(ExitCode.FAILURE))
