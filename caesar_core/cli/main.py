"""Entry point of the ``caesar`` console script."""

from __future__ import annotations

import gc
import sys
from importlib import import_module
from typing import Any

import click

from caesar_core import __version__
from caesar_core.cli import plugins
from caesar_core.errors import CaesarError
from caesar_core.terminal import safe_text

COMMANDS: dict[str, str] = {
    "agents": "caesar_core.cli.agents:agents",
    "answer": "caesar_core.cli.control:answer",
    "apply": "caesar_core.cli.review:apply",
    "approve": "caesar_core.cli.approve:approve",
    "cancel": "caesar_core.cli.control:cancel",
    "channel": "caesar_core.cli.mcp:channel",
    "check": "caesar_core.cli.check:check",
    "comment": "caesar_core.cli.comments:comment",
    "comments": "caesar_core.cli.comments:comments",
    "continue": "caesar_core.cli.turns:continue_",
    "demo": "caesar_core.cli.demo:demo",
    "diff": "caesar_core.cli.review:diff",
    "discard": "caesar_core.cli.review:discard",
    "doctor": "caesar_core.cli.setup:doctor",
    "gc": "caesar_core.cli.review:gc",
    "hooks": "caesar_core.cli.hooks:hooks",
    "init": "caesar_core.cli.setup:init",
    "logs": "caesar_core.cli.logs:logs",
    "mcp": "caesar_core.cli.mcp:mcp",
    "policy": "caesar_core.cli.policy:policy",
    "protocol": "caesar_core.cli.protocol:protocol",
    "ps": "caesar_core.cli.tasks:ps",
    "reject": "caesar_core.cli.review:reject",
    "remote": "caesar_core.cli.remote:remote",
    "role": "caesar_core.cli.role:role",
    "run": "caesar_core.cli.tasks:run",
}
"""Every built-in command by name, as ``module:attribute``: a command's module (and what it
imports) is loaded only when that command runs, so ``caesar ps`` never pays for the MCP SDK or
``caesar --version`` for any of them."""


class CaesarGroup(click.Group):
    """Turns every :class:`CaesarError` into its reason, its remedy and its exit code, and
    loads each command only when it is asked for: built-ins from :data:`COMMANDS`, plugins
    from their entry points (read only for a name that is not built in, or for the help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        found = (entry.name for entry in plugins.all_plugins())
        return sorted({*super().list_commands(ctx), *COMMANDS, *found})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        target = COMMANDS.get(cmd_name)
        if target is not None:
            module, _, attribute = target.partition(":")
            loaded = getattr(import_module(module), attribute)
            return loaded if isinstance(loaded, click.Command) else None
        own = plugins.own_plugins()
        if own is not None and cmd_name in own:
            loaded = plugins.load(own[cmd_name])
            return loaded if isinstance(loaded, click.Command) else None
        for entry in plugins.all_plugins():
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


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="caesar")
    finally:
        # The command is done: what it imported (pydantic's schemas, every model) lives until
        # the process ends, and the collection the interpreter runs as it exits would only
        # walk all of it (tens of ms after `caesar run`). Objects are still freed as ever.
        gc.freeze()
