"""The hunk model on git: the hunks of a file's patch.

:func:`hunks_of` turns one file's ``pygit2.Patch`` into :class:`~caesar_core.review.hunks.Hunk`
values: each hunk's lines with their origin and exact bytes (decoded with ``surrogateescape``,
so any content survives the round trip), line endings kept, git's ``\\ No newline at end of
file`` markers folded into the texts (the last line simply has no ending). A change with no
lines to pick from -- a binary file, a pure rename, a mode change, a symbolic link, a
submodule, a type change, an empty file created or deleted -- is one *whole* hunk whose id comes
from the path, the blob ids and the modes.
"""

from __future__ import annotations

import pygit2
from pygit2.enums import DeltaStatus, FileMode

from caesar_core.review.hunks import Hunk, HunkLine, make_hunk, whole_hunk

_ORIGINS = frozenset(" +-")
"""Line origins kept; libgit2's ``=``/``>``/``<`` lines are the no-newline markers."""


def hunks_of(patch: pygit2.Patch) -> tuple[Hunk, ...]:
    """The hunks of one file's patch (a whole hunk when it has no lines to pick)."""
    delta = patch.delta
    path = delta.new_file.path
    described = _whole_change(patch)
    if described is not None:
        old, new = delta.old_file, delta.new_file
        identity = f"{old.path}\0{old.id}\0{int(old.mode):o}\0{new.id}\0{int(new.mode):o}"
        return (whole_hunk(path, described, identity),)
    found: list[Hunk] = []
    for hunk in patch.hunks:
        lines = [
            HunkLine(line.origin, line.raw_content.decode("utf-8", "surrogateescape"))
            for line in hunk.lines
            if line.origin in _ORIGINS
        ]
        found.append(
            make_hunk(
                path,
                hunk.header.rstrip("\n"),
                hunk.old_start,
                hunk.old_lines,
                hunk.new_start,
                hunk.new_lines,
                lines,
            )
        )
    return tuple(found)


def _whole_change(patch: pygit2.Patch) -> str | None:
    """What a change with no lines to pick is, in words; None for a text change with lines."""
    delta = patch.delta
    old, new = delta.old_file, delta.new_file
    modes = {int(old.mode), int(new.mode)}
    if FileMode.COMMIT in modes:
        return "submodule"
    if FileMode.LINK in modes:
        return "symbolic link " + _status_word(delta.status)
    if delta.status == DeltaStatus.TYPECHANGE:
        return "type change"
    if delta.is_binary:
        return "binary file " + _status_word(delta.status)
    if patch.hunks:
        return None
    parts = []
    if delta.status == DeltaStatus.RENAMED:
        parts.append(f"renamed from {old.path}")
    if delta.status in (DeltaStatus.ADDED, DeltaStatus.DELETED):
        parts.append("empty file " + _status_word(delta.status))
    elif old.mode != new.mode:
        parts.append(f"mode {int(old.mode):o} -> {int(new.mode):o}")
    return ", ".join(parts) or "no content change"


def _status_word(status: DeltaStatus) -> str:
    return {
        DeltaStatus.ADDED: "created",
        DeltaStatus.DELETED: "deleted",
        DeltaStatus.RENAMED: "renamed",
    }.get(status, "changed")
