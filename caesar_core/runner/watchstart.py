"""The watchdog process's first moments: wait for the orchestrator, with ``os`` and ``select``.

A watchdog starts beside every agent, and for a task that ends in time it does nothing but
wait until it is told to stop. Its interpreter starts without ``site`` (``python -S``, the
orchestrator's ``sys.path`` handed over instead, see :func:`boot_argv`) and this module
imports only what that first wait needs: the agent runs meanwhile, and on a loaded machine a
watchdog importing ``pathlib``, ``json`` and ``typing`` takes the processor from it.

Only when the first wait ends (the orchestrator exited, or :data:`CHECK_S` passed) does
:mod:`caesar_core.runner.watchdog` load, and it carries on exactly as it would have.
"""

from __future__ import annotations

import os
import select
import sys
import time

CHECK_S = 5.0
"""How often the record is read while waiting (a task concluded without telling the watchdog)."""
LATE_S = 5.0
"""Past the deadline and the kill grace, how long a live orchestrator has before the watchdog
stops the tree itself."""
KILL_GRACE_S = 5.0
"""Between SIGTERM and SIGKILL when a task's tree is stopped: long enough to flush a report,
short enough to stop a hang (``proctree``'s, defined here so that the first wait knows its
bound without loading it)."""

_BOOT = (
    "import sys\n"
    "sys.path[:] = {path!r}\n"
    "from caesar_core.runner.watchstart import first_wait\n"
    "exited = first_wait(sys.argv[1:])\n"
    "from caesar_core.runner.watchdog import main\n"
    "sys.exit(main(sys.argv[1:], orchestrator_exited=exited))\n"
)
"""The watchdog process's code: this module's wait, then the watchdog's own (named here as
text: the watchdog imports this module, not the other way round)."""


def boot_argv() -> list[str]:
    """The interpreter and its code for a watchdog process (its ``--name value`` arguments
    follow): ``site`` skipped, this process's ``sys.path`` (``site``'s work, done) given."""
    return [sys.executable, "-S", "-c", _BOOT.format(path=list(sys.path))]


def first_wait(argv: list[str]) -> bool | None:
    """Wait for the orchestrator to exit, as the watchdog's loop would first: whether it did,
    or None when this cheap wait cannot be had (the loop then does it its own way)."""
    given = dict(zip(argv[::2], argv[1::2], strict=False))
    try:
        orchestrator = int(given["--orchestrator"])
        late = float(given["--deadline"]) + KILL_GRACE_S + LATE_S
        fd = os.pidfd_open(orchestrator)
    except (KeyError, ValueError, OSError, AttributeError):
        return None
    try:
        readable, _, _ = select.select(
            [fd], [], [], max(0.0, min(CHECK_S, late - time.monotonic()))
        )
        return bool(readable)
    finally:
        os.close(fd)
