"""The files of a task's diff, each with a checkbox choosing whether it is applied."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from caesar_core.git.diff import FileChange
from caesar_core.terminal import quote_path
from caesar_tui.keys import bind
from caesar_tui.marks import CHANGE, Mark

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


def _prompt(change: FileChange, selected: bool, widths: tuple[int, int]) -> Content:
    """One row: ``[x] M  +12  -3  path``; the counts come first, padded to the widest of
    the diff, so that paths line up and a long path wraps without hiding its counts."""
    mark = CHANGE.get(change.action, _UNKNOWN)
    plus, minus = _counts(change)
    plus_style = "$text-muted" if change.binary else "$text-success"
    prompt = Content.assemble(
        ("[x] " if selected else "[ ] ", "bold" if selected else "$text-muted"),
        (mark.glyph, f"bold {mark.style}"),
        " ",
        (plus.rjust(widths[0]), plus_style),
        " ",
        (minus.rjust(widths[1]), "$text-error"),
        "  ",
        file_label(change),
    )
    return prompt if selected else prompt.stylize("dim")


class DiffFileList(OptionList):
    """The changed files, one row each: checkbox, action, path, and +/- line counts.

    Moving the highlight posts ``OptionList.OptionHighlighted`` (the parent shows that
    file); ``Opened`` asks the parent to move focus to the diff text; ``SelectionChanged``
    follows every checkbox change. Every file starts selected: the usual intent is to apply
    the whole task, and unchecking is the exception.
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
        bind("toggle_file", "toggle_file", "Toggle file", help="select or deselect the file"),
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
    class SelectionChanged(Message):
        """Files were selected or deselected."""

        file_list: DiffFileList

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
        self._deselected: set[str] = set()
        self._widths = (0, 0)
        """Widths of the +/- count columns, the widest of the diff."""

    @property
    def files(self) -> Sequence[FileChange]:
        """Every file of the diff, in display order."""
        return self._files

    @property
    def highlighted_file(self) -> FileChange | None:
        """The file under the highlight, if any."""
        index = self.highlighted
        return None if index is None or index >= len(self._files) else self._files[index]

    @property
    def deselected(self) -> frozenset[str]:
        """Paths of the files that are not selected.

        Kept rather than the selected set so that a refreshed diff of the same task keeps
        the person's choices and still selects files that appeared since.
        """
        return frozenset(self._deselected)

    @property
    def selected_files(self) -> list[FileChange]:
        """The selected files, in display order."""
        return [change for change in self._files if change.path not in self._deselected]

    def is_selected(self, path: str) -> bool:
        return any(change.path == path for change in self._files) and (path not in self._deselected)

    def set_files(
        self,
        files: Iterable[FileChange],
        *,
        deselected: Iterable[str] = (),
        highlight: str | None = None,
    ) -> None:
        """Replace the rows.

        Args:
            files: The diff's files.
            deselected: Paths to show unselected (unknown paths are dropped).
            highlight: Path to highlight (default: the first file).
        """
        self._files = list(files)
        counts = [_counts(change) for change in self._files]
        self._widths = (
            max((len(plus) for plus, _ in counts), default=0),
            max((len(minus) for _, minus in counts), default=0),
        )
        paths = [change.path for change in self._files]
        self._deselected = set(deselected) & set(paths)
        self.set_options(
            Option(_prompt(change, change.path not in self._deselected, self._widths))
            for change in self._files
        )
        index = paths.index(highlight) if highlight in paths else 0
        self.highlighted = index if self._files else None
        self._update_title()

    def set_selected(self, path: str, selected: bool) -> None:
        """Select or deselect one file."""
        for index, change in enumerate(self._files):
            if change.path == path:
                if selected:
                    self._deselected.discard(path)
                else:
                    self._deselected.add(path)
                self.replace_option_prompt_at_index(index, _prompt(change, selected, self._widths))
        self._update_title()
        self.post_message(self.SelectionChanged(self))

    def set_all(self, selected: bool) -> None:
        """Select every file, or none."""
        self._deselected = set() if selected else {change.path for change in self._files}
        for index, change in enumerate(self._files):
            self.replace_option_prompt_at_index(index, _prompt(change, selected, self._widths))
        self._update_title()
        self.post_message(self.SelectionChanged(self))

    def action_toggle_file(self) -> None:
        change = self.highlighted_file
        if change is not None:
            self.set_selected(change.path, change.path in self._deselected)

    def action_toggle_all(self) -> None:
        if self._files:
            self.set_all(bool(self._deselected))

    def action_open(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Opened(self, self.highlighted))

    def _update_title(self) -> None:
        """The border says how many files are selected, and the diff's size."""
        total = len(self._files)
        chosen = total - len(self._deselected)
        self.border_title = f"files {chosen}/{total}" if total else None
        additions = sum(change.additions for change in self._files)
        deletions = sum(change.deletions for change in self._files)
        self.border_subtitle = f"+{additions} -{deletions}" if total else None
