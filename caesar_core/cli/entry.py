"""The ``caesar`` console script: what needs no click is answered here, click for the rest.

Importing click and :mod:`caesar_core.cli.main` costs three times the interpreter's own start,
more than the work of the commands that main agents and scripts run most often. So, first
match wins:

1. ``caesar bridge`` and ``caesar hook`` (once per tool call of an agent) go to
   :mod:`caesar_core.bridge.cli`, before anything else is imported.
2. :data:`DIRECT`: the exact argv shapes whose answer is a text known without click, each
   printed exactly as the click command prints it, exit 0: ``--version`` and ``protocol
   schema [DOCUMENT] [--strict]`` (the files of :mod:`caesar_core.published`). A shape's
   :data:`WORD` is any one argument that is not an option; its handler may still decline
   it (a document that does not exist). Whatever is not in the table, or is declined, goes to
   click, which answers with its own output, errors and exit codes: ``--help``, an unknown
   document, a misspelt option, an extra argument, shell completion
   (``_CAESAR_COMPLETE``). ``tests/cli/test_entry.py`` runs both over every shape.
3. Everything else: :mod:`caesar_core.cli.main` (click).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

FAST = ("bridge", "hook")
WORD = "WORD"
"""In a shape of :data:`DIRECT`: any one argument that does not start with ``-``."""
COMPLETE_VAR = "_CAESAR_COMPLETE"
"""Set by click's shell completion scripts: click must answer those, whatever the argv."""


def version(argv: list[str]) -> str | None:
    """As ``click.version_option`` says it."""
    from caesar_core import __version__

    return f"caesar, version {__version__}\n"


def schema(argv: list[str]) -> str | None:
    """``caesar protocol schema``: the list of documents, or one's published schema."""
    from caesar_core.published import DESCRIPTIONS, listing, schema_text

    names = [arg for arg in argv[2:] if arg != "--strict"]
    if not names:
        return listing()
    if names[0] not in DESCRIPTIONS:
        return None  # click's error, word for word
    return schema_text(names[0], strict="--strict" in argv)


DIRECT: dict[tuple[str, ...], Callable[[list[str]], str | None]] = {
    ("--version",): version,
    ("protocol", "schema"): schema,
    ("protocol", "schema", "--strict"): schema,
    ("protocol", "schema", WORD): schema,
    ("protocol", "schema", WORD, "--strict"): schema,
    ("protocol", "schema", "--strict", WORD): schema,
}
"""Argv shapes answered without click (see the module docstring), and their handlers."""


def direct(argv: list[str]) -> str | None:
    """What ``caesar`` prints for ``argv`` when :data:`DIRECT` answers it; None: click does."""
    if os.environ.get(COMPLETE_VAR):
        return None
    for shape, handler in DIRECT.items():
        if len(shape) == len(argv) and all(map(_fits, shape, argv)):
            return handler(argv)
    return None


def _fits(part: str, arg: str) -> bool:
    return arg == part or (part == WORD and arg[:1] not in ("", "-"))


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] in FAST:
        from caesar_core.bridge.cli import main as fast

        raise SystemExit(fast(argv))
    answer = direct(argv)
    if answer is not None:
        raise SystemExit(_print(answer))
    from caesar_core.cli.main import main as full

    full()


def _print(text: str) -> int:
    """Write ``text`` as click.echo does: nothing without a stdout (started with it closed);
    a pipe closed by its reader exits 1 in silence, as click's does."""
    if sys.stdout is None:
        return 0
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can reach the reader; the interpreter's own flush at exit must not
        # complain about it either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0
