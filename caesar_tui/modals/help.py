"""The key map, on demand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpModal(ModalScreen[None]):
    """Every key of the app with what it does, handed in by the app.

    The rows come from the caller rather than from the bindings, so the help can describe
    keys in the words of the task at hand and group them as the app sees fit.
    """

    DEFAULT_CSS = """
    HelpModal {
        align: center middle;
        & > Vertical {
            width: 72;
            max-width: 90%;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; margin-bottom: 1; }
        VerticalScroll { height: auto; }
        .hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "close"),
    ]

    def __init__(self, rows: Sequence[tuple[str, str]], title: str = "keys") -> None:
        """Args:
        rows: ``(key, description)`` pairs, in the order to show them.
        title: The heading.
        """
        super().__init__()
        self.rows = list(rows)
        self.title_text = title

    def compose(self) -> ComposeResult:
        # Cells, not characters: arrows and other symbols may be wide.
        width = max((cell_len(key) for key, _ in self.rows), default=0)
        table = Content("\n").join(
            Content.assemble(
                (key, "bold $text-accent"), " " * (width - cell_len(key) + 2), description
            )
            for key, description in self.rows
        )
        with Vertical():
            yield Static(Content(self.title_text), classes="title")
            with VerticalScroll():
                yield Static(table)
            yield Static("escape, q or ? to close", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
