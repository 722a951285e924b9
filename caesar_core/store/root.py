"""Where a project's ``.caesar/`` lives."""

from __future__ import annotations

import os
from pathlib import Path

from caesar_core.errors import UsageError
from caesar_core.layout import CAESAR_DIR, project_of_task

__all__ = ["CAESAR_DIR", "find_root", "project_of_task"]


def find_root(
    explicit: Path | None = None, *, start: Path | None = None, ceiling: Path | None = None
) -> Path:
    """The project root: ``explicit`` (``--root``), else the nearest ancestor of ``start``
    (the cwd) holding a ``.caesar/`` directory or a ``.git``, else ``start`` itself.

    An agent that delegates (``caesar run`` inside a task) shares its parent's store: the
    root is read back from ``CAESAR_TASK_DIR`` (``<root>/.caesar/tasks/<id>``), so the child
    appears under its parent in ``caesar ps`` instead of in a store inside the worktree.
    """
    if explicit is not None:
        root = explicit.expanduser().resolve()
        if not root.is_dir():
            raise UsageError(
                f"--root {explicit} is not a directory",
                "pass an existing project directory, or omit --root to use the current one",
            )
        return root
    inherited = _parent_task_root()
    if inherited is not None:
        return inherited
    here = (start or Path.cwd()).resolve()
    top = ceiling.resolve() if ceiling is not None else None
    for candidate in (here, *here.parents):
        if top is not None and candidate != top and top not in candidate.parents:
            break  # like GIT_CEILING_DIRECTORIES: never look above the ceiling
        if (candidate / CAESAR_DIR).is_dir() or (candidate / ".git").exists():
            return candidate
    return here


def _parent_task_root() -> Path | None:
    task_dir = os.environ.get("CAESAR_TASK_DIR")
    return project_of_task(Path(task_dir)) if task_dir else None
