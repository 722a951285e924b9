"""The Diff tab, a review screen: one task's changed files, each file's diff by hunk, and which
hunks and lines applying (or rejecting) would take.

:meth:`DiffView.load` computes a task's diff in a thread worker (git is slow on a big tree)
and shows it when it arrives (``DiffReady``); each file's section of the patch is where its
``FileChange.span`` says (offsets computed with the diff, no copies, no header parsed), so
``show`` is cheap on the event loop even for a huge patch, and the text itself is rendered
lazily by ``DiffText``. The person's choices live in one :class:`~caesar_tui.review.Review`
per task, kept by hunk id across re-reads; the file list and the text draw from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Self

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static

from caesar_core.errors import CaesarError
from caesar_core.store.record import TaskRecord
from caesar_core.terminal import safe_text
from caesar_tui.keys import bind
from caesar_tui.review import Box, Choice, Done, FileCounts, Review, done_of
from caesar_tui.widgets.diff_files import DiffFileList, file_label
from caesar_tui.widgets.diff_text import SIDE_BY_SIDE_MIN, DiffText
from caesar_tui.workers import WorkerFailures

if TYPE_CHECKING:
    from caesar_core.git.diff import FileChange, TreeDiff
    from caesar_core.review.comments import Comments, CommentState
    from caesar_core.review.hunks import Hunk

__all__ = ["CommentsProvider", "DiffProvider", "DiffView", "comment_note"]

DiffProvider = Callable[[TaskRecord], "TreeDiff | None"]
"""A task's diff with its patch, None without git (blocking: called in a thread worker)."""
CommentsProvider = Callable[[TaskRecord], "Comments"]
"""A task's review comments, placed (blocking: called in the same worker)."""


NO_GIT = "no git: this task's changes could not be computed"
NO_CHANGES = "no changes"
NO_TASK = "no task selected"
BINARY = "binary file differs"
NO_PATCH = "no text for this file in the patch"
STACK_BELOW = 80
"""Below this width the file list goes above the text instead of beside it."""
NOTE_TEXT = 300
"""Characters of a comment's text shown under its line."""


def comment_note(state: CommentState, text: str) -> str:
    """A comment's row under its line: its state when not open, its text made safe."""
    from caesar_core.review.comments import CommentState  # once a diff with comments is read

    shown = safe_text(text if len(text) <= NOTE_TEXT else text[: NOTE_TEXT - 1] + "…")
    mark = "" if state is CommentState.OPEN else f"[{state.value}] "
    return f"▎ {mark}{shown}"


class DiffView(WorkerFailures, Widget):
    """One task's diff: a file list with checkboxes beside the selected file's diff text.

    The screen calls ``load(record)`` when the task or its files change and reads
    :meth:`choice` when the person asks to apply or reject; the keys that act on the task
    (apply, reject, discard) belong to the screen, the keys that move through the diff and
    choose in it to this widget and its text.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("next_hunk", "hunk(1)", "Next hunk", help="the next hunk (then the next file's)"),
        bind("prev_hunk", "hunk(-1)", "Prev hunk", show=False, help="the previous hunk"),
        bind("next_file", "file(1)", "Next file", show=False, help="the next file"),
        bind("prev_file", "file(-1)", "Prev file", show=False, help="the previous file"),
        bind(
            "comment",
            "comment",
            "Comment",
            help="comment on the lines chosen (v), else on the hunk under the cursor",
        ),
        bind(
            "select_lines",
            "select_lines",
            "Lines",
            help="choose lines of the hunk: v, move with j/k, v or escape when done",
        ),
        bind(
            "side_by_side",
            "side_by_side",
            "Side by side",
            help=f"side by side or unified (side by side needs {SIDE_BY_SIDE_MIN} columns)",
        ),
    ]

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
        &.-side DiffFileList {
            width: 32;
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
        done: Done = field(default_factory=Done)
        notes: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
        """Each path's comment rows (see :meth:`DiffText.show_patch`)."""
        comments_problem: str | None = None
        """Why the task's comments file could not be read (the diff is still shown)."""

        @property
        def control(self) -> DiffView:
            return self.diff_view

    @dataclass
    class CommentAsked(Message):
        """The person wrote a comment on lines of the shown task's diff (the screen adds it)."""

        diff_view: DiffView
        task_id: str
        path: str
        start: int
        end: int
        text: str

        @property
        def control(self) -> DiffView:
            return self.diff_view

    def __init__(
        self,
        provider: DiffProvider | None = None,
        comments: CommentsProvider | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Args:
        provider: Computes a task's diff (called in a thread); None: only ``show`` fills it.
        comments: Reads a task's review comments (in the same thread); None: none shown.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._provider = provider
        self._comments = comments
        self._notes: dict[str, list[tuple[int, str]]] = {}
        self._review = Review()
        """The choices of the task shown."""
        self._hunks: dict[str, tuple[Hunk, ...]] = {}
        """Each file's hunks, by path."""
        self._counts: list[FileCounts] = []
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
    def review(self) -> Review:
        """The choices made in the task shown."""
        return self._review

    def hunks_of(self, change: FileChange) -> tuple[Hunk, ...]:
        """A file's hunks, as the view shows them."""
        return self._hunks.get(change.path, ())

    def choice(self) -> Choice | None:
        """What applying or rejecting now would take (None: no diff is shown)."""
        if self._diff is None or self._diff.is_empty:
            return None
        return self._review.choice([(c, self.hunks_of(c)) for c in self._diff.files])

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
            diff = provider(record)
            done = done_of(record, diff)
            notes: dict[str, list[tuple[int, str]]] = {}
            problem = None
            if self._comments is not None:
                from caesar_core.review.comments import CommentState  # in the worker

                read = self._comments(record)
                problem = read.problem
                for placed in read.placed:
                    if placed.state is not CommentState.RESOLVED:
                        note = comment_note(placed.state, placed.comment.text)
                        notes.setdefault(placed.comment.path, []).append((placed.end_line, note))
            self.post_message(
                self.DiffReady(
                    self, record.id, diff, done=done, notes=notes, comments_problem=problem
                )
            )
        except (CaesarError, OSError) as error:
            self.post_message(self.DiffReady(self, record.id, None, str(error)))

    @on(DiffReady)
    def _diff_ready(self, message: DiffReady) -> None:
        message.stop()
        if message.task_id != self._wanted:
            return
        if message.error:
            self.notify(message.error, title="Diff", severity="error", markup=False)
        self._notes = message.notes
        if message.comments_problem:
            self.notify(
                safe_text(message.comments_problem),
                title="Comments",
                severity="warning",
                markup=False,
            )
        self.show(message.task_id, message.diff, message.done)

    def show(self, task_id: str, diff: TreeDiff | None, done: Done | None = None) -> None:
        """Show ``diff`` as ``task_id``'s changes, ``done`` saying what of it was applied and
        rejected already.

        A new diff of the task already shown keeps the person's place: the highlighted
        file, its scroll position and cursor, and what they chose of each hunk still there.
        ``None`` means git could not compute the changes.
        """
        same_task = self._shown and task_id == self._task_id
        self._shown = True
        self._task_id = task_id
        self._diff = diff
        if not same_task:
            self._review = Review()
        self._review.done = done or Done()
        self._hunks = {c.path: c.hunks for c in diff.files} if diff is not None else {}
        self._review.keep_only(h.id for hunks in self._hunks.values() for h in hunks)
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
            files.set_files([], [])
            self._counts = []
            self.text.clear()
            self._current = None
            return
        previous = files.highlighted_file if same_task else None
        self._counts = [self._review.counts(c, self.hunks_of(c)) for c in diff.files]
        files.set_files(diff.files, self._counts, highlight=previous.path if previous else None)
        current = files.highlighted_file
        if current is not None:
            same_file = previous is not None and previous.path == current.path
            self._show_file(current, keep_scroll=same_file)

    def _show_file(self, change: FileChange, *, keep_scroll: bool = False) -> None:
        self._current = change.path
        text = self.text
        title = file_label(change)
        span = change.span
        hunks = self.hunks_of(change)
        if change.binary:
            text.show_message(BINARY, title=title, hunks=hunks, review=self._review)
        elif span is None or self._diff is None:
            text.show_message(NO_PATCH, title=title, hunks=hunks, review=self._review)
        else:
            text.show_patch(
                change.path,
                self._diff.patch,
                span.start,
                span.end,
                hunks=hunks,
                review=self._review,
                title=title,
                keep_scroll=keep_scroll,
                notes=self._notes.get(change.path, ()),
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

    @on(DiffFileList.Toggled)
    def _file_toggled(self, event: DiffFileList.Toggled) -> None:
        event.stop()
        if self._diff is None:
            return
        if event.path is None:
            every = [hunk for hunks in self._hunks.values() for hunk in hunks]
            self._review.toggle_all(every)
        else:
            self._review.toggle_all(self._hunks.get(event.path, ()))
        self._recount()

    @on(DiffText.Changed)
    def _text_changed(self, event: DiffText.Changed) -> None:
        event.stop()
        self._recount(event.path)

    def _recount(self, path: str | None = None) -> None:
        """The file list's counts again (of ``path`` only, or of every file) and the text's
        marks."""
        if self._diff is None:
            return
        self._counts = [
            self._review.counts(c, self.hunks_of(c)) if path in (None, c.path) else count
            for c, count in zip(self._diff.files, self._counts, strict=True)
        ]
        self.file_list.update_counts(self._counts)
        self.text.refresh_marks()

    # ----------------------------------------------------------------------- keys

    def _file_index(self) -> int | None:
        return self.file_list.highlighted

    def _go_to_file(self, index: int) -> bool:
        files = self.file_list
        if self._diff is None or not 0 <= index < len(files.files):
            return False
        files.highlighted = index
        self._show_file(files.files[index])
        return True

    def action_hunk(self, delta: int) -> None:
        """The next or previous hunk, on to the next or previous file at either end."""
        text = self.text
        if self._diff is None or not self.query_one("#diff-panes").display:
            return
        text.focus()
        if text.move_hunk(delta):
            return
        index = self._file_index()
        if index is not None and self._go_to_file(index + delta):
            text.go_to_hunk(0 if delta > 0 else -1)

    def action_file(self, delta: int) -> None:
        index = self._file_index()
        if index is not None:
            self._go_to_file(index + delta)

    def action_select_lines(self) -> None:
        text = self.text
        if self._diff is None or not self.query_one("#diff-panes").display:
            return
        text.focus()
        if text.choosing_lines:
            text.stop_lines()
        elif not text.start_lines():
            hunk = text.cursor_hunk
            if hunk is not None and self._review.box(hunk) is Box.APPLIED:
                self.notify("this hunk is applied already: no line of it is left to choose")
            else:
                self.notify("this file has no lines to choose: it is taken whole (space)")

    def action_comment(self) -> None:
        text = self.text
        task_id = self._task_id
        if self._diff is None or task_id is None or not self.query_one("#diff-panes").display:
            return
        span = text.comment_range()
        if span is None or not text.path:
            self.notify("no line here to comment on: move to a hunk with lines (] [)")
            return
        path = text.path
        start, end = span
        where = f"{path}:{start}" if start == end else f"{path}:{start}-{end}"

        def written(comment: str | None) -> None:
            if comment:
                self.post_message(self.CommentAsked(self, task_id, path, start, end, comment))

        from caesar_tui.modals.comment import CommentModal  # when first asked for

        self.app.push_screen(CommentModal(safe_text(where)), written)

    def action_side_by_side(self) -> None:
        text = self.text
        wanted = not text.side_by_side_wanted
        self.set_class(wanted, "-side")
        text.set_side_by_side(wanted)
        self.call_after_refresh(self._side_by_side_shown, wanted)

    def _side_by_side_shown(self, wanted: bool) -> None:
        """Once the narrower file list is laid out: say so if the text is still too narrow."""
        text = self.text
        text.set_side_by_side(wanted)
        if wanted and not text.side_by_side:
            self.notify(
                f"side by side needs {SIDE_BY_SIDE_MIN} columns for the text: shown unified "
                "until the terminal is wider (s again to stop asking)"
            )

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < STACK_BELOW, "-stacked")
