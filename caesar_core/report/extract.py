"""The degraded tier: a report the agent *said* instead of writing it.

An agent that never wrote ``report.json`` often still printed its report: in a fenced block
of its last message, as a bare JSON object in its output, or escaped inside one of its CLI's
JSON event lines (codex wraps the final message as a string in an ``item.completed`` event).
:func:`extract_report` finds such reports; when there is nothing to find,
:mod:`caesar_core.report.synthesize` writes one.

Inputs can be a whole ``raw.log`` of tens of megabytes, so every search is bounded: markers
are examined from the end of the text (the last report wins, so the end is where it is), the
backward search for an object's opening brace is capped, and so is the total scanning work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from caesar_core import safefs
from caesar_core.protocol.parse import parse
from caesar_core.protocol.report import (
    REPORT_ADAPTER,
    Report,
)
from caesar_core.protocol.versions import (
    DocumentKind,
    UnsupportedProtocolError,
)
from caesar_core.report.example import EXAMPLE_REPORT

MARKER = "caesar.report/"
"""Every valid report carries it (``protocol`` is required), so it is where searches start."""

MAX_MARKERS = 64
"""Markers examined per text, from the end: a log quoting the marker endlessly stays cheap."""
MAX_STARTS = 64
"""Opening braces tried per marker, nearest first."""
MAX_BACK = 1 << 20
"""How far before a marker its object (or escaped string) may start."""
MAX_AHEAD = 1 << 20
"""How far after a marker its object (or escaped string) may end."""
SCAN_BUDGET = 2_000_000
"""Tokens (braces and strings) the brace scanner may visit per extraction, in total."""
MAX_DEPTH = 3
"""How many levels of JSON-string escaping are undone (a report in an event in an event)."""
FILE_TAIL_BYTES = 8 << 20
"""How much of the end of a file :func:`extract_from_files` reads."""

# A JSON string (group 1 is empty when it is not closed within the window), or a brace.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*("?)|[{}]', re.DOTALL)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_FENCE_OPEN = re.compile(
    r"```[ \t]*(?:json[ \t]+caesar:report|caesar:report|json)[ \t]*\r?\n", re.IGNORECASE
)

_EXAMPLE_JSON = EXAMPLE_REPORT.to_json_dict()


@dataclass(frozen=True)
class Extraction:
    """The report found (the last valid one), and why later-looking candidates were refused."""

    report: Report | None
    refused: list[str] = field(default_factory=list)
    """One sentence per unsupported version met after the winner, in order of appearance."""


_Found = dict[tuple[int, ...], dict[str, Any]]
"""Report-declaring objects by order of appearance: where each ends (so a report comes after
one it quotes), then where it starts; nested keys order those decoded from one string."""


class _Search:
    """One extraction's shared scanning budget, so adversarial input stays linear-ish."""

    def __init__(self) -> None:
        self.budget = SCAN_BUDGET

    def candidates(self, text: str, depth: int = 0) -> _Found:
        markers = _last_markers(text)
        if not markers:
            return {}
        found: _Found = {}
        literals: list[tuple[int, int]] = []
        clear = [len(text) + 1, len(text) + 1]
        for pos in markers:
            if self.budget <= 0:
                break
            if _escaped_at(text, pos):
                if depth < MAX_DEPTH and not any(a < pos < b for a, b in literals):
                    self._escaped(text, pos, depth, (literals, clear), found)
                continue
            hit = self._raw_object(text, pos)
            if hit is not None:
                start, end, data = hit
                found.setdefault((end, start), data)
        for start, end, data in _fenced(text, max(0, markers[-1] - MAX_BACK)):
            found.setdefault((end, start), data)
        return found

    def _escaped(
        self,
        text: str,
        pos: int,
        depth: int,
        memory: tuple[list[tuple[int, int]], list[int]],
        found: _Found,
    ) -> None:
        """Decode the JSON string that holds an escaped report and search inside it.

        ``memory`` is per text: the strings already decoded, and the stretch known to hold no
        unescaped quote, so markers processed one after the other never rescan it.
        """
        literals, clear = memory
        span = self._enclosing_string(text, pos, clear)
        if span is None:
            return
        literals.append(span)
        try:
            decoded = json.loads(text[span[0] : span[1]])
        except ValueError:
            return
        if not isinstance(decoded, str):
            return
        for key, data in self.candidates(decoded, depth + 1).items():
            found[(span[1], span[0], *key)] = data

    def _enclosing_string(self, text: str, pos: int, clear: list[int]) -> tuple[int, int] | None:
        """The span of the JSON string around ``pos``: from its nearest unescaped quote back.

        Inside a JSON string every quote is escaped, so the first unescaped one before the
        marker opens the string that holds it. ``clear`` is the stretch ``[from, to)`` known
        to hold none; the search skips it and then extends it.
        """
        low = max(0, pos - MAX_BACK)
        quote, top = (clear[0], clear[1]) if clear[0] <= pos <= clear[1] else (pos, pos)
        while self.budget > 0:
            quote = text.rfind('"', low, quote)
            if quote < 0:
                clear[:] = [low, top]
                return None
            slashes = _backslashes_before(text, quote)
            self.budget -= 1 + slashes // 64
            if slashes % 2 == 0:
                clear[:] = [quote + 1, top]
                literal = _STRING.match(text, quote, min(len(text), pos + MAX_AHEAD))
                if literal is None or literal.end() <= pos:
                    return None
                return quote, literal.end()
        return None

    def _raw_object(self, text: str, pos: int) -> tuple[int, int, dict[str, Any]] | None:
        """The nearest object enclosing ``pos`` that parses, if it declares a report."""
        low = max(0, pos - MAX_BACK)
        limit = min(len(text), pos + MAX_AHEAD)
        start = pos
        for _ in range(MAX_STARTS):
            start = text.rfind("{", low, start)
            if start < 0:
                return None
            end = self._object_end(text, start, limit)
            if end is None:
                if self.budget <= 0:
                    return None
                continue
            if end <= pos:
                continue
            try:
                data = safefs.loads(text[start:end])
            except (ValueError, RecursionError):
                continue
            # The innermost enclosing object is not a report: the marker is only quoted in it.
            return (start, end, data) if _declares_report(data) else None
        return None

    def _object_end(self, text: str, start: int, limit: int) -> int | None:
        """Where the object opening at ``start`` closes, skipping braces inside strings."""
        depth = 0
        for token in _TOKEN.finditer(text, start, limit):
            self.budget -= 1
            if self.budget <= 0:
                return None
            char = token.group()[0]
            if char == '"':
                if not token.group(1):
                    return None
            elif char == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return token.end()
        return None


def extract_report(text: str) -> Extraction:
    """The last valid report in ``text``; an agent that corrects itself has the last word.

    Candidates are fenced blocks (```` ```json caesar:report ````, ```` ```caesar:report ````,
    ```` ```json ````), raw JSON objects declaring ``"protocol": "caesar.report/..."``, and
    such objects escaped inside JSON strings. Each goes through
    :func:`~caesar_core.protocol.parse.parse`, so explicit nulls are tolerated; one in a
    version this build does not read is skipped and named in ``refused``.
    """
    found = _Search().candidates(text)
    refused: list[str] = []
    for key in sorted(found, reverse=True):
        try:
            report = parse(REPORT_ADAPTER, found[key], DocumentKind.REPORT)
        except UnsupportedProtocolError as error:
            sentence = f"a report in {error.found} was ignored: this caesar reads " + ", ".join(
                error.supported
            )
            if sentence not in refused:
                refused.append(sentence)
            continue
        except ValueError:
            continue
        if report.to_json_dict() == _EXAMPLE_JSON:
            continue
        return Extraction(report, refused[::-1])
    return Extraction(None, refused[::-1])


def extract_from_files(paths: Sequence[Path], *, tail_bytes: int = FILE_TAIL_BYTES) -> Extraction:
    """The first file's last valid report, trying ``paths`` in order (final message first).

    Only the last ``tail_bytes`` of each file are read: the report that wins is the last one,
    and a 50 MB ``raw.log`` must not be loaded whole. Missing or unreadable files are skipped;
    refusals from every file tried are kept.
    """
    refused: list[str] = []
    for path in paths:
        text = _read_tail(path, tail_bytes)
        if text is None:
            continue
        found = extract_report(text)
        refused.extend(sentence for sentence in found.refused if sentence not in refused)
        if found.report is not None:
            return Extraction(found.report, refused)
    return Extraction(None, refused)


def _last_markers(text: str) -> list[int]:
    """Marker positions from the end of ``text`` backwards, at most :data:`MAX_MARKERS`."""
    positions: list[int] = []
    end = len(text)
    while len(positions) < MAX_MARKERS:
        pos = text.rfind(MARKER, 0, end)
        if pos < 0:
            break
        positions.append(pos)
        end = pos
    return positions


def _backslashes_before(text: str, pos: int) -> int:
    """The length of the run of backslashes ending at ``pos``, counted in growing chunks."""
    count = 0
    step = 64
    while pos > 0:
        chunk = text[max(0, pos - step) : pos]
        run = len(chunk) - len(chunk.rstrip("\\"))
        count += run
        if run < len(chunk):
            break
        pos -= len(chunk)
        step *= 2
    return count


def _escaped_at(text: str, pos: int) -> bool:
    """Whether the marker's opening quote is escaped: the report sits inside a JSON string."""
    return pos > 0 and text[pos - 1] == '"' and _backslashes_before(text, pos - 1) % 2 == 1


def _fenced(text: str, low: int) -> list[tuple[int, int, dict[str, Any]]]:
    """Fenced blocks after ``low`` whose whole body is a report-declaring object."""
    blocks: list[tuple[int, int, dict[str, Any]]] = []
    pos = low
    while (opening := _FENCE_OPEN.search(text, pos)) is not None:
        close = text.find("```", opening.end())
        if close < 0:
            break
        pos = close + 3
        body = text[opening.end() : close]
        if MARKER not in body:
            continue
        try:
            data = safefs.loads(body)
        except (ValueError, RecursionError):
            continue
        if _declares_report(data):
            start = opening.end() + len(body) - len(body.lstrip())
            blocks.append((start, opening.end() + len(body.rstrip()), data))
    return blocks


def _declares_report(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    protocol = data.get("protocol")
    return isinstance(protocol, str) and protocol.startswith(MARKER)


def _read_tail(path: Path, size: int) -> str | None:
    """The end of a file of the task directory (``path.parent``), through safefs: a link, a
    FIFO or a directory in its place reads as no file."""
    try:
        return safefs.read_tail(path.parent, path.name, size).decode("utf-8", errors="replace")
    except OSError:
        return None
