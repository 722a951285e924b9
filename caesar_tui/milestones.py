"""When a run of ``caesar watch`` reached what ``benchmarks/watch.py`` measures.

Only when ``CAESAR_WATCH_MILESTONES`` names a file (the benchmark sets it, nothing else does):
each milestone appends ``NAME SECONDS`` to it, ``SECONDS`` on the system's monotonic clock
(``time.monotonic``), which the benchmark's own process reads too. ``frame``: the first full
frame is painted (every task in the tree, those on screen with what their logs say, and the
selected task's activity); ``read``: every task's log is read and the watcher follows the
project.
"""

from __future__ import annotations

import os
import time

ENV = "CAESAR_WATCH_MILESTONES"


def wanted() -> bool:
    return bool(os.environ.get(ENV))


def mark(name: str) -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{name} {time.monotonic():.6f}\n")
