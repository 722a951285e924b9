"""A scratch worktree: a task's ``base_ref`` plus only the selected part of its work, for
``caesar check --hunk`` to know "these three hunks alone pass the tests" before applying them.

It is a detached linked worktree (no branch to leave behind) under
``.caesar/state/scratch/<task>-<pid>-<hex>``, laid out like the task's own (``[worktree]`` copy,
link and setup), and removed when the block ends, however it ends (a failure, Ctrl-C). One
left by a caesar that was killed outright is removed by the next scratch worktree made in the
project, once its process is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pygit2

from caesar_core import safefs
from caesar_core.config import Worktree
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git import GitError, create_worktree, find_repository, remove_worktree
from caesar_core.git.repo import open_repository
from caesar_core.git.select import FileSide
from caesar_core.layout import CAESAR_DIR, STATE_DIR
from caesar_core.runner.slots import pid_alive
from caesar_core.runner.workshop import lay_down, run_setup
from caesar_core.store.ids import is_task_id
from caesar_core.store.record import TaskRecord

SCRATCH_DIR = "scratch"
"""Below caesar's state directory: out of every agent's reach, ignored by git with it."""
_NAME = re.compile(r"(?P<task>.+)-(?P<pid>[0-9]+)-[0-9a-f]{8}")
_STALE_VISITED = 100


def scratch_home(root: Path) -> Path:
    return root / CAESAR_DIR / STATE_DIR / SCRATCH_DIR


@contextlib.contextmanager
def scratch_worktree(
    root: Path,
    record: TaskRecord,
    sides: Sequence[FileSide],
    worktree: Worktree,
    env: Mapping[str, str],
) -> Iterator[Path]:
    """The scratch worktree of ``record`` with the files a selection leaves (``sides``, from
    ``review.selection.selected_sides``) written over its base; removed when the block ends."""
    if record.base_ref is None:
        raise CaesarError(
            f"task {record.id} has no base commit: it ran in place",
            "run its checks on the whole task: caesar check " + record.id,
            exit_code=ExitCode.USAGE,
        )
    repo = find_repository(Path(record.source_workspace or record.workspace))
    if repo is None:
        raise CaesarError(
            f"the workspace of task {record.id} is no longer a git repository",
            "restore it, or run the checks in the task's worktree: caesar check " + record.id,
        )
    home = scratch_home(root)
    home.mkdir(parents=True, exist_ok=True)
    remove_stale(repo, home)
    dest = home / f"{record.id}-{os.getpid()}-{secrets.token_hex(4)}"
    create_worktree(repo, dest, None, at=record.base_ref)
    try:
        lay_down(repo, dest, worktree.copy, worktree.link)
        write_sides(dest, sides, open_repository(Path(record.worktree_path or repo)))
        if worktree.setup:
            run_setup(dest, worktree.setup, env)
        yield dest
    finally:
        remove_worktree(repo, dest, None)


def write_sides(dest: Path, sides: Sequence[FileSide], repo: pygit2.Repository) -> None:
    """Each file as the selection leaves it (its mode, a link as a link) or deleted (first),
    through ``safefs``: the paths are the agent's, and none may lead out through a link."""
    for side in sorted(sides, key=lambda side: (side.blob is not None, side.path)):
        data = side.content(repo)
        if data is None:
            safefs.remove(dest, side.path)
        elif stat.S_ISLNK(side.mode):
            safefs.write_link(dest, side.path, os.fsdecode(data))
        else:
            safefs.atomic_write(dest, side.path, data, mode=0o755 if side.mode & 0o111 else 0o644)


def remove_stale(repo: Path, home: Path) -> None:
    """Remove the scratch worktrees whose caesar process is gone (killed before its cleanup)."""
    try:
        with os.scandir(home) as listing:
            names = [entry.name for _, entry in zip(range(_STALE_VISITED), listing, strict=False)]
    except OSError:
        return
    for name in names:
        match = _NAME.fullmatch(name)
        if match is None or not is_task_id(match["task"]) or pid_alive(int(match["pid"])):
            continue
        with contextlib.suppress(GitError, OSError):
            remove_worktree(repo, home / name, None)
