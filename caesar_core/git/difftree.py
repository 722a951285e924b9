"""What ``git diff-tree --raw -z`` prints, read, and each file's section of its patch written
as libgit2 writes it (caesar's patches were libgit2's first: the same text, the same spans and
hunk ids, whichever program computed them).

Pure functions of bytes, no process run here: :mod:`caesar_core.git.viagit` runs git.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

ABBREV = 7
"""libgit2's abbreviation of the ids on a patch's ``index`` line (``core.abbrev`` unset)."""


@dataclass(slots=True)
class RawEntry:
    """One line of ``--raw`` output. (Not frozen: a frozen dataclass is made three times
    slower, and a diff has one per file.)"""

    status: str
    old_mode: int
    new_mode: int
    old_id: str
    new_id: str
    old_path: str
    path: str


def read_raw(out: bytes) -> tuple[list[RawEntry], bytes]:
    """The ``--raw -z`` entries at the head of ``out``, and what follows them."""
    entries: list[RawEntry] = []
    at = 0
    while out.startswith(b":", at):
        end = out.index(b"\0", at)
        old_mode, new_mode, old_id, new_id, status = out[at + 1 : end].decode().split(" ")
        at = end + 1
        names = []
        for _ in range(2 if status[0] in "RC" else 1):
            end = out.index(b"\0", at)
            names.append(out[at:end].decode("utf-8", "surrogateescape"))
            at = end + 1
        entries.append(
            RawEntry(
                status[0], int(old_mode, 8), int(new_mode, 8), old_id, new_id, names[0], names[-1]
            )
        )
    if out.startswith(b"\0", at):
        at += 1
    return entries, out[at:]


def split_sections(patch: bytes) -> list[bytes]:
    """The patch's sections: each starts at a ``diff --git`` line (no line of a hunk can)."""
    starts = []
    at = 0 if patch.startswith(b"diff --git ") else patch.find(b"\ndiff --git ")
    while at >= 0:
        if patch[at] == ord("\n"):
            at += 1
        starts.append(at)
        at = patch.find(b"\ndiff --git ", at)
    starts.append(len(patch))
    return [patch[a:b] for a, b in itertools.pairwise(starts)]


_SECTION = b"\ndiff --git "


class PatchReader:
    """:func:`read_raw` and :func:`split_sections` of an output that arrives in chunks (a
    run of git still writing it): :meth:`entries` once the raw part is all there, then
    :meth:`sections`, each as soon as the next one starts, so the reader's work on one
    section overlaps git's on the next. The same values, whatever the chunks (tests hold it
    to the two functions). What waits is kept in a ``bytearray``: a section of any size
    costs its length, not its length squared."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = bytearray()

    def _more(self) -> bool:
        """One more chunk into the buffer; False at the end of the output."""
        for chunk in self._chunks:
            self._buffer += chunk
            return True
        return False

    def entries(self) -> list[RawEntry]:
        """The raw entries at the head of the output (what follows kept for
        :meth:`sections`)."""
        entries: list[RawEntry] = []
        at = 0
        while True:
            if len(self._buffer) <= at and not self._more():
                break  # the output ends with its entries
            if self._buffer[at] != ord(":"):
                break
            found = _raw_entry(self._buffer, at)
            if found is None:
                if not self._more():
                    raise ValueError("the raw output ends within an entry")
                continue
            entry, at = found
            entries.append(entry)
        if self._buffer.startswith(b"\0", at):
            at += 1
        del self._buffer[:at]
        return entries

    def rest(self) -> bytes:
        """All the output after the entries."""
        while self._more():
            pass
        return bytes(self._buffer)

    def sections(self) -> Iterator[bytes]:
        """The patch's sections after the entries, as :func:`split_sections` cuts them."""
        text = self._buffer
        text[:0] = b"\n"  # so the first section, like every other, starts after a newline
        start, scanned = -1, 0
        while True:
            found = text.find(_SECTION, scanned)
            if found < 0:
                scanned = max(scanned, len(text) - len(_SECTION) + 1)
                if not self._more():
                    if start >= 0:
                        yield bytes(text[start:])
                    return
                continue
            if start >= 0:
                yield bytes(text[start : found + 1])
            del text[: found + 1]
            start, scanned = 0, 1


def _raw_entry(out: bytes | bytearray, at: int) -> tuple[RawEntry, int] | None:
    """The raw entry at ``at`` and where the next starts; None when ``out`` ends within it."""
    end = out.find(b"\0", at)
    if end < 0:
        return None
    old_mode, new_mode, old_id, new_id, status = out[at + 1 : end].decode().split(" ")
    names = []
    for _ in range(2 if status[0] in "RC" else 1):
        start, end = end + 1, out.find(b"\0", end + 1)
        if end < 0:
            return None
        names.append(out[start:end].decode("utf-8", "surrogateescape"))
    entry = RawEntry(
        status[0], int(old_mode, 8), int(new_mode, 8), old_id, new_id, names[0], names[-1]
    )
    return entry, end + 1


def libgit2_header(section: bytes) -> bytes:
    """``section``'s header as libgit2 writes it: the ``index`` line's ids cut to seven digits,
    and no TAB after a ``---``/``+++`` name holding a space (git adds one for GNU patch)."""
    hunk = section.find(b"\n@@ ")
    head_end = hunk if hunk >= 0 else len(section)
    if b"\t\n" in section[: head_end + 1]:
        head = section[: head_end + 1]
        head = head.replace(b"\t\n+++ ", b"\n+++ ")
        if head.endswith(b"\t\n") and head.rfind(b"\n+++ ") >= 0:
            head = head[:-2] + b"\n"
        section = head + section[head_end + 1 :]
        hunk = section.find(b"\n@@ ")
    at = section.find(b"\nindex ")
    if at < 0 or 0 <= hunk < at:
        return section
    start = at + len(b"\nindex ")
    old = section[start : start + 40]
    new = section[start + 42 : start + 82]
    return section[:start] + old[:ABBREV] + b".." + new[:ABBREV] + section[start + 82 :]


def section_stats(section: bytes) -> tuple[bool, int, int]:
    """Whether a section is binary, and its added and deleted lines."""
    hunk = section.find(b"\n@@ ")
    if hunk < 0:
        binary = b"\nBinary files " in section or section.startswith(b"Binary files ")
        return binary, 0, 0
    body = section[hunk:]
    return False, body.count(b"\n+"), body.count(b"\n-")


def read_numstat(rest: bytes) -> list[tuple[bool, int, int]]:
    """``--numstat -z`` lines: ``added TAB deleted TAB path`` (a rename: empty path, then the
    two paths, each ended by NUL); binary files count ``-``."""
    found: list[tuple[bool, int, int]] = []
    at = 0
    while at < len(rest):
        end = rest.index(b"\0", at)
        added, deleted, path = rest[at:end].split(b"\t", 2)
        at = end + 1
        if not path:  # a rename or copy: its two paths follow
            at = rest.index(b"\0", rest.index(b"\0", at) + 1) + 1
        if added == b"-":
            found.append((True, 0, 0))
        else:
            found.append((False, int(added), int(deleted)))
    return found


def type_change_section(entry: RawEntry) -> bytes:
    """A type change's section as libgit2 writes it: the modes and ids, no hunk."""
    a, b = quoted("a/" + entry.path), quoted("b/" + entry.path)
    return (
        f"diff --git {a} {b}\nold mode {entry.old_mode:o}\nnew mode {entry.new_mode:o}\n"
        f"index {entry.old_id[:ABBREV]}..{entry.new_id[:ABBREV]}\n--- {a}\n+++ {b}\n"
    ).encode("utf-8", "surrogateescape")


def file_lines(entry: RawEntry) -> bytes:
    """The ``---``/``+++`` lines libgit2 writes for a content change without hunks (an empty
    file created or deleted), where git writes none."""
    old = quoted("a/" + entry.old_path) if entry.old_mode else "/dev/null"
    new = quoted("b/" + entry.path) if entry.new_mode else "/dev/null"
    return f"--- {old}\n+++ {new}\n".encode("utf-8", "surrogateescape")


_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}


def quoted(name: str) -> str:
    """A path as a patch header writes it: C-quoted when it holds a byte outside printable
    ASCII, a quote or a backslash (``core.quotePath``, as libgit2 always does)."""
    raw = name.encode("utf-8", "surrogateescape")
    if all(32 <= byte < 127 and byte not in (34, 92) for byte in raw):
        return name
    out = []
    for byte in raw:
        if byte in _ESCAPES:
            out.append("\\" + _ESCAPES[byte])
        elif 32 <= byte < 127:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
