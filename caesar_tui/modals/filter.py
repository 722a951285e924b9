"""The filter of the task list, edited in place."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

FILTER_HINT = "text, status:running, agent:codex"


class FilterModal(ModalScreen[str | None]):
    """An input prefilled with the current filter.

    Dismissed with the new text on enter (an empty string clears the filter) or None on
    escape, which keeps the current filter: clearing and cancelling must not look alike.
    The filter's syntax is the app's business; this only collects the text.
    """

    DEFAULT_CSS = """
    FilterModal {
        align: center top;
        & > Vertical {
            width: 72;
            max-width: 90%;
            height: auto;
            margin-top: 3;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, current: str = "") -> None:
        """Args:
        current: The filter in force, to edit rather than retype.
        """
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(self.current, placeholder=FILTER_HINT, select_on_focus=False)
            yield Static(f"filter: {FILTER_HINT}  ·  enter apply, escape cancel", classes="hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
