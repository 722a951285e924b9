"""One value typed in (``caesar config``: a model, a policy value, a role's agents)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ValueModal(ModalScreen[str | None]):
    """A titled input prefilled with the value in force: enter gives the text (stripped),
    escape None. What the text means is the caller's business."""

    DEFAULT_CSS = """
    ValueModal {
        align: center top;
        & > Vertical {
            width: 80;
            max-width: 90%;
            height: auto;
            margin-top: 3;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; }
        .hint { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, title: str, current: str = "", hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.current = current
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title", markup=False)
            yield Input(self.current, select_on_focus=False)
            yield Static(
                f"{self.hint}  ·  enter write, escape cancel".lstrip(" ·"),
                classes="hint",
                markup=False,
            )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
