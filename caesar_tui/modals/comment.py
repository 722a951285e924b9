"""The comment field of the Diff tab (``c``): one line of text for lines of the diff."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class CommentModal(ModalScreen[str | None]):
    """Asks for a comment on ``where`` (``calc.py:4-5``); dismissed with its text, or None."""

    DEFAULT_CSS = """
    CommentModal {
        align: center middle;
        & > Vertical {
            width: 72;
            max-width: 90%;
            height: auto;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; margin-bottom: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Comment on {self.where}"), classes="title")
            yield Input(placeholder="what should change (enter: save, escape: cancel)")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value if event.value.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
