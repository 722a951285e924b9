"""Syntax highlighting of diff lines, a block at a time, and the word-level overlay.

The lexer is chosen by file name (cached), token colours come from a syntax theme without
backgrounds (the line's tint shows through), and the parts of a line that differ from its
paired line (:mod:`caesar_tui.worddiff`) get one more style on top.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.style import Style

from caesar_core.terminal import safe_text
from caesar_tui.worddiff import Spans

if TYPE_CHECKING:
    from rich.syntax import SyntaxTheme

__all__ = [
    "DARK_THEME",
    "LIGHT_THEME",
    "TAB_SIZE",
    "Tokens",
    "clean",
    "highlight_lines",
    "lexer_for",
    "overlay",
]

TAB_SIZE = 4
"""Tabs are expanded after the +/-/space marker, so code keeps its own alignment."""

DARK_THEME = "github-dark"
LIGHT_THEME = "default"

Tokens = list[tuple[str, Style | None]]
"""One line of code after highlighting: text runs and their syntax style."""


@lru_cache(maxsize=128)
def lexer_for(path: str) -> Any:
    """The pygments lexer for ``path``, or None for plain text.

    Matched on the file name's patterns (``Makefile``, ``*.h``), as rich's ``guess_lexer``
    does, but without ``guess_lexer_for_filename``: that one imports every lexer module
    (a third of a second, on the event loop). ``stripnl=False`` keeps blank lines, and so
    the line count, intact. Cached, so moving through the file list costs nothing.
    Pygments is imported here, when a diff is first shown (not before the first frame).
    """
    from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


@lru_cache(maxsize=4)
def _syntax_theme(name: str) -> SyntaxTheme:
    from rich.syntax import Syntax  # pygments: when a diff is first highlighted

    return Syntax.get_theme(name)


@lru_cache(maxsize=1024)
def _token_style(theme_name: str, token_type: Any) -> Style | None:
    """A token's colour and attributes, without any background: the line's tint shows."""
    style = _syntax_theme(theme_name).get_style_for_token(token_type)
    plain = Style(
        color=style.color,
        bold=style.bold,
        italic=style.italic,
        underline=style.underline,
    )
    return plain if plain else None


def highlight_lines(lexer: Any, theme_name: str, lines: list[str]) -> list[Tokens]:
    """Highlight ``lines`` of code as one stream, and cut the result back into lines."""
    result: list[Tokens] = [[]]
    if lexer is None:
        return [[(line, None)] for line in lines]
    for token_type, value in lexer.get_tokens("\n".join(lines) + "\n"):
        style = _token_style(theme_name, token_type)
        rest = value
        while rest:
            part, newline, rest = rest.partition("\n")
            if part:
                result[-1].append((part, style))
            if newline:
                result.append([])
    result = result[: len(lines)]
    while len(result) < len(lines):  # pragma: no cover - a lexer that ate a newline
        result.append([(lines[len(result)], None)])
    return result


def clean(text: str) -> str:
    """A line made safe for the terminal: CR dropped, tabs expanded, controls (and bidi
    overrides: code must read as it runs) shown escaped, as everywhere in caesar."""
    if text.endswith("\r"):
        text = text[:-1]
    return safe_text(text.expandtabs(TAB_SIZE))


def overlay(tokens: Tokens, spans: Spans, style: Style) -> Tokens:
    """``tokens`` with ``style`` added over the character ranges ``spans`` (sorted)."""
    if not spans:
        return tokens
    out: Tokens = []
    offset = 0
    spans_left = list(spans)
    for text, token in tokens:
        start, end = offset, offset + len(text)
        offset = end
        cut = start
        while spans_left and cut < end:
            a, b = spans_left[0]
            if b <= cut:
                spans_left.pop(0)
                continue
            if a >= end:
                break
            if a > cut:
                out.append((text[cut - start : a - start], token))
                cut = a
            stop = min(b, end)
            out.append((text[cut - start : stop - start], token + style if token else style))
            cut = stop
            if stop == b:
                spans_left.pop(0)
        if cut < end:
            out.append((text[cut - start :], token))
    return out
