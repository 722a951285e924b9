"""Word-level changes between a removed line and the added line that replaces it.

A hunk's run of ``-`` lines followed by a run of ``+`` lines is paired line by line (the first
removed with the first added...); each pair is compared on words, spaces and punctuation
with :class:`difflib.SequenceMatcher`, and the parts that differ are what the Diff tab
highlights within the line's tint. Lines too unlike each other (a rewrite, not an edit) or
too long to compare cheaply get no word highlight: the line's tint says enough.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

__all__ = ["MAX_LENGTH", "MIN_RATIO", "Spans", "changed_spans"]

Spans = tuple[tuple[int, int], ...]
"""Character ranges ``[start, end)`` of a line."""

MAX_LENGTH = 1_000
"""Longer lines are not compared (a minified file would cost milliseconds per row)."""

MIN_RATIO = 0.3
"""Below this similarity the pair is a rewrite: nothing is highlighted."""

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


@lru_cache(maxsize=2048)
def changed_spans(old: str, new: str) -> tuple[Spans, Spans] | None:
    """The parts of ``old`` and of ``new`` that differ, or None when the two lines are not
    an edit of one another (or too long to compare). Cached: the view asks once per row."""
    if len(old) > MAX_LENGTH or len(new) > MAX_LENGTH or old == new:
        return None
    a = _TOKEN.findall(old)
    b = _TOKEN.findall(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < MIN_RATIO:
        return None
    a_starts = _starts(a)
    b_starts = _starts(b)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            _add(removed, a_starts[i1], a_starts[i2])
        if j2 > j1:
            _add(added, b_starts[j1], b_starts[j2])
    return tuple(removed), tuple(added)


def _starts(tokens: list[str]) -> list[int]:
    """Offset of each token, then the end."""
    starts = [0]
    for token in tokens:
        starts.append(starts[-1] + len(token))
    return starts


def _add(spans: list[tuple[int, int]], start: int, end: int) -> None:
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))
