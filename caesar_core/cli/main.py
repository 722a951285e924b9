"""Entry point of the ``caesar`` console script."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint
from typing import Any

import click

from caesar_core import __version__
from caesar_core.cli.approve import approve
from caesar_core.cli.check import check
from caesar_core.cli.comments import comment, comments
from caesar_core.cli.demo import demo
from caesar_core.cli.hooks import hooks
from caesar_core.cli.mcp import channel, mcp
from caesar_core.cli.protocol import protocol
from caesar_core.cli.review import apply, diff, discard, gc, reject
from caesar_core.cli.setup import agents, doctor, init
from caesar_core.cli.tasks import answer, cancel, logs, ps, run
from caesar_core.cli.turns import continue_
from caesar_core.errors import CaesarError
from caesar_core.terminal import safe_text

PLUGIN_GROUP = "caesar.commands"
"""Entry points adding commands: how ``caesar watch`` (in caesar_tui) joins the CLI without
caesar_core ever importing the TUI."""


class CaesarGroup(click.Group):
    """Turns every :class:`CaesarError` into its reason, its remedy and its exit code, and
    loads plugin commands only when they are asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(ep.name for ep in _plugins())})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        for entry in _plugins():
            if entry.name == cmd_name:
                loaded = entry.load()
                return loaded if isinstance(loaded, click.Command) else None
        return None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CaesarError as error:
            # A reason may quote what an agent wrote (a path, an id): shown safe.
            click.echo(safe_text(f"caesar: {error.reason}", lines=True), err=True)
            if error.remedy:
                click.echo(safe_text(f"  remedy: {error.remedy}", lines=True), err=True)
            ctx.exit(int(error.exit_code))


@click.group(cls=CaesarGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="caesar")
def cli() -> None:
    """Delegate work to coding agents through a file-system contract, then watch, answer
    and apply from one terminal."""


for command in (init, doctor, agents, run, ps, logs, cancel, answer, diff, apply, reject):
    cli.add_command(command)
for command in (discard, gc):
    cli.add_command(command)
cli.add_command(continue_)
cli.add_command(demo)
cli.add_command(protocol)
cli.add_command(mcp)
cli.add_command(channel)
cli.add_command(approve)
cli.add_command(check)
cli.add_command(comment)
cli.add_command(comments)
cli.add_command(hooks)


@cli.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.pass_context
def bridge(ctx: click.Context) -> None:
    """One lifecycle request on stdin, one response on stdout (for client hook adapters)."""
    _fast(["bridge", *ctx.args])


@cli.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.pass_context
def hook(ctx: click.Context) -> None:
    """A client's hook: claude-code, codex, gemini, vscode, copilot or qwen (installed by
    `hooks install`)."""
    _fast(["hook", *ctx.args])


def _fast(argv: list[str]) -> None:
    """Listed here for --help; the console script dispatches these before click loads."""
    from caesar_core.bridge.cli import main as fast

    raise SystemExit(fast(argv))


def _plugins() -> list[EntryPoint]:
    from importlib.metadata import entry_points

    return list(entry_points(group=PLUGIN_GROUP))


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="caesar")
