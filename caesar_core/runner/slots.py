"""``policy.max_parallel`` across processes: a slot is a file created exclusively.

Any number of ``caesar run`` and MCP server processes share one project; a slot file
``.caesar/state/slots/<n>.json`` names its holder (pid, host, token). A holder that died
without releasing (killed, machine crash) is reclaimed when its pid is gone on this host, so a
crash never wedges the project. Waiting is a short poll of a directory of at most
``max_parallel`` tiny files: the cheapest reliable signal across processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from caesar_core.errors import CaesarError
from caesar_core.fs import create_exclusive

POLL_S = 0.2
CORPSE_AGE_S = 2.0
"""An unreadable slot file older than this is a half-written leftover, not a holder."""


class SlotWaitCancelled(CaesarError):
    def __init__(self) -> None:
        super().__init__("cancelled while waiting for a free slot", "nothing ran; start it again")


@dataclass(frozen=True)
class Holder:
    slot: int
    pid: int
    host: str
    label: str
    token: str


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a running process; a zombie (dead, not yet reaped) is not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: the signal test is all there is
    # The state follows the command name, which is parenthesized and may contain spaces.
    return stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] != "Z"


class Slots:
    def __init__(self, directory: Path, limit: int) -> None:
        self.directory = directory
        self.limit = max(1, limit)

    def holders(self) -> list[Holder]:
        found = []
        for n in range(self.limit):
            holder = self._read(n)
            if holder is not None:
                found.append(holder)
        return found

    @contextlib.contextmanager
    def hold(
        self,
        label: str,
        *,
        cancelled: Callable[[], bool] = lambda: False,
        on_wait: Callable[[list[Holder]], None] | None = None,
    ) -> Iterator[int]:
        """Take a slot for the duration of the block, waiting for one if all are taken."""
        token = uuid.uuid4().hex
        slot = self._acquire(label, token, cancelled, on_wait)
        try:
            yield slot
        finally:
            self._release(slot, token)

    def _acquire(
        self,
        label: str,
        token: str,
        cancelled: Callable[[], bool],
        on_wait: Callable[[list[Holder]], None] | None,
    ) -> int:
        body = json.dumps(
            {"pid": os.getpid(), "host": socket.gethostname(), "token": token, "label": label}
        ).encode()
        told = False
        while True:
            for n in range(self.limit):
                try:
                    # Not fsynced: a crash ends its holder, and an empty slot is reclaimed.
                    create_exclusive(self._path(n), body, durable=False)
                    return n
                except FileExistsError:
                    self._reclaim_if_dead(n)
            if cancelled():
                raise SlotWaitCancelled()
            if on_wait is not None and not told:
                on_wait(self.holders())
                told = True
            time.sleep(POLL_S)

    def _release(self, slot: int, token: str) -> None:
        holder = self._read(slot)
        if holder is not None and holder.token == token:
            with contextlib.suppress(FileNotFoundError):
                self._path(slot).unlink()

    def _reclaim_if_dead(self, n: int) -> None:
        path = self._path(n)
        holder = self._read(n)
        if holder is None:
            try:
                age = time.time() - path.stat().st_mtime
            except FileNotFoundError:
                return
            if age > CORPSE_AGE_S:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            return
        if holder.host == socket.gethostname() and not pid_alive(holder.pid):
            again = self._read(n)
            if again is not None and again.token == holder.token:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    def _read(self, n: int) -> Holder | None:
        try:
            data = json.loads(self._path(n).read_bytes())
            return Holder(n, int(data["pid"]), str(data["host"]), str(data["label"]), data["token"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _path(self, n: int) -> Path:
        return self.directory / f"{n}.json"
