"""The ``caesar`` console script: the hook path first, click for everything else.

``caesar bridge`` and ``caesar hook`` run once per tool call of an agent; importing click
(~40 ms) and the command modules would cost more than the work. They are dispatched here,
before anything else is imported, and so is ``caesar --version`` (a main agent's or a
script's probe for caesar, answered as click would answer it); every other command goes to
:mod:`caesar_core.cli.main`.
"""

from __future__ import annotations

import sys

FAST = ("bridge", "hook")


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] in FAST:
        from caesar_core.bridge.cli import main as fast

        raise SystemExit(fast(argv))
    if argv == ["--version"]:
        from caesar_core import __version__

        sys.stdout.write(f"caesar, version {__version__}\n")
        raise SystemExit(0)
    from caesar_core.cli.main import main as full

    full()
