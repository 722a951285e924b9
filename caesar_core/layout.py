"""Where caesar keeps what inside a project, as paths alone (stdlib only: the hook path uses it).

```
<root>/.caesar/tasks/<id>/        the task directory: the agent may write all of it
<root>/.caesar/state/tasks/<id>.json   caesar's record of the task
<root>/.caesar/state/listing.json      what listings read of the records, by their content
<root>/.caesar/state/approvals/<id>/   answers to the task's held tool calls
<root>/.caesar/state/reports/<id>.json caesar's copy of the report it concluded the task with
<root>/.caesar/state/comments/<id>.json the review comments of the chain of turns <id> begins
<root>/.caesar/wt/<id>/           the task's worktree
<root>/.caesar/state/scratch/     scratch worktrees of `caesar check --hunk` (while it runs)
```

What decides for the agent lives under ``state/``, which no agent is given: an answer to an
approval kept in the task directory could be written by the very agent whose call is held, and
review comments kept there could be forged or resolved by the agent they are about.
"""

from __future__ import annotations

import os
from pathlib import Path

CAESAR_DIR = ".caesar"
STATE_DIR = "state"
APPROVAL_ANSWERS_DIR = "approvals"
KEPT_REPORTS_DIR = "reports"
REVIEW_COMMENTS_DIR = "comments"
RECORDS_DIR = "tasks"
"""caesar's records of the tasks, under ``state/``."""
LISTING_CACHE = "listing.json"
"""What ``caesar ps`` read of each record, by the record's content (``store/listing.py``)."""


def project_of_task(task_dir: Path) -> Path | None:
    """The project root a task directory belongs to (``<root>/.caesar/tasks/<id>``), or None
    when the path does not have that shape."""
    if task_dir.parent.name != "tasks" or task_dir.parent.parent.name != CAESAR_DIR:
        return None
    root = task_dir.parent.parent.parent
    return root.resolve() if (root / CAESAR_DIR).is_dir() else None


def approval_answers(task_dir: Path) -> tuple[Path, str]:
    """Where the answers to a task's approvals are kept: ``(trusted root, folder below it)``,
    for :mod:`caesar_core.safefs`.

    In caesar's state directory, outside everything the agent can write. A task directory
    without the project layout (never made by caesar) keeps them in its own ``approvals/``.
    """
    root = project_of_task(task_dir)
    if root is None:
        return task_dir, APPROVAL_ANSWERS_DIR
    return root / CAESAR_DIR / STATE_DIR, f"{APPROVAL_ANSWERS_DIR}/{task_dir.name}"


def kept_report(task_dir: Path) -> tuple[Path, str] | None:
    """Where caesar keeps its own copy of the report it concluded a task with, ``(trusted
    root, file below it)``: what ``report.json`` says afterwards is the agent's to change (an
    orphaned process may still write there), this copy is not. None for a task directory
    without the project layout."""
    root = project_of_task(task_dir)
    if root is None:
        return None
    return root / CAESAR_DIR / STATE_DIR, f"{KEPT_REPORTS_DIR}/{task_dir.name}.json"


def review_comments(caesar_home: Path, chain: str) -> tuple[Path, str]:
    """Where the review comments of the chain of turns begun by task ``chain`` are kept,
    ``(trusted root, file below it)``, for :mod:`caesar_core.safefs`: in caesar's state
    directory (``caesar_home`` is ``<root>/.caesar``), where no turn's agent can write."""
    return caesar_home / STATE_DIR, f"{REVIEW_COMMENTS_DIR}/{chain}.json"


def record_files(records_dir: Path) -> list[Path]:
    """The records in ``records_dir`` (``state/tasks``), in name order; none when it does not
    exist. Hidden files (a record's lock, a temporary file) are not records."""
    try:
        names = sorted(os.listdir(records_dir))
    except FileNotFoundError:
        return []
    return [records_dir / name for name in names if name.endswith(".json") and name[0] != "."]
