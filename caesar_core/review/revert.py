"""Reverting selected hunks out of a task's worktree (``caesar reject``), through ``safefs``.

The worktree is the agent's: every file is read and written with ``safefs`` (no link followed,
no FIFO opened, a hard link refused), and a file is reverted only when it still holds exactly
the new side the diff was computed from (its blob id), so a worktree that changed meanwhile, or
a file git filters on checkout, is refused rather than guessed at. Everything is computed before
anything is written.

A file whose hunks are all selected whole goes back to its base side exactly (a created file is
removed, a deleted one restored, a rename moved back, a mode or a link put back); one selected
in part has just those changes undone (``review.hunks.apply_selection(reverse=True)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from caesar_core import safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.git.diff import FileChange
from caesar_core.git.select import blob_data
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Selection, apply_selection

MAX_FILE_BYTES = 1 << 30
"""The largest worktree file a reject reads back."""


class RevertError(CaesarError):
    exit_code = ExitCode.FAILURE


@dataclass(frozen=True, slots=True)
class _Put:
    path: str
    data: bytes | None  # None: remove the entry
    mode: int


def revert(
    worktree: Path, repo: pygit2.Repository, changes: Iterable[FileChange], selection: Selection
) -> list[str]:
    """Undo the selected hunks in ``worktree``; the paths written or removed."""
    puts: list[_Put] = []
    for change in changes:
        if any(selection.has(hunk) for hunk in change.hunks):
            puts.extend(_plan(worktree, repo, change, selection))
    for put in puts:
        try:
            if put.data is None:
                safefs.remove(worktree, put.path)
            elif put.mode == FileMode.LINK:
                safefs.write_link(worktree, put.path, put.data.decode("utf-8", "surrogateescape"))
            else:
                mode = 0o755 if put.mode == FileMode.BLOB_EXECUTABLE else 0o644
                safefs.atomic_write(worktree, put.path, put.data, mode=mode)
        except OSError as error:
            raise RevertError(
                f"could not revert {put.path} in {worktree}: {error}",
                "look at the worktree by hand; the files before it in the list were reverted",
            ) from None
    return sorted({put.path for put in puts})


def _plan(
    worktree: Path, repo: pygit2.Repository, change: FileChange, selection: Selection
) -> list[_Put]:
    if all(selection.whole(hunk) for hunk in change.hunks):
        return _base_side(repo, change)
    current = _current(worktree, change)
    text = current.decode("utf-8", "surrogateescape")
    reverted = apply_selection(text, change.hunks, selection, reverse=True)
    return [_Put(change.path, reverted.encode("utf-8", "surrogateescape"), change.new_mode)]


def _base_side(repo: pygit2.Repository, change: FileChange) -> list[_Put]:
    """The puts that leave the file as the base has it."""
    puts: list[_Put] = []
    if change.action in (ChangeAction.CREATED, ChangeAction.RENAMED):
        puts.append(_Put(change.path, None, 0))
    if change.old_blob is not None:
        old = change.old_path or change.path
        puts.append(_Put(old, blob_data(repo, change.old_blob), change.old_mode))
    return puts


def _current(worktree: Path, change: FileChange) -> bytes:
    """The worktree's file, if it is still the new side the diff was computed from."""
    try:
        data = safefs.read_bytes(worktree, change.path, limit=MAX_FILE_BYTES)
    except OSError as error:
        raise RevertError(
            f"cannot read {change.path} in the task's worktree: {error}",
            "read the diff again (`caesar diff ID`), then reject again",
        ) from None
    if change.new_blob is None or str(pygit2.hash(data)) != change.new_blob:
        raise RevertError(
            f"{change.path} in the task's worktree is not what the diff shows (it changed "
            "since, or git filters it on checkout)",
            "read the diff again (`caesar diff ID`) and reject again, or revert it by hand",
        )
    return data
