"""Yes or no before an action that changes files (apply, reject, discard), with an optional
reason the person may type (reject)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from caesar_core.terminal import safe_text


class ConfirmModal(ModalScreen[bool]):
    """A question, what the action would touch, and what stands in its way.

    Dismissed with True to go ahead, False otherwise. Conflicts are listed apart and in the
    error colour: they are the reason to say no, and must not hide among the other lines;
    warnings (checks that failed or were not run) in the warning colour. With
    ``reason_prompt`` it has a line to type a reason in (``reason`` after it is dismissed);
    ``enter`` there confirms, and ``y``/``n`` are then letters of the reason.
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
        .warnings { color: $text-warning; margin-top: 1; }
        Input { margin-top: 1; }
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
        warnings: Sequence[str] = (),
        reason_prompt: str | None = None,
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
        self.warnings = list(warnings)
        self.reason_prompt = reason_prompt
        self.reason = ""
        """What was typed as the reason, once confirmed."""
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
                if self.warnings:
                    yield Static(
                        Content("\n").join(Content(safe_text(line)) for line in self.warnings),
                        classes="warnings",
                    )
            if self.reason_prompt is not None:
                yield Input(placeholder=self.reason_prompt, id="reason")
            with Horizontal(classes="buttons"):
                yield Button(Content(f"{self.cancel_label} (n)"), id="cancel", variant="default")
                yield Button(Content(f"{self.confirm_label} (y)"), id="confirm", variant="primary")

    def on_mount(self) -> None:
        # Enter confirms, whether the binding, the focused button or the reason takes it.
        if self.reason_prompt is not None:
            self.query_one("#reason", Input).focus()
        else:
            self.query_one("#confirm", Button).focus()

    def action_confirm(self) -> None:
        self._confirm()

    def _confirm(self) -> None:
        if self.reason_prompt is not None:
            self.reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(True)

    @on(Input.Submitted, "#reason")
    def _reason_submitted(self) -> None:
        self._confirm()

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm_pressed(self) -> None:
        self._confirm()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(False)
