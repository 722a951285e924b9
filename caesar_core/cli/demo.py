"""``caesar demo``: the built-in demo agent on a throwaway repository, followed live.

Everything a person needs to see the contract work, with no agent CLI and no API key: the same
runner as ``caesar run`` (worktree at ``base_ref``, ``CAESAR_*`` variables, events, report,
reconciliation with git), on a repository made for the occasion.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to create the throwaway repository (default: a new temporary directory).",
)
@click.option(
    "--delay",
    type=click.FloatRange(0, 10),
    default=0.4,
    show_default=True,
    help="Seconds the demo agent pauses between steps, so there is something to watch.",
)
def demo(directory: Path | None, delay: float) -> None:
    """Run the built-in demo agent on a throwaway repository and follow it live."""
    from caesar_core.cli.event_view import print_outcome
    from caesar_core.cli.tasks import execute_live
    from caesar_core.config import load_config
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.engine import Runner

    root = throwaway_repository(directory)
    click.echo(f"repository {root}")
    runner = Runner(root, load_config(root))
    request = Request(
        objective="Leave a note of what you were asked",
        agent="demo",
        context=json.dumps({"script": "work", "delay": delay}),
    )
    prepared = runner.prepare(request, root)
    click.echo(f"task       {prepared.task.id} in {prepared.task.workspace}\n")
    outcome = execute_live(runner, prepared, as_json=False)
    print_outcome(outcome)
    click.echo(f"\nthe repository stays at {root}; try: cd {root} && caesar ps")


def throwaway_repository(directory: Path | None) -> Path:
    """A small git repository with one commit, so the demo runs where real work would."""
    import pygit2

    root = directory or Path(tempfile.mkdtemp(prefix="caesar-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    (root / "README.md").write_text("# demo project\n\nA throwaway repository for caesar.\n")
    (root / "app.py").write_text('def greet(name: str) -> str:\n    return f"hello {name}"\n')
    (root / ".gitignore").write_text(".caesar/\n")
    repo = pygit2.init_repository(str(root))
    repo.index.add_all()
    repo.index.write()
    signature = pygit2.Signature("caesar demo", "demo@caesar.invalid")
    tree = repo.index.write_tree()
    repo.create_commit("HEAD", signature, signature, "initial commit", tree, [])
    return root
