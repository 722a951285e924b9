"""Where a project's ``.caesar/`` lives."""

from __future__ import annotations

from pathlib import Path

from caesar_core.errors import UsageError

CAESAR_DIR = ".caesar"


def find_root(explicit: Path | None = None, *, start: Path | None = None) -> Path:
    """The project root: ``explicit`` (``--root``), else the nearest ancestor of ``start``
    (the cwd) holding a ``.caesar/`` directory or a ``.git``, else ``start`` itself.

    ``.git`` may be a file (a linked worktree or a submodule); it still marks a root, so an
    agent working inside a worktree gets a store of its own rather than writing into its
    parent's.
    """
    if explicit is not None:
        root = explicit.expanduser().resolve()
        if not root.is_dir():
            raise UsageError(
                f"--root {explicit} is not a directory",
                "pass an existing project directory, or omit --root to use the current one",
            )
        return root
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / CAESAR_DIR).is_dir() or (candidate / ".git").exists():
            return candidate
    return here
