"""Hunks as data: the unit a person reviews, applies and rejects, by id or by changed line.

A hunk's id is derived from its file's path and its content (context, removed and added lines),
never its position: it stays the same across re-reads, and across edits elsewhere in the file
that leave the hunk's own lines alone. A selection names hunks, or changed lines of a hunk
(``h_…:3-5``: the third to fifth of its ``-``/``+`` lines, 1-based), and :func:`apply_selection`
turns the old side of a file plus the selected changes into the new text, or reverts the selected
changes out of the new side (``reverse``), the way ``git add -p`` edits a hunk.

A hunk that has no lines to pick from (a binary file, a pure rename, a mode change, a link) is a
*whole* hunk: one for the whole file, taken or left whole (``whole``; its id is made from what
changed, see ``caesar_core/git/hunks.py``).

One module for the model, the picks and the pure apply: they are one vocabulary, used together
by every caller (git, the CLI, MCP, the review screen). Pure: no git, no files. Lines keep
their line endings and are split on ``\n`` alone (as git splits them), so a missing newline at
the end of a file, a lone ``\r`` or a form feed are carried exactly.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from caesar_core.errors import CaesarError, ExitCode

HUNK_ID_PREFIX = "h_"
_ID_HEX = 12
_SHOWN_IDS = 40
"""How many current ids a refusal lists."""
_SPEC = re.compile(r"^(h_[0-9a-f]{12})(?::(\d+)-(\d+))?$")


@dataclass(frozen=True, slots=True)
class HunkLine:
    """One line of a hunk: ``origin`` is ``" "`` (context), ``"-"`` or ``"+"``; ``text`` keeps
    its line ending (none on a last line without one)."""

    origin: str
    text: str


NO_NEWLINE = "\\ No newline at end of file\n"
"""What follows, in a hunk's body, a line that has no newline (as git writes it)."""


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk of one file. ``body`` is its lines as a unified diff writes them (origin and
    text, ``NO_NEWLINE`` after a last line without one), which is what the id is made from;
    ``lines`` parses it when asked, so listing thousands of hunks costs no line objects."""

    id: str
    path: str
    header: str
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    body: str = field(repr=False)
    digest: str = field(repr=False)
    """SHA-256 (hex) of what the id is made from: what the record keeps of an applied or
    rejected hunk (the id is ``h_`` and its first 12 digits)."""
    whole: bool = False
    """One hunk for the whole file, with no lines to pick: taken or left whole."""

    @property
    def lines(self) -> tuple[HunkLine, ...]:
        return parse_body(self.body)

    @property
    def added(self) -> int:
        return _count(self.body, "+")

    @property
    def removed(self) -> int:
        return _count(self.body, "-")

    @property
    def changed(self) -> int:
        """How many ``-``/``+`` lines it has: the range ``--hunk ID:N-M`` counts in."""
        return self.added + self.removed

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "header": self.header,
            "old_start": self.old_start,
            "old_lines": self.old_lines,
            "new_start": self.new_start,
            "new_lines": self.new_lines,
            "added": self.added,
            "removed": self.removed,
            "whole": self.whole,
        }


def _count(body: str, origin: str) -> int:
    return body.count("\n" + origin) + body.startswith(origin)


def render_body(lines: Iterable[HunkLine]) -> str:
    """Lines as a hunk's body: origin and text each, ``NO_NEWLINE`` after one without."""
    parts: list[str] = []
    for line in lines:
        parts.append(line.origin + line.text)
        if not line.text.endswith("\n"):
            parts.append("\n" + NO_NEWLINE)
    return "".join(parts)


def parse_body(body: str) -> tuple[HunkLine, ...]:
    """The lines of a hunk's body (the inverse of :func:`render_body`)."""
    found: list[HunkLine] = []
    for raw in body.split("\n")[:-1]:
        if raw.startswith("\\"):
            if found:
                last = found[-1]
                found[-1] = HunkLine(last.origin, last.text[:-1])
            continue
        found.append(HunkLine(raw[:1], raw[1:] + "\n"))
    return tuple(found)


def split_lines(text: str) -> list[str]:
    """``text``'s lines with their endings, split on ``\n`` only (``str.splitlines`` also
    splits on ``\r``, form feeds and more, which git does not)."""
    if not text:
        return []
    lines = [line + "\n" for line in text.split("\n")]
    last = lines.pop()[:-1]
    if last:
        lines.append(last)
    return lines


def content_digest(path: str, body: str, extra: str = "") -> str:
    """SHA-256 (hex) of a path and a hunk's body (and, for a whole hunk, what changed)."""
    data = path.encode("utf-8", "surrogateescape") + b"\0" + body.encode("utf-8", "surrogateescape")
    if extra:
        data += b"\1" + extra.encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()


def hunk_from_body(
    path: str,
    header: str,
    old_start: int,
    old_lines: int,
    new_start: int,
    new_lines: int,
    body: str,
) -> Hunk:
    """A hunk from its body as git's patch text holds it."""
    digest = content_digest(path, body)
    hid = HUNK_ID_PREFIX + digest[:_ID_HEX]
    return Hunk(hid, path, header, old_start, old_lines, new_start, new_lines, body, digest)


def make_hunk(
    path: str,
    header: str,
    old_start: int,
    old_lines: int,
    new_start: int,
    new_lines: int,
    lines: Sequence[HunkLine],
) -> Hunk:
    body = render_body(lines)
    return hunk_from_body(path, header, old_start, old_lines, new_start, new_lines, body)


def whole_hunk(path: str, header: str, identity: str) -> Hunk:
    """The one hunk of a file whose change has no lines to pick (binary, rename, mode, link):
    its id comes from the path and ``identity`` (what changed: blob ids and modes), its
    ``header`` says what the change is."""
    digest = content_digest(path, "", identity)
    return Hunk(HUNK_ID_PREFIX + digest[:_ID_HEX], path, header, 0, 0, 0, 0, "", digest, True)


# -- selections --------------------------------------------------------------------------


class SelectionError(CaesarError):
    """A hunk selection that does not fit the diff as it is now; nothing was written."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True, slots=True)
class Pick:
    """One ``--hunk`` argument: a whole hunk, or changed lines ``first..last`` of it."""

    hunk_id: str
    first: int | None = None
    last: int | None = None

    def __str__(self) -> str:
        return self.hunk_id if self.first is None else f"{self.hunk_id}:{self.first}-{self.last}"


def parse_pick(spec: str) -> Pick:
    """``h_0123456789ab`` or ``h_0123456789ab:N-M``."""
    match = _SPEC.match(spec.strip())
    if match is None:
        raise SelectionError(
            f"not a hunk selection: {spec[:60]!r}",
            "name a hunk as h_ + 12 hex digits (see `caesar diff ID --json`), optionally "
            "followed by :N-M for its changed lines N to M",
        )
    hid, first, last = match.group(1), match.group(2), match.group(3)
    if first is None or last is None:
        return Pick(hid)
    start, end = int(first), int(last)
    if start < 1 or end < start:
        raise SelectionError(
            f"{spec}: a line range is N-M with 1 <= N <= M",
            "count the hunk's changed (-/+) lines from 1",
        )
    return Pick(hid, start, end)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which changed lines of which hunks: hunk id -> the 1-based indices among its ``-``/``+``
    lines (every one of them for a whole hunk)."""

    lines: Mapping[str, frozenset[int]]

    def of(self, hunk: Hunk) -> frozenset[int]:
        return self.lines.get(hunk.id, frozenset())

    def has(self, hunk: Hunk) -> bool:
        """Whether any of ``hunk`` is selected (a whole hunk has no lines, only this)."""
        return hunk.id in self.lines

    def whole(self, hunk: Hunk) -> bool:
        return self.has(hunk) and len(self.of(hunk)) == hunk.changed

    def __bool__(self) -> bool:
        return bool(self.lines)

    def union(self, other: Selection) -> Selection:
        ids = set(self.lines) | set(other.lines)
        empty: frozenset[int] = frozenset()
        return Selection(
            {hid: self.lines.get(hid, empty) | other.lines.get(hid, empty) for hid in ids}
        )

    def without(self, other: Selection, hunks: Sequence[Hunk]) -> Selection:
        """What of this selection ``other`` does not already hold (a whole hunk ``other`` has
        is gone; lines it has are dropped)."""
        kept: dict[str, frozenset[int]] = {}
        for hunk in hunks:
            if not self.has(hunk):
                continue
            if hunk.whole:
                if not other.has(hunk):
                    kept[hunk.id] = frozenset()
                continue
            rest = self.of(hunk) - other.of(hunk)
            if rest:
                kept[hunk.id] = rest
        return Selection(kept)

    def only(self, ids: Iterable[str]) -> Selection:
        wanted = set(ids)
        return Selection({hid: lines for hid, lines in self.lines.items() if hid in wanted})

    def picks(self, hunks: Sequence[Hunk]) -> list[Pick]:
        """The selection as picks, in ``hunks``' order: whole hunks by id, the others by runs
        of consecutive changed lines (``h_…:2-4``)."""
        found: list[Pick] = []
        for hunk in hunks:
            if not self.has(hunk):
                continue
            if self.whole(hunk) or hunk.whole:
                found.append(Pick(hunk.id))
                continue
            for first, last in _runs(sorted(self.of(hunk))):
                found.append(Pick(hunk.id, first, last))
        return found


def split(hunk: Hunk) -> list[tuple[int, int]]:
    """The hunk's changes cut at its context lines, as ranges of changed lines (``s`` in
    ``caesar apply --interactive``, as in ``git add -p``): one range when it cannot be cut."""
    groups: list[tuple[int, int]] = []
    changed = 0
    after_context = True
    for line in hunk.lines:
        if line.origin == " ":
            after_context = True
            continue
        changed += 1
        if after_context or not groups:
            groups.append((changed, changed))
        else:
            groups[-1] = (groups[-1][0], changed)
        after_context = False
    return groups


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


@dataclass(frozen=True, slots=True)
class Taken:
    """A hunk as a record keeps it once applied: its id, its digest, and which of its changed
    lines were taken (``None``: all of them)."""

    hunk_id: str
    digest: str
    lines: frozenset[int] | None = None


def recorded(taken: Iterable[Taken], hunks: Sequence[Hunk]) -> Selection:
    """The part of the diff as it is now that ``taken`` names: hunks recorded earlier that are
    no longer in the diff (or whose digest differs) are left out, lines out of range too."""
    by_id = {hunk.id: hunk for hunk in hunks}
    chosen: dict[str, frozenset[int]] = {}
    for entry in taken:
        hunk = by_id.get(entry.hunk_id)
        if hunk is None or hunk.digest != entry.digest:
            continue
        everything = frozenset(range(1, hunk.changed + 1))
        lines = everything if entry.lines is None else entry.lines & everything
        if lines or hunk.whole:
            chosen[hunk.id] = chosen.get(hunk.id, frozenset()) | lines
    return Selection(chosen)


def resolve(picks: Sequence[Pick], hunks: Sequence[Hunk]) -> Selection:
    """Check ``picks`` against the hunks of the diff as it is now.

    Unknown (or stale) ids are refused with the current ids; ranges outside a hunk, and ranges
    that overlap another pick of the same hunk, are refused too.
    """
    by_id = {hunk.id: hunk for hunk in hunks}
    chosen: dict[str, set[int]] = {}
    unknown = [str(pick) for pick in picks if pick.hunk_id not in by_id]
    if unknown:
        ids = sorted(by_id)
        current = ", ".join(ids[:_SHOWN_IDS]) or "none: the diff is empty"
        if len(ids) > _SHOWN_IDS:
            current += f" and {len(ids) - _SHOWN_IDS} more (see `caesar diff ID --hunks`)"
        raise SelectionError(
            f"no such hunk in the task's diff now: {', '.join(unknown)}",
            f"the worktree may have changed since the diff was read; current hunks: {current}",
        )
    for pick in picks:
        hunk = by_id[pick.hunk_id]
        if hunk.whole and pick.first is not None:
            raise SelectionError(
                f"{pick}: {hunk.path}'s change ({hunk.header}) has no lines to choose from",
                f"take it whole: --hunk {hunk.id}",
            )
        span = (
            set(range(1, hunk.changed + 1))
            if pick.first is None or pick.last is None
            else set(range(pick.first, pick.last + 1))
        )
        if pick.last is not None and pick.last > hunk.changed:
            raise SelectionError(
                f"{pick}: the hunk has {hunk.changed} changed lines",
                f"choose lines within 1-{hunk.changed}",
            )
        taken = chosen.setdefault(hunk.id, set())
        if taken & span:
            raise SelectionError(
                f"{pick} overlaps another selection of the same hunk",
                "name each changed line once",
            )
        taken |= span
    return Selection({hid: frozenset(lines) for hid, lines in chosen.items()})


# -- applying ----------------------------------------------------------------------------


class HunkMismatchError(CaesarError):
    """The text a hunk was computed against is not the text at hand."""

    exit_code = ExitCode.FAILURE


def apply_selection(
    text: str, hunks: Sequence[Hunk], selection: Selection, *, reverse: bool = False
) -> str:
    """The file with only the selected changes made.

    Forward: ``text`` is the old side (the base); selected ``+`` lines are added and selected
    ``-`` lines removed, everything else stays as in the base. Reverse: ``text`` is the new side
    (the worktree); selected changes are undone, everything else stays as in the worktree.
    ``hunks`` are all the hunks of this one file, in order.
    """
    source = split_lines(text)
    out: list[str] = []
    cursor = 0  # index into ``source``
    keep_side, drop_side = ("+", "-") if reverse else ("-", "+")
    for hunk in sorted(hunks, key=lambda h: h.new_start if reverse else h.old_start):
        if not selection.has(hunk):
            continue  # a hunk left out leaves its lines as ``text`` has them
        if hunk.whole:
            raise HunkMismatchError(
                f"{hunk.path}: hunk {hunk.id} ({hunk.header}) has no lines to apply",
                "take the file's new side whole (see caesar_core/git/hunks.py)",
            )
        start = (hunk.new_start if reverse else hunk.old_start) - 1
        count = hunk.new_lines if reverse else hunk.old_lines
        if count == 0:
            start += 1  # a pure insertion (or deletion) is placed after line ``start``
        if start < cursor or start > len(source):
            raise HunkMismatchError(
                f"{hunk.path}: hunk {hunk.id} does not fit the file as it is",
                "read the diff again: the file changed since",
            )
        out.extend(source[cursor:start])
        cursor = start
        picked = selection.of(hunk)
        changed = 0
        for line in hunk.lines:
            if line.origin == " ":
                out.append(_take(source, cursor, line, hunk))
                cursor += 1
                continue
            changed += 1
            selected = changed in picked
            if line.origin == keep_side:
                # A line of ``text``'s side: kept unless its change is selected.
                current = _take(source, cursor, line, hunk)
                cursor += 1
                if not selected:
                    out.append(current)
            elif line.origin == drop_side and selected:
                out.append(line.text)
    out.extend(source[cursor:])
    return "".join(out)


def _take(source: list[str], index: int, line: HunkLine, hunk: Hunk) -> str:
    if index >= len(source) or source[index] != line.text:
        raise HunkMismatchError(
            f"{hunk.path}: hunk {hunk.id} does not match the file's line {index + 1}",
            "read the diff again: the file changed since",
        )
    return source[index]
