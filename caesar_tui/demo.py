"""``caesar watch --demo``: a throwaway repository with demo tasks running in it.

The tasks run as real ``caesar run`` processes in the background (detached from the
terminal), so the app shows exactly what it shows for real agents: a task at work, one
waiting for an answer, one delegating to a child, one failing.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from caesar_core.cli.demo import throwaway_repository
from caesar_core.executable import caesar_command

DEMO_TASKS = (
    ("Refactor the greeting", "work", 0.8),
    ("Decide about the old behavior", "ask", 0.3),
    ("Split the work with a helper", "delegate", 0.3),
    ("Run the flaky suite", "fail", 0.5),
)


def start_demo(
    directory: Path | None = None, tasks: Sequence[tuple[str, str, float]] = DEMO_TASKS
) -> Path:
    """The throwaway repository with ``tasks`` (objective, demo script, delay between steps)
    started in it."""
    root = throwaway_repository(directory)
    caesar = caesar_command()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    (root / ".caesar").mkdir(exist_ok=True)
    with (root / ".caesar" / "demo.log").open("ab") as log:
        for objective, script, delay in tasks:
            _start(caesar, root, env, log, objective, script, delay)
    return root


def _start(
    caesar: list[str],
    root: Path,
    env: dict[str, str],
    log: BinaryIO,
    objective: str,
    script: str,
    delay: float,
) -> None:
    # Detached (own session), output kept in .caesar/demo.log: the app is the interface;
    # reaped when it ends.
    process = subprocess.Popen(
        [
            *caesar,
            "run",
            objective,
            "--agent",
            "demo",
            "--json",
            "--context",
            json.dumps({"script": script, "delay": delay}),
        ],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    threading.Thread(target=process.wait, name="caesar-demo-task", daemon=True).start()
