"""The list of a task's review comments (``C``): where each is, its state, its text; ``x``
resolves the highlighted one."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from caesar_core.review.comments import Comments, Placed
from caesar_core.store.ids import short_task_id
from caesar_core.terminal import safe_text
from caesar_tui.actions import Outcome
from caesar_tui.keys import bind

LIST_TEXT = 200
"""Characters of a comment's text shown in the list."""


def comment_row(placed: Placed) -> str:
    """One row of the list: path:lines, state, text (made safe)."""
    text = placed.comment.text
    shown = safe_text(text if len(text) <= LIST_TEXT else text[: LIST_TEXT - 1] + "…")
    return f"{safe_text(placed.comment.path)}:{placed.lines}  [{placed.state.value}]  {shown}"


class CommentsModal(ModalScreen[None]):
    """A task's comments, read and resolved through the functions it is given (blocking:
    called in its thread workers)."""

    DEFAULT_CSS = """
    CommentsModal {
        align: center middle;
        & > Vertical {
            width: 100;
            max-width: 95%;
            height: auto;
            max-height: 80%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; margin-bottom: 1; }
        OptionList { height: auto; max-height: 20; }
        .problem { color: $text-warning; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("resolve_comment", "resolve", "Resolve", help="resolve the highlighted comment"),
        Binding("escape", "close", "Close"),
    ]

    class Read(Message):
        def __init__(self, comments: Comments, outcome: Outcome | None = None) -> None:
            super().__init__()
            self.comments = comments
            self.outcome = outcome

    def __init__(
        self,
        task_id: str,
        read: Callable[[], Comments],
        resolve: Callable[[str], Outcome],
    ) -> None:
        super().__init__()
        self.task_id = task_id
        self._read = read
        self._resolve = resolve
        self._ids: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Comments of {short_task_id(self.task_id)}"), classes="title")
            yield Static("", classes="problem")
            yield OptionList()

    def on_mount(self) -> None:
        self.query_one(".problem").display = False
        self._load(None)

    @work(thread=True, exclusive=True, group="comments", exit_on_error=False)
    def _load(self, comment_id: str | None) -> None:
        outcome = self._resolve(comment_id) if comment_id is not None else None
        self.post_message(self.Read(self._read(), outcome))

    @on(Read)
    def _shown(self, message: Read) -> None:
        comments = message.comments
        problem = self.query_one(".problem", Static)
        problem.display = comments.problem is not None
        problem.update(Content(safe_text(comments.problem or "")))
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        self._ids = [placed.comment.id for placed in comments.placed]
        options.clear_options()
        options.add_options(
            [Option(Content(comment_row(p)), id=p.comment.id) for p in comments.placed]
            or [Option(Content("no comments: c on a line of the Diff tab adds one"), disabled=True)]
        )
        if self._ids:
            options.highlighted = min(highlighted or 0, len(self._ids) - 1)
        options.focus()
        outcome = message.outcome
        if outcome is not None:
            self.notify(
                outcome.text,
                title=outcome.title,
                severity="information" if outcome.ok else "error",
                markup=False,
            )

    def action_resolve(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None or not self._ids:
            return
        self._load(self._ids[options.highlighted])

    def action_close(self) -> None:
        self.dismiss(None)
