"""The ``caesar`` console script: the hook path first, click for everything else.

``caesar bridge`` and ``caesar hook`` run once per tool call of an agent; importing click
(~40 ms) and the command modules would cost more than the work. They are dispatched here,
before anything else is imported; every other command goes to :mod:`caesar_core.cli.main`.
"""

from __future__ import annotations

import sys

FAST = ("bridge", "hook")


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] in FAST:
        from caesar_core.bridge.cli import main as fast

        raise SystemExit(fast(argv))
    from caesar_core.cli.main import main as full

    full()
