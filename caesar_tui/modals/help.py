"""The key map, on demand, generated from the bindings themselves so it cannot drift."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

Rows = Sequence[tuple[str, str]]
"""``(keys, what they do)`` pairs, in the order to show them."""


@dataclass(frozen=True)
class HelpSection:
    """A heading, and the classes whose own ``BINDINGS`` are listed under it."""

    title: str
    classes: tuple[type[DOMNode], ...]


def binding_rows(
    bindings: Iterable[BindingType],
    keymap: Mapping[str, str],
    key_display: Callable[[Binding], str],
) -> list[tuple[str, str]]:
    """One row per thing the bindings do, with every key that does it (remaps applied).

    The row's text is the binding's tooltip, else its description; bindings with neither
    (and Textual's system bindings) are not listed. Bindings that say the same thing share a
    row: ``j`` and ``down``, or the nine option digits (shown ``1-9``).
    """
    keys_of: dict[str, list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        text = binding.tooltip or binding.description
        if not text or binding.system:
            continue
        remapped = keymap.get(binding.id) if binding.id else None
        keys = [key.strip() for key in remapped.split(",")] if remapped else [binding.key]
        shown = keys_of.setdefault(text, [])
        for key in keys:
            display = key_display(binding.with_key(key, key_display=None))
            if display not in shown:
                shown.append(display)
    return [(_join(keys), text) for text, keys in keys_of.items()]


def _join(keys: list[str]) -> str:
    digits = [int(key) for key in keys if len(key) == 1 and key.isdigit()]
    if (
        len(keys) > 2
        and len(digits) == len(keys)
        and digits == list(range(digits[0], digits[-1] + 1))
    ):
        return f"{digits[0]}-{digits[-1]}"
    return " ".join(keys)


class HelpModal(ModalScreen[None]):
    """Every key with what it does, section by section."""

    DEFAULT_CSS = """
    HelpModal {
        align: center middle;
        & > Vertical {
            width: 80;
            max-width: 90%;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; }
        VerticalScroll { height: auto; }
        Grid { grid-size: 2; grid-rows: auto; grid-gutter: 0 2; height: auto; }
        .heading { text-style: bold; margin-top: 1; }
        .keys { color: $text-accent; text-style: bold; }
        .hint { color: $text-muted; margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "close"),
    ]

    def __init__(self, sections: Sequence[tuple[str, Rows]], title: str = "keys") -> None:
        """Args:
        sections: ``(heading, rows)`` pairs; an empty heading continues the previous one.
        title: The title.
        """
        super().__init__()
        self.sections = [(heading, list(rows)) for heading, rows in sections if rows]
        self.title_text = title

    @classmethod
    def of_bindings(
        cls,
        sections: Sequence[HelpSection],
        keymap: Mapping[str, str],
        key_display: Callable[[Binding], str],
    ) -> HelpModal:
        """The help of these classes' bindings, with the keys a keymap gives them."""
        return cls(
            [
                (
                    section.title,
                    binding_rows(
                        (b for kind in section.classes for b in vars(kind).get("BINDINGS", [])),
                        keymap,
                        key_display,
                    ),
                )
                for section in sections
            ]
        )

    def compose(self) -> ComposeResult:
        # One key column for every section, as wide as the widest keys (cells, not
        # characters: arrows and other symbols may be wide).
        width = max((cell_len(keys) for _, rows in self.sections for keys, _ in rows), default=1)
        with Vertical():
            yield Static(Content(self.title_text), classes="title")
            with VerticalScroll(id="help-keys"):
                for heading, rows in self.sections:
                    if heading:
                        yield Static(Content(heading), classes="heading")
                    with Grid() as grid:
                        grid.styles.grid_columns = f"{width} 1fr"
                        for keys, text in rows:
                            yield Static(Content(keys), classes="keys")
                            yield Static(Content(text), classes="what")
            yield Static("escape, q or ? to close", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
