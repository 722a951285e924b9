"""What a person chose of a task's diff in the Diff tab, by hunk and by changed line.

Pure (no Textual): the Diff tab keeps one :class:`Review` per task shown and asks it what a
hunk's checkbox and gutter say, what ``A``/``R`` would take (:meth:`Review.picks`, the
:class:`~caesar_core.review.hunks.Pick` list ``apply``/``reject`` take) and how the
confirmation lists it. Choices are kept by hunk id, which stays the same while the hunk's
content does, so a diff read again keeps them; a hunk never seen before starts selected
(the usual intent is to apply the task; unchecking is the exception), and lines already
applied are never selected again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from caesar_core.git.diff import FileChange, TreeDiff, patch_digest
from caesar_core.review.hunks import Hunk, Pick, recorded
from caesar_core.store.record import TaskRecord
from caesar_core.terminal import quote_path

__all__ = [
    "Box",
    "Choice",
    "Done",
    "FileCounts",
    "Review",
    "checks_warning",
    "done_of",
    "line_ranges",
]


class Box(StrEnum):
    """How much of a hunk (or a file) is selected: a key of ``marks.BOX``."""

    ALL = "all"
    SOME = "some"
    NONE = "none"
    APPLIED = "applied"
    """Nothing left to select: every line of it is in the user's tree already."""


@dataclass(frozen=True)
class Done:
    """What the task's record says was done with its hunks.

    ``applied``: hunk id -> the changed lines applied (None: the whole hunk); ``rejected``:
    path -> how many hunks of it were rejected (they are no longer in the diff).
    """

    applied: Mapping[str, frozenset[int] | None] = field(default_factory=dict)
    rejected: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class FileCounts:
    """One file's row of counts: hunks selected of its hunks, applied, rejected."""

    box: Box
    selected: int
    total: int
    applied: int
    rejected: int


@dataclass(frozen=True)
class Choice:
    """What ``A`` or ``R`` would take: the picks, and the confirmation's lines."""

    picks: tuple[Pick, ...]
    whole: bool
    """Every hunk of the diff, whole, and nothing of it applied before: the whole task."""
    hunks: int
    files: int
    lines: tuple[str, ...]
    """One line per file, then one per hunk under it, indented."""


def done_of(record: TaskRecord, diff: TreeDiff | None) -> Done:
    """What ``record`` says was done with the hunks of ``diff`` (the diff as it is now).

    Hunks applied one by one count when the diff still holds them as they were (same id and
    digest, ``recorded``); a whole apply of exactly this diff counts every hunk; rejected
    hunks are counted by path, since they left the diff.
    """
    rejected = dict(Counter(entry.path for entry in record.rejected_hunks))
    if diff is None:
        return Done({}, rejected)
    hunks = [hunk for change in diff.files for hunk in change.hunks]
    if record.applied_digest is not None and record.applied_digest == patch_digest(diff.patch):
        return Done(dict.fromkeys((hunk.id for hunk in hunks), None), rejected)
    taken = recorded(record.taken, hunks)
    applied: dict[str, frozenset[int] | None] = {}
    for hunk in hunks:
        if taken.has(hunk):
            lines = taken.of(hunk)
            applied[hunk.id] = None if hunk.whole or lines >= universe(hunk) else lines
    return Done(applied, rejected)


def universe(hunk: Hunk) -> frozenset[int]:
    """The changed lines of a hunk, 1-based; a hunk without lines to pick (a binary file, a
    rename, a mode change, a link: the whole file is one hunk) counts as one."""
    return frozenset({1}) if hunk.whole else frozenset(range(1, hunk.changed + 1))


def line_ranges(lines: Iterable[int]) -> list[tuple[int, int]]:
    """``{1, 2, 3, 5}`` -> ``[(1, 3), (5, 5)]``."""
    ranges: list[tuple[int, int]] = []
    for line in sorted(lines):
        if ranges and ranges[-1][1] == line - 1:
            ranges[-1] = (ranges[-1][0], line)
        else:
            ranges.append((line, line))
    return ranges


def _spell(ranges: list[tuple[int, int]]) -> str:
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


class Review:
    """One task's choices: for each hunk id the person changed, the changed lines chosen."""

    def __init__(self, done: Done | None = None) -> None:
        self._chosen: dict[str, frozenset[int]] = {}
        self.done = done or Done()

    # -- one hunk ------------------------------------------------------------------------

    def available(self, hunk: Hunk) -> frozenset[int]:
        """The lines that may be chosen: every changed line not applied already."""
        applied = self.done.applied.get(hunk.id, frozenset())
        return frozenset() if applied is None else universe(hunk) - applied

    def applied(self, hunk: Hunk) -> frozenset[int]:
        applied = self.done.applied.get(hunk.id, frozenset())
        return universe(hunk) if applied is None else applied & universe(hunk)

    def selected(self, hunk: Hunk) -> frozenset[int]:
        """The lines applying would take."""
        available = self.available(hunk)
        return self._chosen.get(hunk.id, available) & available

    def box(self, hunk: Hunk) -> Box:
        available = self.available(hunk)
        if not available:
            return Box.APPLIED
        selected = self.selected(hunk)
        return Box.ALL if selected == available else Box.SOME if selected else Box.NONE

    def toggle(self, hunk: Hunk) -> bool:
        """Select the whole hunk, or none of it when it was whole; False: nothing left of it
        to select (it is applied)."""
        available = self.available(hunk)
        if not available:
            return False
        self._chosen[hunk.id] = frozenset() if self.selected(hunk) == available else available
        return True

    def choose(self, hunk: Hunk, lines: Iterable[int]) -> None:
        """Exactly these changed lines of the hunk (those applied already are left out)."""
        self._chosen[hunk.id] = frozenset(lines) & self.available(hunk)

    # -- many ----------------------------------------------------------------------------

    def set_all(self, hunks: Iterable[Hunk], selected: bool) -> None:
        for hunk in hunks:
            self._chosen[hunk.id] = self.available(hunk) if selected else frozenset()

    def toggle_all(self, hunks: Sequence[Hunk]) -> None:
        """Select every hunk, or none when every one was selected (a file's checkbox)."""
        everything = all(self.box(hunk) in (Box.ALL, Box.APPLIED) for hunk in hunks)
        self.set_all(hunks, not everything)

    def keep_only(self, hunk_ids: Iterable[str]) -> None:
        """Forget choices of hunks no longer in the diff (rejected, or changed since)."""
        current = set(hunk_ids)
        self._chosen = {hid: lines for hid, lines in self._chosen.items() if hid in current}

    def counts(self, change: FileChange, hunks: Sequence[Hunk]) -> FileCounts:
        boxes = [self.box(hunk) for hunk in hunks]
        open_ = [box for box in boxes if box is not Box.APPLIED]
        if not open_:
            box = Box.APPLIED if boxes else Box.NONE
        elif all(b is Box.ALL for b in open_):
            box = Box.ALL
        elif all(b is Box.NONE for b in open_):
            box = Box.NONE
        else:
            box = Box.SOME
        return FileCounts(
            box=box,
            selected=sum(1 for b in boxes if b in (Box.ALL, Box.SOME)),
            total=len(hunks),
            applied=sum(1 for hunk in hunks if self.applied(hunk)),
            rejected=self.done.rejected.get(change.path, 0),
        )

    def choice(self, files: Sequence[tuple[FileChange, Sequence[Hunk]]]) -> Choice:
        """What applying (or rejecting) now would take, and how to say it."""
        picks: list[Pick] = []
        lines: list[str] = []
        whole = not self.done.applied
        hunk_count = file_count = 0
        for change, hunks in files:
            chosen: list[str] = []
            for hunk in hunks:
                selected = self.selected(hunk)
                whole = whole and selected == universe(hunk)
                if not selected:
                    continue
                if selected == universe(hunk):
                    picks.append(Pick(hunk.id))
                else:
                    picks.extend(Pick(hunk.id, a, b) for a, b in line_ranges(selected))
                chosen.append(_hunk_line(hunk, selected))
            if chosen:
                file_count += 1
                hunk_count += len(chosen)
                lines.append(f"{_file_name(change)}: {len(chosen)} of {len(hunks)} hunks")
                lines.extend(f"  {line}" for line in chosen)
        return Choice(tuple(picks), whole and bool(picks), hunk_count, file_count, tuple(lines))


def _file_name(change: FileChange) -> str:
    if change.old_path and change.old_path != change.path:
        return f"{quote_path(change.old_path)} -> {quote_path(change.path)}"
    return quote_path(change.path)


def _hunk_line(hunk: Hunk, selected: frozenset[int]) -> str:
    if hunk.whole:
        return f"the whole file ({hunk.header})" if hunk.header else "the whole file"
    head = hunk.header.strip() or f"@@ -{hunk.old_start} +{hunk.new_start} @@"
    if selected == universe(hunk):
        return f"{head}  (all {hunk.changed} lines)"
    return f"{head}  (lines {_spell(line_ranges(selected))} of {hunk.changed})"


def checks_warning(record: TaskRecord) -> tuple[str, bool]:
    """What applying's confirmation says of the task's checks, and whether it is a warning
    (the checks failed, or were not run: caesar has not seen the project's tests pass)."""
    checks = getattr(record, "checks", None)
    if checks is None:
        return "checks: not run", True
    state = str(getattr(checks, "state", ""))
    if state == "passed":
        return "checks: passed", False
    if state == "running":
        return "checks: still running", True
    failed = [f"{r.command} ({r.outcome})" for r in getattr(checks, "failed", [])]
    if state == "failed":
        return "checks failed: " + ("; ".join(failed) or "see the Report tab"), True
    return "checks: not run", True
