"""Where a key was written in a TOML file, for error messages that point at the spot.

``tomllib`` parses but forgets positions. This module never parses values: it only walks the
text of a file that ``tomllib`` already accepted, stepping over strings, arrays and inline
tables to note where each key (and each array element) starts. Anything it cannot follow ends
the walk with what it found so far, and :func:`locate` falls back to the nearest enclosing
key, then to the top of the file: a slightly wide location beats none.
"""

from __future__ import annotations

import contextlib
import re
import tomllib
from bisect import bisect_right
from dataclasses import dataclass

KeyPath = tuple[str | int, ...]
"""A key as data: ``("agent", 0, "args")`` is ``args`` of the first ``[[agent]]``."""

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^,\]}#\r\n]*")


@dataclass(frozen=True, order=True)
class Position:
    """1-based line and column (in characters), as editors count them."""

    line: int
    col: int


START = Position(1, 1)


def key_positions(text: str) -> dict[KeyPath, Position]:
    """Where every key, table header and array element of ``text`` starts (first occurrence)."""
    return _Walker(text).walk()


def locate(positions: dict[KeyPath, Position], path: KeyPath) -> Position:
    """The position of ``path``, else of its nearest written ancestor, else the file's start.

    A missing required key has no position of its own; its table's header is the next best.
    """
    for end in range(len(path), 0, -1):
        found = positions.get(path[:end])
        if found is not None:
            return found
    return START


class _Lost(Exception):
    """The walker met text it does not follow; what it found so far stands."""


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.found: dict[KeyPath, Position] = {}
        self.arrays: dict[KeyPath, int] = {}
        """Entries seen so far of each array of tables, so ``[[agent]]`` #2 is index 1."""
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def walk(self) -> dict[KeyPath, Position]:
        with contextlib.suppress(_Lost, IndexError):
            self._document()
        return self.found

    # -- positions -------------------------------------------------------------------------

    def _position(self, index: int) -> Position:
        line = bisect_right(self.line_starts, index)
        return Position(line, index - self.line_starts[line - 1] + 1)

    def _record(self, path: KeyPath, index: int) -> None:
        self.found.setdefault(path, self._position(index))

    # -- lexing helpers --------------------------------------------------------------------

    def _peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def _skip_blank(self) -> None:
        while self._peek() in (" ", "\t"):
            self.i += 1

    def _skip_line(self) -> None:
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end < 0 else end + 1

    def _skip_space_and_comments(self) -> None:
        """Inside arrays, values may be spread over lines with comments between them."""
        while True:
            char = self._peek()
            if char in (" ", "\t", "\r", "\n"):
                self.i += 1
            elif char == "#":
                self._skip_line()
            else:
                return

    def _expect(self, token: str) -> None:
        if not self.text.startswith(token, self.i):
            raise _Lost
        self.i += len(token)

    # -- grammar ---------------------------------------------------------------------------

    def _document(self) -> None:
        prefix: KeyPath = ()
        while self.i < len(self.text):
            self._skip_blank()
            char = self._peek()
            if char in ("\r", "\n", "#", ""):
                self._skip_line()
                continue
            if self.text.startswith("[[", self.i):
                prefix = self._header(array=True)
            elif char == "[":
                prefix = self._header(array=False)
            else:
                self._keyval(prefix)
            self._skip_line()

    def _header(self, *, array: bool) -> KeyPath:
        """The path a ``[table]`` or ``[[array]]`` header opens, with entry indexes filled in."""
        start = self.i
        self.i += 2 if array else 1
        parts = self._key()
        self._skip_blank()
        self._expect("]]" if array else "]")
        resolved: KeyPath = ()
        for number, (name, at) in enumerate(parts):
            resolved = (*resolved, name)
            self._record(resolved, at)
            if array and number == len(parts) - 1:
                count = self.arrays.get(resolved, 0)
                self.arrays[resolved] = count + 1
                resolved = (*resolved, count)
                self._record(resolved, start)
            elif resolved in self.arrays:
                # [agent.env] after [[agent]]: the table belongs to the latest entry.
                resolved = (*resolved, self.arrays[resolved] - 1)
        return resolved

    def _key(self) -> list[tuple[str, int]]:
        """A dotted key's parts (decoded) with the index each starts at."""
        parts: list[tuple[str, int]] = []
        while True:
            self._skip_blank()
            at = self.i
            char = self._peek()
            if char in ('"', "'"):
                self._string()
                name = tomllib.loads("k = " + self.text[at : self.i])["k"]
            else:
                match = _BARE_KEY.match(self.text, self.i)
                if match is None:
                    raise _Lost
                name = match.group()
                self.i = match.end()
            parts.append((str(name), at))
            self._skip_blank()
            if self._peek() != ".":
                return parts
            self.i += 1

    def _keyval(self, prefix: KeyPath) -> None:
        path = prefix
        for name, at in self._key():
            path = (*path, name)
            self._record(path, at)
        self._skip_blank()
        self._expect("=")
        self._skip_blank()
        self._value(path)

    def _value(self, path: KeyPath) -> None:
        if self.text.startswith('"""', self.i):
            self._multiline('"""', escapes=True)
        elif self.text.startswith("'''", self.i):
            self._multiline("'''", escapes=False)
        elif self._peek() in ('"', "'"):
            self._string()
        elif self._peek() == "[":
            self._array(path)
        elif self._peek() == "{":
            self._inline_table(path)
        else:
            match = _SCALAR.match(self.text, self.i)
            assert match is not None  # the pattern matches the empty string
            self.i = match.end()

    def _string(self) -> None:
        quote = self.text[self.i]
        j = self.i + 1
        while True:
            char = self.text[j]
            if char == "\n":
                raise _Lost
            if quote == '"' and char == "\\":
                j += 2
                continue
            if char == quote:
                self.i = j + 1
                return
            j += 1

    def _multiline(self, delimiter: str, *, escapes: bool) -> None:
        j = self.i + 3
        while True:
            if j >= len(self.text):
                raise _Lost
            if escapes and self.text[j] == "\\":
                j += 2
                continue
            if self.text.startswith(delimiter, j):
                j += 3
                # Up to two quotes right before the delimiter belong to the content.
                extra = 0
                while extra < 2 and j < len(self.text) and self.text[j] == delimiter[0]:
                    j += 1
                    extra += 1
                self.i = j
                return
            j += 1

    def _array(self, path: KeyPath) -> None:
        self.i += 1
        index = 0
        while True:
            self._skip_space_and_comments()
            if self._peek() == "]":
                self.i += 1
                return
            self._record((*path, index), self.i)
            self._value((*path, index))
            index += 1
            self._skip_space_and_comments()
            if self._peek() == ",":
                self.i += 1
            elif self._peek() != "]":
                raise _Lost

    def _inline_table(self, path: KeyPath) -> None:
        self.i += 1
        while True:
            self._skip_blank()
            if self._peek() == "}":
                self.i += 1
                return
            self._keyval(path)
            self._skip_blank()
            if self._peek() == ",":
                self.i += 1
            elif self._peek() != "}":
                raise _Lost
