"""How another process starts this caesar: the one lookup of the ``caesar`` executable.

Agents, MCP clients and hook-running clients start caesar with their own ``PATH`` (or none),
so what caesar hands them is absolute, and it runs *this* installation's code: the ``caesar``
script installed beside the interpreter running now, else that interpreter with
``-m caesar_core``. A ``caesar`` found on ``PATH`` is never used: it may be another
installation, of another version. Used by the demo agent's ``delegate``, ``caesar mcp install``,
``caesar hooks install``, the return channel a task's agent is given, and ``caesar watch
--demo``. Standard library only.
"""

from __future__ import annotations

import os
import sys


def caesar_command() -> list[str]:
    """The argv prefix that runs caesar: ``[".../bin/caesar"]`` or ``[python, "-m",
    "caesar_core"]``; append the subcommand and its arguments."""
    beside = os.path.join(os.path.dirname(sys.executable), "caesar")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return [beside]
    return [sys.executable, "-m", "caesar_core"]


__all__ = ["caesar_command"]
