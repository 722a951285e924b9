"""The demo agent's process: everything it needs comes from the ``CAESAR_*`` variables."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from caesar_core.agents.demo.run import Run, options_of
from caesar_core.agents.demo.scripts import SCRIPTS
from caesar_core.errors import CaesarError
from caesar_core.events.writer import EventWriter
from caesar_core.fs import atomic_write, dump_json
from caesar_core.protocol.documents import read_task
from caesar_core.protocol.parse import problem_text
from caesar_core.protocol.taskdir import (
    ENV_EVENTS_PATH,
    ENV_REPORT_PATH,
    ENV_TASK_DIR,
    ENV_TASK_FILE,
)


def main() -> int:
    """Run the script the task asks for; exit 2 on a usage error (no task, unknown script)."""
    try:
        task_file = Path(os.environ[ENV_TASK_FILE])
        report_path = Path(os.environ[ENV_REPORT_PATH])
    except KeyError as missing:
        print(f"demo agent: {missing.args[0]} is not set; run me through caesar", file=sys.stderr)
        return 2
    events_path = Path(os.environ.get(ENV_EVENTS_PATH) or report_path.with_name("events.jsonl"))
    task_dir = Path(os.environ.get(ENV_TASK_DIR) or report_path.parent)
    try:
        task = read_task(task_file)
    except (OSError, ValueError, CaesarError) as error:
        reason = problem_text(error)
        print(f"demo agent: cannot read the task {task_file}: {reason}", file=sys.stderr)
        return 2
    options = options_of(task)
    script = SCRIPTS.get(options.script)
    if script is None:
        known = ", ".join(SCRIPTS)
        print(
            f"demo agent: unknown script {options.script!r}; known scripts: {known}",
            file=sys.stderr,
        )
        return 2
    with EventWriter(events_path, task.id) as events:
        outcome = script(Run(task, events, options, task_dir))
    if outcome.stdout is not None:
        print(outcome.stdout, flush=True)
    elif outcome.report is not None:
        print(outcome.report.summary, flush=True)
    if outcome.report is not None:
        # Last, as the contract asks: once the report exists, the agent's work is done.
        atomic_write(report_path, dump_json(outcome.report.to_json_dict()))
    return outcome.exit_code
