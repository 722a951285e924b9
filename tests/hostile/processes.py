"""What the process tests share: agents whose helper escapes the agent's process group, and
checks read straight from ``/proc`` (never through caesar)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from caesar_core.runner.slots import pid_alive
from caesar_core.store import TaskStore
from tests.runner.conftest import wait_for

LOOP = (
    'echo $$ > "$CAESAR_TASK_DIR/daemon.pid"; '
    'while :; do date +%s%N > "$CAESAR_TASK_DIR/heartbeat"; sleep 0.05; done'
)
ESCAPES = {
    "setsid": f"setsid sh -c '{LOOP}' </dev/null >/dev/null 2>&1 &",
    "double_fork_setsid": f"sh -c \"(setsid sh -c '{LOOP}' &)\" </dev/null >/dev/null 2>&1",
    "setpgid": (
        'python3 -c \'import os, sys; os.setpgid(0, 0); os.execvp("sh", ["sh", "-c", '
        f"sys.argv[1]])' '{LOOP}' </dev/null >/dev/null 2>&1 &"
    ),
}
NO_CGROUP = {"CAESAR_CGROUP": "off"}
"""The fallback: marker sweep and subreaper only, as on a machine without a usable cgroup."""


def marked(needle: str) -> list[int]:
    """Live processes whose environment mentions ``needle`` (read here, not through caesar)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if needle.encode() in environ and state != b"Z":
            found.append(int(name))
    return found


@pytest.fixture(autouse=True)
def no_leftovers(tmp_path: Path) -> Iterator[None]:
    """Whatever a failing test leaves running is killed, not left on a shared machine."""
    yield
    for pid in marked(str(tmp_path)):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def heartbeat_stopped(task_dir: Path) -> bool:
    """The loop that writes the heartbeat is gone (exited, or a zombie nobody reaped yet): no
    beat can come any more."""
    pid = int((task_dir / "daemon.pid").read_text().strip())
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def heartbeat_goes_on(task_dir: Path, timeout: float = 10) -> None:
    """A new beat is written after this call: the loop still runs."""
    beat = task_dir / "heartbeat"
    before = beat.read_bytes() if beat.exists() else b""
    wait_for(
        lambda: beat.exists() and beat.read_bytes() not in (b"", before),
        timeout=timeout,
        what="a new heartbeat",
    )


def assert_nothing_left(repo: Path, task_id: str) -> None:
    task_dir = TaskStore(repo).paths(task_id).root
    daemon = int(wait_for(lambda: (task_dir / "daemon.pid").read_text().strip(), what="pid"))
    wait_for(lambda: not marked(f"CAESAR_TASK_ID={task_id}"), timeout=15, what="no process left")
    wait_for(lambda: heartbeat_stopped(task_dir), timeout=15, what="the heartbeat to stop")
    assert not pid_alive(daemon)


def daemon_started(repo: Path) -> str:
    def found() -> str | None:
        for record in TaskStore(repo).list().records:
            if (TaskStore(repo).paths(record.id).root / "daemon.pid").exists():
                return record.id
        return None

    task_id: str = wait_for(found, what="the agent's daemon")
    return task_id
