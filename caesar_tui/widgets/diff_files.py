"""The files of a task's diff, each with its checkbox and its hunks' counts: selected, applied,
rejected."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from caesar_core.terminal import quote_path
from caesar_tui.keys import bind
from caesar_tui.marks import APPLIED, BOX, CHANGE, MUTED, REJECTED, Mark
from caesar_tui.review import Box, FileCounts

if TYPE_CHECKING:
    from caesar_core.git.diff import FileChange

__all__ = ["DiffFileList", "file_label"]

_UNKNOWN = Mark("?", "")


def file_label(change: FileChange) -> str:
    """How a file is named on screen: ``old -> new`` for a rename."""
    if change.old_path and change.old_path != change.path:
        return f"{quote_path(change.old_path)} -> {quote_path(change.path)}"
    return quote_path(change.path)


def _counts(change: FileChange) -> tuple[str, str]:
    if change.binary:
        return "bin", ""
    return f"+{change.additions}", f"-{change.deletions}"


def _hunk_counts(counts: FileCounts) -> tuple[str, str, str]:
    return (
        f"{counts.selected}/{counts.total}",
        f"{APPLIED.glyph}{counts.applied}" if counts.applied else "",
        f"{REJECTED.glyph}{counts.rejected}" if counts.rejected else "",
    )


Widths = tuple[int, int, int, int, int]
"""Widths of the +, -, selected, applied and rejected columns: the widest of the diff."""


def _prompt(change: FileChange, counts: FileCounts, widths: Widths) -> Content:
    """One row: ``[x] M  +12  -3  2/3 ✓1  path``; the counts come first, padded to the widest
    of the diff, so that paths line up and a long path wraps without hiding its counts."""
    mark = CHANGE.get(change.action, _UNKNOWN)
    box = BOX[counts.box.value]
    plus, minus = _counts(change)
    chosen, applied, rejected = _hunk_counts(counts)
    plus_style = "$text-muted" if change.binary else "$text-success"
    parts: list[str | tuple[str, str]] = [
        (box.glyph, box.style),
        " ",
        (mark.glyph, f"bold {mark.style}"),
        " ",
        (plus.rjust(widths[0]), plus_style),
        " ",
        (minus.rjust(widths[1]), "$text-error"),
        "  ",
        (chosen.rjust(widths[2]), "bold" if counts.selected else MUTED),
    ]
    for text, width, style in (
        (applied, widths[3], APPLIED.style),
        (rejected, widths[4], REJECTED.style),
    ):
        if width:
            parts.extend([" ", (text.ljust(width), style)])
    parts.extend(["  ", file_label(change)])
    prompt = Content.assemble(*parts)
    return prompt.stylize("dim") if counts.box is Box.NONE else prompt


class DiffFileList(OptionList):
    """The changed files, one row each: checkbox, action, +/- line counts, hunks selected
    (and applied, rejected), path.

    Moving the highlight posts ``OptionList.OptionHighlighted`` (the parent shows that
    file); ``Opened`` asks the parent to move focus to the diff text; ``Toggled`` asks it to
    select or deselect a file's hunks (or every file's): the parent keeps the choices and
    gives each row its counts back (``set_files``, ``update_counts``).
    """

    DEFAULT_CSS = """
    DiffFileList {
        height: 1fr;
        max-height: 100%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("down", "cursor_down", "Down", show=False),
        bind("up", "cursor_up", "Up", show=False),
        bind(
            "toggle_file",
            "toggle_file",
            "Toggle file",
            help="select or deselect every hunk of the file",
        ),
        bind("toggle_all", "toggle_all", "All/none", help="select every file, or none"),
        Binding("enter,tab", "open", "Read diff", show=False, tooltip="read the file's diff"),
    ]

    @dataclass
    class Opened(Message):
        """The person asked to read the highlighted file's diff."""

        file_list: DiffFileList
        index: int

        @property
        def control(self) -> DiffFileList:
            return self.file_list

    @dataclass
    class Toggled(Message):
        """The person toggled a file (``path``), or every file (``path`` None)."""

        file_list: DiffFileList
        path: str | None

        @property
        def control(self) -> DiffFileList:
            return self.file_list

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled, markup=False)
        self._files: list[FileChange] = []
        self._counts: list[FileCounts] = []
        self._widths: Widths = (0, 0, 0, 0, 0)

    @property
    def files(self) -> Sequence[FileChange]:
        """Every file of the diff, in display order."""
        return self._files

    @property
    def highlighted_file(self) -> FileChange | None:
        """The file under the highlight, if any."""
        index = self.highlighted
        return None if index is None or index >= len(self._files) else self._files[index]

    def set_files(
        self,
        files: Iterable[FileChange],
        counts: Sequence[FileCounts],
        *,
        highlight: str | None = None,
    ) -> None:
        """Replace the rows.

        Args:
            files: The diff's files.
            counts: Each file's hunk counts, in the same order.
            highlight: Path to highlight (default: the first file).
        """
        self._files = list(files)
        self._counts = list(counts)
        self._widths = self._measure()
        paths = [change.path for change in self._files]
        self.set_options(
            Option(_prompt(change, count, self._widths))
            for change, count in zip(self._files, self._counts, strict=True)
        )
        index = paths.index(highlight) if highlight in paths else 0
        self.highlighted = index if self._files else None
        self._update_title()

    def update_counts(self, counts: Sequence[FileCounts]) -> None:
        """New counts for the same files (a toggle): only the rows that changed are redrawn."""
        before, self._counts = self._counts, list(counts)
        widths = self._measure()
        redraw_all = widths != self._widths
        self._widths = widths
        for index, (change, count) in enumerate(zip(self._files, self._counts, strict=True)):
            if redraw_all or before[index] != count:
                self.replace_option_prompt_at_index(index, _prompt(change, count, widths))
        self._update_title()

    def _measure(self) -> Widths:
        counts = [_counts(change) for change in self._files]
        hunks = [_hunk_counts(count) for count in self._counts]
        return (
            max((len(plus) for plus, _ in counts), default=0),
            max((len(minus) for _, minus in counts), default=0),
            max((len(chosen) for chosen, _, _ in hunks), default=0),
            max((len(applied) for _, applied, _ in hunks), default=0),
            max((len(rejected) for _, _, rejected in hunks), default=0),
        )

    def action_toggle_file(self) -> None:
        change = self.highlighted_file
        if change is not None:
            self.post_message(self.Toggled(self, change.path))

    def action_toggle_all(self) -> None:
        if self._files:
            self.post_message(self.Toggled(self, None))

    def action_open(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Opened(self, self.highlighted))

    def _update_title(self) -> None:
        """The border says how many files and hunks are selected, and the diff's size."""
        total = len(self._files)
        if not total:
            self.border_title = self.border_subtitle = None
            return
        chosen = sum(1 for count in self._counts if count.selected)
        hunks = sum(count.total for count in self._counts)
        selected = sum(count.selected for count in self._counts)
        self.border_title = f"files {chosen}/{total} · hunks {selected}/{hunks}"
        additions = sum(change.additions for change in self._files)
        deletions = sum(change.deletions for change in self._files)
        subtitle = f"+{additions} -{deletions}"
        applied = sum(count.applied for count in self._counts)
        rejected = sum(count.rejected for count in self._counts)
        if applied:
            subtitle += f" · {APPLIED.glyph}{applied} applied"
        if rejected:
            subtitle += f" · {REJECTED.glyph}{rejected} rejected"
        self.border_subtitle = subtitle
