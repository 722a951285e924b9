"""The names caesar gives a task's git objects: its branch, and its worktree's lock (the
reason, and the file git keeps it in). No pygit2, so a ``caesar run`` names and locks them
without loading libgit2."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

BRANCH_PREFIX = "caesar/"
_SLUG_MAX = 40
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def branch_name(label: str, task_id: str) -> str:
    """``caesar/<slug>-<id8>``: readable in ``git branch``, unique by the task id.

    The slug is the label lowercased with every run of other characters than ``a-z0-9``
    turned into one ``-``, trimmed, at most 40 characters; ``task`` when nothing is left.
    The name is a valid branch name by construction: its components hold only ``a-z0-9``
    and inner ``-`` (no ``.``, ``@{``, control character or trailing ``.lock`` can appear).
    """
    slug = _NOT_ALNUM.sub("-", label.lower()).strip("-")[:_SLUG_MAX].strip("-") or "task"
    short = task_id[2:] if task_id.startswith("t_") else task_id
    # Another implementation's id may hold no letter or digit at all: its digest stands in.
    short = (
        _NOT_ALNUM.sub("", short.lower())[:8] or hashlib.sha256(task_id.encode()).hexdigest()[:8]
    )
    return f"{BRANCH_PREFIX}{slug}-{short}"


def task_lock_reason(task_id: str) -> str:
    """Why a task's worktree is locked, as ``git worktree list`` and a refused ``git worktree
    remove`` show it: it may hold work not applied yet, and the ``caesar`` commands that know."""
    return (
        f"caesar task {task_id}: may hold work not applied yet; review it with "
        f"`caesar diff {task_id}`, remove it with `caesar gc` or `caesar discard {task_id}`"
    )


def write_lock(admin: Path, reason: str) -> None:
    """git's own lock: the file ``locked`` in the worktree's admin directory, holding the
    reason on one line."""
    (admin / "locked").write_text(" ".join(reason.split()), encoding="utf-8")
