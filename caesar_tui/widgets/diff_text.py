"""One file's unified diff, drawn a line at a time so a 50,000-line patch scrolls freely.

The widget never copies the patch: it keeps the whole ``TreeDiff.patch`` string, the
character range of the shown file (its ``FileChange.span``), and an array of line-start
offsets into it. Textual asks
for the visible rows only (``render_line``); each row is highlighted as part of a small
block of neighbouring lines and kept in bounded LRU caches, so the work done follows what
the person looks at, not the size of the diff.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import pairwise
from typing import Any, ClassVar

from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax, SyntaxTheme
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from caesar_core.terminal import safe_text

__all__ = ["BLOCK_LINES", "DiffText"]

BLOCK_LINES = 64
"""Lines highlighted together. The lexer restarts at every block, so a block must be long
enough for most multi-line constructs and short enough to lex in about a millisecond."""

TAB_SIZE = 4
"""Tabs are expanded after the +/-/space marker, so code keeps its own alignment."""

_NEWLINE = re.compile("\n")

_DARK_THEME = "github-dark"
_LIGHT_THEME = "default"

Tokens = list[tuple[str, Style | None]]
"""One line of code after highlighting: text runs and their syntax style."""


# --------------------------------------------------------------------------------------
# Highlighting


@lru_cache(maxsize=128)
def _lexer_for(path: str) -> Any:
    """The pygments lexer for ``path``, or None for plain text.

    Matched on the file name's patterns (``Makefile``, ``*.h``), as rich's ``guess_lexer``
    does, but without ``guess_lexer_for_filename``: that one imports every lexer module
    (a third of a second, on the event loop). ``stripnl=False`` keeps blank lines, and so
    the line count, intact. Cached, so moving through the file list costs nothing.
    """
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


@lru_cache(maxsize=4)
def _syntax_theme(name: str) -> SyntaxTheme:
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


# --------------------------------------------------------------------------------------
# The widget

_CODE_MARKERS = {"+": "diff-text--added", "-": "diff-text--removed", " ": "diff-text--context"}


class DiffText(ScrollView, can_focus=True):
    """The unified diff of one file, syntax highlighted, rendered lazily with the Line API.

    Call ``show_patch`` with the whole patch string and the file's range in it, or
    ``show_message`` for a file that has no text to show (binary, no patch). Its text can be
    selected with the mouse and copied (ctrl+c), as it reads on screen.
    """

    DEFAULT_CSS = """
    DiffText {
        width: 1fr;
        height: 1fr;
        background: $surface;
        border: tall $border-blurred;
        border-title-color: $foreground;
        border-subtitle-color: $text-muted;
        &:focus {
            border: tall $border;
        }
        & > .diff-text--added {
            background: $success 15%;
        }
        & > .diff-text--removed {
            background: $error 15%;
        }
        & > .diff-text--hunk {
            color: $text-muted;
            background: $primary 8%;
        }
        & > .diff-text--meta {
            color: $text-muted;
            text-style: bold;
        }
        & > .diff-text--message {
            color: $text-muted;
            text-style: italic;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-text--context",
        "diff-text--added",
        "diff-text--removed",
        "diff-text--hunk",
        "diff-text--meta",
        "diff-text--message",
    }
    """
    | Class | Description |
    | :- | :- |
    | `diff-text--context` | Unchanged lines. |
    | `diff-text--added` | Added lines (the tint fills the row). |
    | `diff-text--removed` | Removed lines. |
    | `diff-text--hunk` | `@@ ... @@` hunk headers. |
    | `diff-text--meta` | File header lines (`diff --git`, `index`, `---`, `+++`, renames). |
    | `diff-text--message` | The message shown instead of text (binary file, no patch). |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
    ]

    STRIP_CACHE_SIZE = 1024
    TOKEN_CACHE_BLOCKS = 32

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._text = ""
        """The whole patch; never sliced as a whole, only line by line."""
        self._offsets: array[int] = array("q", [0])
        """Start offset of each line in ``_text``, then one past the last line's end."""
        self._first_hunk = 0
        """Index of the first ``@@`` line: lines before it are the file header."""
        self._path = ""
        self._lexer: Any = None
        self._message: str | None = None
        self._width = 0
        self._tokens: LRUCache[int, list[Tokens]] = LRUCache(self.TOKEN_CACHE_BLOCKS)
        """Highlighted blocks by block number: independent of the widget's styles."""
        self._strips: LRUCache[int, tuple[Strip, Style]] = LRUCache(self.STRIP_CACHE_SIZE)
        """Styled, uncropped lines and the style that pads them, by line number."""
        self._styles: dict[str, Style] = {}
        self._theme_name = ""
        self.highlighted_lines = 0
        """How many lines went through the highlighter since the widget was made.

        Tests read it to prove the work is bounded by what was looked at, not by the diff's
        size."""

    # ----------------------------------------------------------------------- content

    @property
    def path(self) -> str:
        """The path of the file shown, or "" when none is."""
        return self._path

    @property
    def line_count(self) -> int:
        """Lines of the shown file's patch (0 while a message is shown)."""
        return 0 if self._message is not None else len(self._offsets) - 1

    @property
    def message(self) -> str | None:
        """The message shown instead of text, if any."""
        return self._message

    def show_patch(
        self,
        path: str,
        patch: str,
        start: int = 0,
        end: int | None = None,
        *,
        title: str | None = None,
        keep_scroll: bool = False,
    ) -> None:
        """Show ``patch[start:end]``, the unified diff of ``path``.

        Args:
            path: The file's path; its extension chooses the syntax highlighter.
            patch: A patch string, usually a whole ``TreeDiff.patch``; it is not copied.
            start: Offset of the file's first line in ``patch``.
            end: Offset just past the file's last line (default: the end of ``patch``).
            title: Shown in the border (default: ``path``).
            keep_scroll: Keep the scroll position, for a refreshed diff of the same file.
        """
        end = len(patch) if end is None else end
        offsets = array("q", [start])
        offsets.extend(match.end() for match in _NEWLINE.finditer(patch, start, end))
        if offsets[-1] != end:
            offsets.append(end + 1)  # an unterminated last line: pretend it had its newline
        hunk = patch.find("\n@@", start, end)
        self._text = patch
        self._offsets = offsets
        self._first_hunk = len(offsets) - 1 if hunk < 0 else bisect_right(offsets, hunk + 1) - 1
        self._path = path
        self._lexer = _lexer_for(path)
        self._message = None
        longest = max(
            (b - a for a, b in pairwise(offsets)),
            default=1,
        )
        self._reset(title if title is not None else path, longest, keep_scroll=keep_scroll)

    def show_message(self, message: str, *, title: str | None = None) -> None:
        """Show ``message`` instead of a patch (a binary file, a file without text)."""
        self._text = ""
        self._offsets = array("q", [0])
        self._first_hunk = 0
        self._path = ""
        self._lexer = None
        self._message = message
        self._reset(title, len(message) + 1, keep_scroll=False)

    def clear(self) -> None:
        """Show nothing."""
        self.show_message("")

    def line_text(self, index: int) -> str:
        """The raw text of line ``index`` of the shown patch, without its newline."""
        return self._text[self._offsets[index] : self._offsets[index + 1] - 1]

    def _reset(self, title: str | None, width: int, *, keep_scroll: bool) -> None:
        self._tokens.clear()
        self._strips.clear()
        self._width = width
        lines = 1 if self._message is not None else self.line_count
        self.virtual_size = Size(width, lines)
        self.border_title = Content(title) if title else None
        self.border_subtitle = None if self._message is not None else f"{self.line_count:,} lines"
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    # ----------------------------------------------------------------------- styles

    def notify_style_update(self) -> None:
        """Theme or pseudo-class changed: restyle the cached lines.

        Highlighted tokens are kept; ``_tokens_of`` drops them when the app switches
        between a dark and a light theme, since token colours come from a syntax theme.
        """
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _style(self, component: str) -> Style:
        style = self._styles.get(component)
        if style is None:
            style = self.get_visual_style(component).rich_style
            self._styles[component] = style
        return style

    # ----------------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        if self._message is not None:
            if index != 0:
                return Strip.blank(width, self.rich_style)
            style = self._style("diff-text--message")
            strip = Strip([Segment(clean(self._message), style)])
            return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)
        if index >= self.line_count:
            return Strip.blank(width, self.rich_style)
        strip, pad = self._line_strip(index)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(index)) is not None:
            length = strip.cell_length
            start = min(span[0], length)
            end = length if span[1] == -1 else min(max(span[1], start), length)
            if start < end:
                chosen = strip.crop(start, end).apply_style(
                    self.screen.get_component_rich_style("screen--selection")
                )
                strip = Strip.join([strip.crop(0, start), chosen, strip.crop(end, length)])
        return strip.crop_extend(scroll_x, scroll_x + width, pad).apply_offsets(scroll_x, index)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (tabs expanded, controls replaced), for the clipboard."""
        if self._message is not None:
            return None
        text = "\n".join(self._shown(index) for index in range(self.line_count))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _shown(self, index: int) -> str:
        """Line ``index`` as it reads on screen: what the segments of ``_line_strip`` hold."""
        line = self.line_text(index)
        return line[:1] + clean(line[1:]) if self._is_code(index) else clean(line)

    def _line_strip(self, index: int) -> tuple[Strip, Style]:
        cached = self._strips.get(index)
        if cached is not None:
            return cached
        line = self.line_text(index)
        marker = line[:1]
        if index < self._first_hunk or marker not in _CODE_MARKERS:
            component = "diff-text--hunk" if line.startswith("@@") else "diff-text--meta"
            style = self._style(component)
            segments = [Segment(clean(line), style)]
        else:
            style = self._style(_CODE_MARKERS[marker])
            segments = [Segment(marker, style + Style(bold=True))]
            segments.extend(
                Segment(text, style + token if token else style)
                for text, token in self._tokens_of(index)
            )
        strip = Strip(segments)
        if strip.cell_length > self._width:
            self._width = strip.cell_length
            self.virtual_size = Size(self._width, self.line_count)
        self._strips[index] = (strip, style)
        return strip, style

    def _tokens_of(self, index: int) -> Tokens:
        theme = _DARK_THEME if self.app.current_theme.dark else _LIGHT_THEME
        if theme != self._theme_name:
            self._theme_name = theme
            self._tokens.clear()
        block = index // BLOCK_LINES
        tokens = self._tokens.get(block)
        if tokens is None:
            first = block * BLOCK_LINES
            last = min(first + BLOCK_LINES, self.line_count)
            code_lines = list(self._code_lines(range(first, last)))
            self.highlighted_lines += len(code_lines)
            highlighted = iter(highlight_lines(self._lexer, theme, code_lines))
            tokens = [
                next(highlighted) if self._is_code(line) else [] for line in range(first, last)
            ]
            self._tokens[block] = tokens
        return tokens[index % BLOCK_LINES]

    def _is_code(self, index: int) -> bool:
        return index >= self._first_hunk and self.line_text(index)[:1] in _CODE_MARKERS

    def _code_lines(self, indexes: Iterable[int]) -> Iterable[str]:
        """The code of each +/-/context line in ``indexes``, marker dropped, tabs expanded."""
        for index in indexes:
            if self._is_code(index):
                yield clean(self.line_text(index)[1:])
