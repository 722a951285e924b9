"""Yes or no before an action that changes the user's files (apply, discard)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from caesar_core.terminal import safe_text


class ConfirmModal(ModalScreen[bool]):
    """A question, what the action would touch, and what stands in its way.

    Dismissed with True to go ahead, False otherwise. Conflicts are listed apart and in the
    error colour: they are the reason to say no, and must not hide among the other lines.
    """

    DEFAULT_CSS = """
    ConfirmModal {
        align: center middle;
        & > Vertical {
            width: 72;
            max-width: 90%;
            height: auto;
            max-height: 80%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; margin-bottom: 1; }
        VerticalScroll { height: auto; max-height: 20; }
        .conflicts { color: $text-error; margin-top: 1; }
        .buttons { height: auto; align-horizontal: right; margin-top: 1; }
        .buttons Button { margin-left: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "confirm", "yes"),
        Binding("n,escape", "cancel", "no"),
    ]

    def __init__(
        self,
        title: str,
        lines: Sequence[str] = (),
        *,
        conflicts: Sequence[str] = (),
        confirm_label: str = "yes",
        cancel_label: str = "no",
    ) -> None:
        """Args:
        title: The question ("Apply 3 files to your working tree?").
        lines: What the action touches, one per line (file paths, usually).
        conflicts: What prevents it or would be lost, shown in the error colour.
        confirm_label: The confirm button's text (the key is always ``y``).
        cancel_label: The cancel button's text (the key is always ``n``).
        """
        super().__init__()
        self.title_text = title
        self.lines = list(lines)
        self.conflicts = list(conflicts)
        self.confirm_label = confirm_label
        self.cancel_label = cancel_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(safe_text(self.title_text)), classes="title")
            with VerticalScroll():
                if self.lines:
                    yield Static(
                        Content("\n").join(Content(safe_text(line)) for line in self.lines)
                    )
                if self.conflicts:
                    yield Static(
                        Content("\n").join(
                            [
                                Content.styled("conflicts", "bold"),
                                *(Content(safe_text(line)) for line in self.conflicts),
                            ]
                        ),
                        classes="conflicts",
                    )
            with Horizontal(classes="buttons"):
                yield Button(Content(f"{self.cancel_label} (n)"), id="cancel", variant="default")
                yield Button(Content(f"{self.confirm_label} (y)"), id="confirm", variant="primary")

    def on_mount(self) -> None:
        # Enter confirms, whether the binding or the focused button takes it.
        self.query_one("#confirm", Button).focus()

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm_pressed(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(False)
