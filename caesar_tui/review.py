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
from typing import TYPE_CHECKING

from caesar_core.review.hunks import Hunk, Pick, recorded
from caesar_core.store.record import TaskRecord
from caesar_core.terminal import quote_path

if TYPE_CHECKING:
    from caesar_core.git.diff import FileChange, TreeDiff

__all__ = [
    "Box",
    "Choice",
    "Done",
    "FileCounts",
    "Review",
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
    from caesar_core.git.diff import patch_digest  # pygit2: once there is a diff

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


@dataclass(frozen=True, slots=True)
class _State:
    """One hunk's sets, worked out once per change of the choices (a 50,000-line hunk's sets
    are not cheap to rebuild for every row drawn)."""

    universe: frozenset[int]
    applied: frozenset[int]
    available: frozenset[int]
    selected: frozenset[int]
    box: Box


class Review:
    """One task's choices: for each hunk id the person changed, the changed lines chosen."""

    def __init__(self, done: Done | None = None) -> None:
        self._chosen: dict[str, frozenset[int]] = {}
        self._done = done or Done()
        self._states: dict[str, _State] = {}

    @property
    def done(self) -> Done:
        """What the record says was applied and rejected."""
        return self._done

    @done.setter
    def done(self, done: Done) -> None:
        self._done = done
        self._states.clear()

    # -- one hunk ------------------------------------------------------------------------

    def _state(self, hunk: Hunk) -> _State:
        state = self._states.get(hunk.id)
        if state is None:
            every = universe(hunk)
            done = self._done.applied.get(hunk.id, frozenset())
            applied = every if done is None else done & every
            available = every - applied
            chosen = self._chosen.get(hunk.id)
            selected = available if chosen is None else chosen & available
            if not available:
                box = Box.APPLIED
            else:
                box = Box.ALL if selected == available else Box.SOME if selected else Box.NONE
            state = self._states[hunk.id] = _State(every, applied, available, selected, box)
        return state

    def _set(self, hunk: Hunk, lines: frozenset[int]) -> None:
        self._chosen[hunk.id] = lines
        self._states.pop(hunk.id, None)

    def available(self, hunk: Hunk) -> frozenset[int]:
        """The lines that may be chosen: every changed line not applied already."""
        return self._state(hunk).available

    def applied(self, hunk: Hunk) -> frozenset[int]:
        return self._state(hunk).applied

    def selected(self, hunk: Hunk) -> frozenset[int]:
        """The lines applying would take."""
        return self._state(hunk).selected

    def box(self, hunk: Hunk) -> Box:
        return self._state(hunk).box

    def toggle(self, hunk: Hunk) -> bool:
        """Select the whole hunk, or none of it when it was whole; False: nothing left of it
        to select (it is applied)."""
        state = self._state(hunk)
        if not state.available:
            return False
        self._set(hunk, frozenset() if state.box is Box.ALL else state.available)
        return True

    def choose(self, hunk: Hunk, lines: Iterable[int]) -> None:
        """Exactly these changed lines of the hunk (those applied already are left out)."""
        self._set(hunk, frozenset(lines) & self.available(hunk))

    # -- many ----------------------------------------------------------------------------

    def set_all(self, hunks: Iterable[Hunk], selected: bool) -> None:
        for hunk in hunks:
            self._set(hunk, self.available(hunk) if selected else frozenset())

    def toggle_all(self, hunks: Sequence[Hunk]) -> None:
        """Select every hunk, or none when every one was selected (a file's checkbox)."""
        everything = all(self.box(hunk) in (Box.ALL, Box.APPLIED) for hunk in hunks)
        self.set_all(hunks, not everything)

    def keep_only(self, hunk_ids: Iterable[str]) -> None:
        """Forget choices of hunks no longer in the diff (rejected, or changed since)."""
        current = set(hunk_ids)
        self._chosen = {hid: lines for hid, lines in self._chosen.items() if hid in current}
        self._states.clear()

    def counts(self, change: FileChange, hunks: Sequence[Hunk]) -> FileCounts:
        selected = applied = 0
        kinds: set[Box] = set()
        for hunk in hunks:
            state = self._state(hunk)
            kinds.add(state.box)
            selected += state.box in (Box.ALL, Box.SOME)
            applied += bool(state.applied)
        kinds.discard(Box.APPLIED)
        if not kinds:
            box = Box.APPLIED if hunks else Box.NONE
        elif len(kinds) == 1:
            box = kinds.pop()
        else:
            box = Box.SOME
        rejected = self._done.rejected.get(change.path, 0)
        return FileCounts(box, selected, len(hunks), applied, rejected)

    def choice(self, files: Sequence[tuple[FileChange, Sequence[Hunk]]]) -> Choice:
        """What applying (or rejecting) now would take, and how to say it."""
        picks: list[Pick] = []
        lines: list[str] = []
        whole = not self.done.applied
        hunk_count = file_count = 0
        for change, hunks in files:
            chosen: list[str] = []
            for hunk in hunks:
                state = self._state(hunk)
                selected = state.selected
                whole = whole and selected == state.universe
                if not selected:
                    continue
                if selected == state.universe:
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
