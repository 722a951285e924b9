"""The ``caesar`` console script: what needs no click is answered here, click for the rest.

Importing click and :mod:`caesar_core.cli.main` costs three times the interpreter's own start,
more than the work of the commands that main agents and scripts run most often. So, first
match wins:

1. ``caesar bridge`` and ``caesar hook`` (once per tool call of an agent) go to
   :mod:`caesar_core.bridge.cli`, before anything else is imported.
2. :data:`DIRECT` and :func:`ps_shapes`: the exact argv shapes whose answer is known without
   click, each printed exactly as the click command prints it (stdout, stderr, exit code):
   ``--version``, ``protocol schema [DOCUMENT] [--strict]`` (the files of
   :mod:`caesar_core.published`) and ``ps`` with any of ``--all``, ``--json``, ``--root DIR``,
   ``--status LIST`` in any order (:mod:`caesar_core.cli.ps_view`, the one implementation of
   ``caesar ps``). A shape's
   :data:`WORD` is any one argument that is not an option; its handler may still decline
   it (a document that does not exist, an unknown status, a project root that cannot be used,
   a store that cannot be read). Whatever is not in the table, or is declined, goes to
   click, which answers with its own output, errors and exit codes: ``--help``, an unknown
   document, a misspelt option, an extra argument, ``--root=DIR``, shell completion
   (``_CAESAR_COMPLETE``). ``tests/cli/test_entry.py`` runs both over every shape.
3. Everything else: :mod:`caesar_core.cli.main` (click).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import TextIO

    Answer = tuple[str, str, int]
    """What the console script prints on stdout, on stderr, and its exit code."""

FAST = ("bridge", "hook")
WORD = "WORD"
"""In a shape of :data:`DIRECT`: any one argument that does not start with ``-``."""
COMPLETE_VAR = "_CAESAR_COMPLETE"
"""Set by click's shell completion scripts: click must answer those, whatever the argv."""


def version(argv: list[str]) -> Answer | None:
    """As ``click.version_option`` says it."""
    from caesar_core import __version__

    return f"caesar, version {__version__}\n", "", 0


def schema(argv: list[str]) -> Answer | None:
    """``caesar protocol schema``: the list of documents, or one's published schema."""
    from caesar_core.published import DESCRIPTIONS, listing, schema_text

    names = [arg for arg in argv[2:] if arg != "--strict"]
    if not names:
        return listing(), "", 0
    if names[0] not in DESCRIPTIONS:
        return None  # click's error, word for word
    return schema_text(names[0], strict="--strict" in argv), "", 0


def ps(argv: list[str]) -> Answer | None:
    """``caesar ps``: :func:`caesar_core.cli.ps_view.show`, declined where click would say
    more than the listing: an unknown status (its usage error), a ``--root`` click's path type
    refuses (one that cannot be read) or that is no directory, a store that cannot be read
    (click's own report of the error)."""
    if not (_utf8(sys.stdout) and _utf8(sys.stderr)):
        return None  # click re-encodes an ASCII stream; an odd one fails as click's does
    explicit = _value(argv, "--root")
    if explicit is not None and _unreadable(explicit):
        return None  # click.Path: "Path '…' is not readable."
    from caesar_core.cli.ps_view import UnknownStatusError, show
    from caesar_core.errors import CaesarError
    from caesar_core.store.root import find_root

    try:
        root = find_root(None if explicit is None else _path(explicit))
        return show(
            root,
            show_all="--all" in argv,
            statuses=_value(argv, "--status"),
            as_json="--json" in argv,
        )
    except (UnknownStatusError, CaesarError, OSError):
        return None


def diff(argv: list[str]) -> Answer | None:
    """``caesar diff ID --json`` (and ``--root DIR``, in any order):
    :func:`caesar_core.cli.diff_view.show_json`, which declines whatever it cannot answer as
    click's command does; declined here too where click would say more (as :func:`ps`)."""
    if not (_utf8(sys.stdout) and _utf8(sys.stderr)):
        return None
    explicit = _value(argv, "--root")
    if explicit is not None and _unreadable(explicit):
        return None
    words = [arg for arg in argv[1:] if arg != "--json"]
    if explicit is not None:
        at = words.index("--root")
        del words[at : at + 2]
    from caesar_core.cli.diff_view import show_json
    from caesar_core.errors import CaesarError
    from caesar_core.store.root import find_root

    try:
        root = find_root(None if explicit is None else _path(explicit))
        return show_json(root, words[0])
    except (CaesarError, OSError):
        return None


def _value(argv: list[str], option: str) -> str | None:
    """The argument after ``option`` in ``argv`` (a shape of :func:`ps_shapes`: it has one)."""
    return argv[argv.index(option) + 1] if option in argv else None


def _unreadable(path: str) -> bool:
    """What ``click.Path()`` refuses of a path: one that exists and cannot be read."""
    try:
        os.stat(path)
    except OSError:
        return False
    return not os.access(path, os.R_OK)


def _path(value: str) -> Path:
    from pathlib import Path

    return Path(value)


def _utf8(stream: object) -> bool:
    """Whether text written to ``stream`` reaches it as click.echo would write it: UTF-8 (or
    no stream at all, where click writes nothing)."""
    if stream is None:
        return True
    encoding = getattr(stream, "encoding", None)
    return isinstance(encoding, str) and encoding.lower().replace("_", "-") in ("utf-8", "utf8")


PS_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("--all",),
    ("--json",),
    ("--root", WORD),
    ("--status", WORD),
)
"""The options of ``caesar ps`` the console script answers, each at most once, in any order."""


def ps_shapes() -> dict[tuple[str, ...], Callable[[list[str]], Answer | None]]:
    """The shapes of ``ps`` answered without click: :data:`PS_OPTIONS` in every order, each
    at most once. Made when the argv starts with ``ps`` (65 of them), not for every other
    command this module starts (``caesar hook`` runs once per tool call)."""
    from itertools import chain, permutations

    return {
        ("ps", *chain.from_iterable(order)): ps
        for count in range(len(PS_OPTIONS) + 1)
        for order in permutations(PS_OPTIONS, count)
    }


DIRECT: dict[tuple[str, ...], Callable[[list[str]], Answer | None]] = {
    ("--version",): version,
    ("protocol", "schema"): schema,
    ("protocol", "schema", "--strict"): schema,
    ("protocol", "schema", WORD): schema,
    ("protocol", "schema", WORD, "--strict"): schema,
    ("protocol", "schema", "--strict", WORD): schema,
    ("diff", WORD, "--json"): diff,
    ("diff", "--json", WORD): diff,
    ("diff", WORD, "--json", "--root", WORD): diff,
    ("diff", WORD, "--root", WORD, "--json"): diff,
    ("diff", "--json", WORD, "--root", WORD): diff,
    ("diff", "--json", "--root", WORD, WORD): diff,
    ("diff", "--root", WORD, WORD, "--json"): diff,
    ("diff", "--root", WORD, "--json", WORD): diff,
}
"""Argv shapes answered without click (see the module docstring), and their handlers; those
of ``ps`` are :func:`ps_shapes`."""


def direct(argv: list[str]) -> Answer | None:
    """What ``caesar`` prints for ``argv`` when :data:`DIRECT` answers it; None: click does."""
    if os.environ.get(COMPLETE_VAR):
        return None
    for shape, handler in (ps_shapes() if argv[:1] == ["ps"] else DIRECT).items():
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
        out, err, code = answer
        raise SystemExit(_print(err, sys.stderr) or _print(out, sys.stdout) or code)
    from caesar_core.cli.main import main as full

    full()


def _print(text: str, stream: TextIO | None) -> int:
    """Write ``text`` as click.echo does: nothing without the stream (started with it closed);
    a pipe closed by its reader exits 1 in silence, as click's does."""
    if stream is None or not text:
        return 0
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # Nothing more can reach the reader; the interpreter's own flush at exit must not
        # complain about it either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        return 1
    return 0
