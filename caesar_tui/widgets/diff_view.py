"""The Diff tab: one task's changed files, which of them to apply, and each file's diff.

:meth:`DiffView.load` computes a task's diff in a thread worker (git is slow on a big tree)
and shows it when it arrives (``DiffReady``); each file's section of the patch is where its
``FileChange.span`` says (offsets computed with the diff, no copies, no header parsed), so
``show`` is cheap on the event loop even for a huge patch, and the text itself is rendered
lazily by ``DiffText``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static

from caesar_core.errors import CaesarError
from caesar_core.git.diff import FileChange, TreeDiff
from caesar_core.store.record import TaskRecord
from caesar_tui.widgets.diff_files import DiffFileList, file_label
from caesar_tui.widgets.diff_text import DiffText
from caesar_tui.workers import WorkerFailures

__all__ = ["DiffProvider", "DiffView"]

DiffProvider = Callable[[TaskRecord], TreeDiff | None]
"""A task's diff with its patch, None without git (blocking: called in a thread worker)."""

NO_GIT = "no git: this task's changes could not be computed"
NO_CHANGES = "no changes"
NO_TASK = "no task selected"
BINARY = "binary file differs"
NO_PATCH = "no text for this file in the patch"
STACK_BELOW = 80
"""Below this width the file list goes above the text instead of beside it."""


class DiffView(WorkerFailures, Widget):
    """One task's diff: a file list with checkboxes beside the selected file's diff text.

    The screen calls ``load(record)`` when the task or its files change and reads
    ``selected_paths`` when the person asks to apply; the keys that act on the task
    (apply, discard) belong to the screen, not to this widget.
    """

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        & > #diff-message {
            width: 1fr;
            height: 1fr;
            content-align: center middle;
            color: $text-muted;
        }
        & > #diff-panes {
            height: 1fr;
        }
        & DiffFileList {
            width: 40%;
            max-width: 60;
            min-width: 24;
        }
        &.-stacked > #diff-panes {
            layout: vertical;
        }
        &.-stacked DiffFileList {
            width: 1fr;
            max-width: 100%;
            height: 35%;
        }
    }
    """

    @dataclass
    class DiffReady(Message):
        """A task's diff, computed by the worker of :meth:`DiffView.load`."""

        diff_view: DiffView
        task_id: str
        diff: TreeDiff | None
        error: str | None = None

        @property
        def control(self) -> DiffView:
            return self.diff_view

    def __init__(
        self,
        provider: DiffProvider | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Args:
        provider: Computes a task's diff (called in a thread); None: only ``show`` fills it.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._provider = provider
        self._wanted: str | None = None
        """The task whose diff was asked for last."""
        self._task_id: str | None = None
        self._diff: TreeDiff | None = None
        self._current: str | None = None
        """Path of the file whose diff is on the right."""
        self._shown = False
        """Whether ``show`` was called; before that the view says no task is selected."""

    def compose(self) -> ComposeResult:
        yield Static(NO_TASK, id="diff-message", markup=False)
        with Horizontal(id="diff-panes"):
            yield DiffFileList(id="diff-files")
            yield DiffText(id="diff-text")

    def on_mount(self) -> None:
        self._refresh_view(same_task=False)

    # ----------------------------------------------------------------------- public API

    @property
    def task_id(self) -> str | None:
        """The task whose diff is shown."""
        return self._task_id

    @property
    def diff(self) -> TreeDiff | None:
        """The diff shown (None: no task yet, or its changes could not be computed)."""
        return self._diff

    @property
    def file_list(self) -> DiffFileList:
        """The file list (left, or on top in a narrow terminal)."""
        return self.query_one("#diff-files", DiffFileList)

    @property
    def text(self) -> DiffText:
        """The highlighted file's diff text."""
        return self.query_one("#diff-text", DiffText)

    @property
    def selected_paths(self) -> list[str]:
        """The paths to hand to ``apply_changes(paths=...)`` for the selected files.

        A rename contributes its old path too: ``apply`` selects paths on both sides of the
        change, and without the old one it would add the new file but keep the old.
        """
        if self._diff is None or not self.is_mounted:
            return []
        paths: list[str] = []
        for change in self.file_list.selected_files:
            paths.append(change.path)
            if change.old_path and change.old_path != change.path:
                paths.append(change.old_path)
        return list(dict.fromkeys(paths))

    @property
    def all_selected(self) -> bool:
        """Whether every file of a non-empty diff is selected (apply may then pass None)."""
        if self._diff is None or self._diff.is_empty or not self.is_mounted:
            return False
        return not self.file_list.deselected

    def focus(self, scroll_visible: bool = True) -> Self:
        """Focus the file list, when a diff is shown.

        The view itself takes no keys; this lets the app focus "the diff" without knowing
        its parts.
        """
        if self.is_mounted and self.query_one("#diff-panes").display:
            self.file_list.focus(scroll_visible)
        return self

    def load(self, record: TaskRecord) -> None:
        """Compute ``record``'s diff off the UI thread and show it (a newer load wins)."""
        self._wanted = record.id
        if self._provider is not None:
            self._compute(record, self._provider)

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _compute(self, record: TaskRecord, provider: DiffProvider) -> None:
        try:
            self.post_message(self.DiffReady(self, record.id, provider(record)))
        except (CaesarError, OSError) as error:
            self.post_message(self.DiffReady(self, record.id, None, str(error)))

    @on(DiffReady)
    def _diff_ready(self, message: DiffReady) -> None:
        message.stop()
        if message.task_id != self._wanted:
            return
        if message.error:
            self.notify(message.error, title="Diff", severity="error", markup=False)
        self.show(message.task_id, message.diff)

    def show(self, task_id: str, diff: TreeDiff | None) -> None:
        """Show ``diff`` as ``task_id``'s changes.

        A new diff of the task already shown keeps the person's place: the highlighted
        file, its scroll position, and the files they deselected. ``None`` means git could
        not compute the changes.
        """
        same_task = self._shown and task_id == self._task_id
        self._shown = True
        self._task_id = task_id
        self._diff = diff
        if self.is_mounted:
            self._refresh_view(same_task=same_task)

    # ----------------------------------------------------------------------- internals

    def _refresh_view(self, *, same_task: bool) -> None:
        diff = self._diff
        if not self._shown:
            message: str | None = NO_TASK
        elif diff is None:
            message = NO_GIT
        elif diff.is_empty:
            message = NO_CHANGES
        else:
            message = None
        self.query_one("#diff-message", Static).update(message or "")
        self.query_one("#diff-message").display = message is not None
        self.query_one("#diff-panes").display = message is None
        files = self.file_list
        if diff is None or message is not None:
            files.set_files([])
            self.text.clear()
            self._current = None
            return
        previous = files.highlighted_file if same_task else None
        files.set_files(
            diff.files,
            deselected=files.deselected if same_task else (),
            highlight=previous.path if previous else None,
        )
        current = files.highlighted_file
        if current is not None:
            self._show_file(current, keep_scroll=previous is not None and previous == current)

    def _show_file(self, change: FileChange, *, keep_scroll: bool = False) -> None:
        self._current = change.path
        text = self.text
        title = file_label(change)
        span = change.span
        if change.binary:
            text.show_message(BINARY, title=title)
        elif span is None or self._diff is None:
            text.show_message(NO_PATCH, title=title)
        else:
            text.show_patch(
                change.path,
                self._diff.patch,
                span.start,
                span.end,
                title=title,
                keep_scroll=keep_scroll,
            )

    @on(OptionList.OptionHighlighted, "#diff-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        # Stopped so an app-level OptionList handler (a task list) never sees these.
        event.stop()
        files = self.file_list
        change = files.highlighted_file
        if change is not None and change.path != self._current:
            self._show_file(change)

    @on(OptionList.OptionSelected, "#diff-files")
    def _file_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    @on(DiffFileList.Opened)
    def _file_opened(self, event: DiffFileList.Opened) -> None:
        event.stop()
        self.text.focus()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < STACK_BELOW, "-stacked")
