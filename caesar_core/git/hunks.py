"""The hunk model on git: the hunks of a file's patch.

:func:`file_hunks` turns one file's section of a patch into
:class:`~caesar_core.review.hunks.Hunk` values: each hunk's lines with their origin and exact
bytes (decoded with ``surrogateescape``, so any content survives the round trip), line endings
kept, git's ``\\ No newline at end of file`` markers folded into the texts (the last line simply
has no ending). A change with no lines to pick from -- a binary file, a pure rename, a mode
change, a symbolic link, a submodule, a type change, an empty file created or deleted -- is one
*whole* hunk whose id comes from the path, the blob ids and the modes.

Both reconciliations call it (``git.diff`` with a pygit2 patch's values, ``git.viagit`` with the
``git`` program's), so a hunk has one id whichever computed it; nothing here loads pygit2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from caesar_core.review.hunks import Hunk, hunk_from_body, whole_hunk

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@[^\n]*")
_START = "\n@@ -"
LINK_MODE = 0o120000
GITLINK_MODE = 0o160000


@dataclass(frozen=True, slots=True)
class Sides:
    """One file's change as a diff names it: ``status`` is git's letter (``A`` added, ``D``
    deleted, ``M`` modified, ``R`` renamed, ``T`` type change); ids are 40 hex digits (zeros
    where the side does not exist) and modes git's (0 there); ``old_path`` is the new path
    for a file that was added, as libgit2 reports it."""

    status: str
    old_path: str
    old_id: str
    old_mode: int
    new_path: str
    new_id: str
    new_mode: int
    binary: bool


def file_hunks(sides: Sides, data: bytes) -> tuple[Hunk, ...]:
    """The hunks of one file's section of a patch (a whole hunk when it has no lines to pick).

    Each hunk's body is the text between its ``@@`` line and the next, hashed as it is (no
    line objects made).
    """
    path = sides.new_path
    text = "" if sides.binary else data.decode("utf-8", "surrogateescape")
    at = text.find(_START)
    described = _whole_change(sides, has_lines=at >= 0)
    if described is not None:
        identity = (
            f"{sides.old_path}\0{sides.old_id}\0{sides.old_mode:o}\0"
            f"{sides.new_id}\0{sides.new_mode:o}"
        )
        return (whole_hunk(path, described, identity),)
    found: list[Hunk] = []
    while at >= 0:
        match = _HEADER.match(text, at + 1)
        if match is None:  # pragma: no cover - git writes every hunk header this way
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


def _whole_change(sides: Sides, *, has_lines: bool) -> str | None:
    """What a change with no lines to pick is, in words; None for a text change with lines."""
    modes = {sides.old_mode, sides.new_mode}
    if GITLINK_MODE in modes:
        return "submodule"
    if LINK_MODE in modes:
        return "symbolic link " + _status_word(sides.status)
    if sides.status == "T":
        return "type change"
    if sides.binary:
        return "binary file " + _status_word(sides.status)
    if has_lines:
        return None
    parts = []
    if sides.status == "R":
        parts.append(f"renamed from {sides.old_path}")
    if sides.status in ("A", "D"):
        parts.append("empty file " + _status_word(sides.status))
    elif sides.old_mode != sides.new_mode:
        parts.append(f"mode {sides.old_mode:o} -> {sides.new_mode:o}")
    return ", ".join(parts) or "no content change"


def _status_word(status: str) -> str:
    return {"A": "created", "D": "deleted", "R": "renamed"}.get(status, "changed")
