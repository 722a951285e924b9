"""A cgroup v2 of its own for each task, where this process is allowed to make one.

Every process a task starts is born into its agent's cgroup and cannot leave it without write
access to a cgroup above it, whatever it does with sessions, process groups or its environment;
``cgroup.kill`` then stops them all in one step. The cgroup is made below the one this process
runs in (``caesar.<task id>``), which works as root and in a user session whose cgroup systemd
delegated to the user; anywhere else (a login shell's scope, most containers, other systems)
every step answers ``None`` or ``False`` and the caller falls back to ``proctree``'s sweep.

``CAESAR_CGROUP=off`` in caesar's environment turns this off. Linux only; elsewhere nothing here
touches the system. Imports nothing but the standard library: the watchdog uses it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PREFIX = "caesar."
ENV_SWITCH = "CAESAR_CGROUP"
_MAX_BYTES = 1 << 20
_MAX_NESTED = 64
"""Task cgroups below a task cgroup (nested delegation) visited at most."""


def _cgroup2_mounts() -> list[Path]:
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            text = handle.read(_MAX_BYTES).decode(errors="replace")
    except OSError:
        return []
    mounts = []
    for line in text.splitlines():
        fields, _, tail = line.partition(" - ")
        parts = fields.split()
        if tail.split(" ", 1)[0] == "cgroup2" and len(parts) > 4 and parts[3] == "/":
            mounts.append(Path(parts[4].replace("\\040", " ")))
    return mounts


def own() -> Path | None:
    """The directory of the cgroup v2 this process runs in, or ``None``."""
    mounts = _cgroup2_mounts()
    if not mounts:
        return None
    try:
        with open("/proc/self/cgroup", "rb") as handle:
            lines = handle.read(_MAX_BYTES).decode(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::/"):
            path = mounts[0] / line[4:]
            return path if path.is_dir() else None
    return None


def create(task_id: str) -> Path | None:
    """A new empty cgroup for ``task_id`` below this process's own, or ``None`` when none can
    be made here (or ``CAESAR_CGROUP=off``)."""
    if os.environ.get(ENV_SWITCH, "").lower() in ("off", "0", "no", "false"):
        return None
    base = own()
    if base is None:
        return None
    path = base / f"{PREFIX}{task_id}"
    try:
        path.mkdir()
    except FileExistsError:
        if procs(path):
            return None  # somebody's processes already: not ours to take over
    except OSError:
        return None
    return path


def adopt(path: Path, pid: int) -> bool:
    """Move ``pid`` into the cgroup; its later children are born there."""
    try:
        (path / "cgroup.procs").write_text(f"{pid}\n")
    except OSError:
        return False
    return True


def procs(path: Path) -> list[int]:
    """The processes of the cgroup and of the task cgroups nested in it (bounded)."""
    found: list[int] = []
    queue, visited = [path], 0
    while queue and visited < _MAX_NESTED:
        current = queue.pop()
        visited += 1
        try:
            with open(current / "cgroup.procs", "rb") as handle:
                found.extend(int(word) for word in handle.read(_MAX_BYTES).split())
            with os.scandir(current) as listing:
                queue.extend(Path(e.path) for e in listing if e.is_dir(follow_symlinks=False))
        except (OSError, ValueError):
            continue
    return found


def kill(path: Path) -> bool:
    """SIGKILL every process of the cgroup and below at once (``cgroup.kill``, Linux 5.14)."""
    try:
        (path / "cgroup.kill").write_text("1\n")
    except OSError:
        return False
    return True


def remove(path: Path) -> None:
    """Remove the cgroup (and task cgroups nested in it) once empty; errors are ignored."""
    nested: list[Path] = []
    queue = [path]
    while queue and len(nested) < _MAX_NESTED:
        current = queue.pop()
        nested.append(current)
        with contextlib.suppress(OSError), os.scandir(current) as listing:
            queue.extend(Path(e.path) for e in listing if e.is_dir(follow_symlinks=False))
    for current in reversed(nested):
        with contextlib.suppress(OSError):
            current.rmdir()


def checked(value: str | None, task_id: str) -> Path | None:
    """A cgroup path read back from a record, if it is one caesar would have made for this task:
    named ``caesar.<task id>`` and inside a cgroup v2 mount."""
    if not value:
        return None
    path = Path(value)
    if path.name != f"{PREFIX}{task_id}" or not path.is_absolute() or ".." in path.parts:
        return None
    if not any(mount in path.parents for mount in _cgroup2_mounts()):
        return None
    return path
