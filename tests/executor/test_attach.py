"""Whether a command may fork its remote task's shepherd, or must start a new process."""

from __future__ import annotations

import threading

from caesar_core.executor.fork import can_fork


def test_a_process_running_another_thread_does_not_fork_a_shepherd() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        other.join()
