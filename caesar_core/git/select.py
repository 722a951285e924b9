"""The files, and the tree, a hunk selection leaves: the base with only the selected changes.

A file whose hunks are all taken whole is exactly its new side (its blob, its mode; a deletion
deletes, a rename's old path goes). A file taken in part is the base's text with the selected
changes made (``review.hunks.apply_selection``); a rename or a mode change goes with any part
taken. :func:`selected_tree` is the base tree with those files in place: the "theirs" side of
a partial apply's three-way merge, and the content of a check run on a selection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pygit2
from pygit2.enums import FileMode

from caesar_core.git.content import store_blob
from caesar_core.git.diff import FileChange
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Selection, apply_selection


@dataclass(frozen=True, slots=True)
class FileSide:
    """One file a selection leaves: its blob and mode, or ``blob`` None when it is gone.

    ``data`` is the content of a file taken in part, computed here: its blob id is known but
    not stored until :func:`store` (a partial apply writes such files without storing them)."""

    path: str
    blob: pygit2.Oid | None
    mode: int
    data: bytes | None = None

    def content(self, repo: pygit2.Repository) -> bytes | None:
        """The file's bytes; None when the selection deletes it."""
        if self.blob is None:
            return None
        return self.data if self.data is not None else blob_data(repo, self.blob)


def selected_files(
    repo: pygit2.Repository, changes: Iterable[FileChange], selection: Selection
) -> list[FileSide]:
    """The files ``selection`` leaves, for each change it touches (nothing is stored)."""
    sides: list[FileSide] = []
    for change in changes:
        if not any(selection.has(hunk) for hunk in change.hunks):
            continue
        deleted = change.action is ChangeAction.DELETED
        if change.old_path is not None:
            sides.append(FileSide(change.old_path, None, 0))
        if all(selection.whole(hunk) for hunk in change.hunks):
            if deleted or change.new_blob is None:
                sides.append(FileSide(change.path, None, 0))
            else:
                new = pygit2.Oid(hex=change.new_blob)
                sides.append(FileSide(change.path, new, change.new_mode))
            continue
        base = blob_data(repo, change.old_blob).decode("utf-8", "surrogateescape")
        data = apply_selection(base, change.hunks, selection).encode("utf-8", "surrogateescape")
        mode = change.old_mode if deleted else change.new_mode
        sides.append(FileSide(change.path, pygit2.hash(data), mode, data))
    return sides


def store(repo: pygit2.Repository, sides: Sequence[FileSide]) -> None:
    """Write the blobs of the files computed in memory to the object store."""
    for side in sides:
        if side.data is not None:
            store_blob(repo, side.data)


def selected_tree(
    repo: pygit2.Repository, base_tree: pygit2.Tree, sides: Sequence[FileSide]
) -> pygit2.Oid:
    """``base_tree`` with ``sides`` in place: the tree of the base plus the selected changes
    (their blobs are stored first)."""
    store(repo, sides)
    index = pygit2.Index()
    index.read_tree(base_tree)
    for side in sides:
        if side.blob is None:
            if side.path in index:
                index.remove(side.path)
        else:
            index.add(pygit2.IndexEntry(side.path, side.blob, FileMode(side.mode)))
    tree: pygit2.Oid = index.write_tree(repo)
    return tree


def blob_data(repo: pygit2.Repository, blob: pygit2.Oid | str | None) -> bytes:
    """The content of a blob (empty for none)."""
    if blob is None:
        return b""
    found = repo.get(blob)
    return found.data if isinstance(found, pygit2.Blob) else b""
