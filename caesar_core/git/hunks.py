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

import re

import pygit2
from pygit2.enums import DeltaStatus, FileMode

from caesar_core.review.hunks import Hunk, hunk_from_body, whole_hunk

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@[^\n]*")
_START = "\n@@ -"


def hunks_of(patch: pygit2.Patch, data: bytes | None = None) -> tuple[Hunk, ...]:
    """The hunks of one file's patch (a whole hunk when it has no lines to pick).

    Read from the patch's bytes (``data``, when the caller has them already): each hunk's body
    is the text between its ``@@`` line and the next, hashed as it is (no line objects made).
    """
    delta = patch.delta
    path = delta.new_file.path
    if delta.is_binary:
        text = ""
    else:
        text = (patch.data if data is None else data).decode("utf-8", "surrogateescape")
    at = text.find(_START)
    described = _whole_change(patch, has_lines=at >= 0)
    if described is not None:
        old, new = delta.old_file, delta.new_file
        identity = f"{old.path}\0{old.id}\0{int(old.mode):o}\0{new.id}\0{int(new.mode):o}"
        return (whole_hunk(path, described, identity),)
    found: list[Hunk] = []
    while at >= 0:
        match = _HEADER.match(text, at + 1)
        if match is None:  # pragma: no cover - libgit2 writes every hunk header this way
            break
        following = text.find(_START, match.end())
        body = text[match.end() + 1 : following + 1 if following >= 0 else len(text)]
        old_start, old_lines, new_start, new_lines = match.groups()
        found.append(
            hunk_from_body(
                path,
                match.group(0),
                int(old_start),
                1 if old_lines is None else int(old_lines),
                int(new_start),
                1 if new_lines is None else int(new_lines),
                body,
            )
        )
        at = following
    return tuple(found)


def _whole_change(patch: pygit2.Patch, *, has_lines: bool) -> str | None:
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
    if has_lines:
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
