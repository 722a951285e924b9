"""The "request changes" form (``r``): the message of a follow-up turn, prefilled with a
summary of what the review found (open comments, rejected hunks, failed checks)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from caesar_core.review.comments import open_comments_for_brief
from caesar_core.review.followup import failed_checks, rejected_hunks
from caesar_core.store.ids import short_task_id
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore
from caesar_core.terminal import safe_text

SUMMARY_ITEMS = 20
"""Comments, hunks or checks named in the summary, each kind (the brief carries them all)."""
ITEM_TEXT = 200


def _clip(text: str) -> str:
    return safe_text(text if len(text) <= ITEM_TEXT else text[: ITEM_TEXT - 1] + "…")


def review_summary(store: TaskStore, record: TaskRecord) -> str:
    """What the review of ``record`` found, as the first words of the follow-up's message."""
    lines: list[str] = []
    comments = open_comments_for_brief(store, record)
    if comments:
        lines.append("Address the review comments:")
        for placed in comments[:SUMMARY_ITEMS]:
            where = f"{_clip(placed.comment.path)}:{placed.lines}"
            lines.append(f"- {where}: {_clip(placed.comment.text)}")
    hunks = rejected_hunks(record)
    if hunks:
        lines.append("Rejected hunks (do not bring them back as they were):")
        for hunk in hunks[:SUMMARY_ITEMS]:
            why = f": {_clip(hunk.reason)}" if hunk.reason else ""
            lines.append(f"- {_clip(hunk.path)} {_clip(hunk.header)}{why}")
    checks = failed_checks(record)
    if checks:
        lines.append("Make these checks pass:")
        lines.extend(f"- {_clip(check.command)} ({check.outcome})" for check in checks)
    return "\n".join(lines) or "Continue the work."


class RequestChangesModal(ModalScreen[str | None]):
    """The follow-up's message; dismissed with it (``ctrl+s`` or send), or None."""

    DEFAULT_CSS = """
    RequestChangesModal {
        align: center middle;
        & > Vertical {
            width: 100;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        .title { text-style: bold; margin-bottom: 1; }
        TextArea { height: 14; }
        .buttons { height: auto; align-horizontal: right; margin-top: 1; }
        .buttons Button { margin-left: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "send"),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, record: TaskRecord, summary: str) -> None:
        super().__init__()
        self.record = record
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Content(
                    f"Request changes: turn {self.record.turn + 1} of "
                    f"{short_task_id(self.record.id)} (ctrl+s sends)"
                ),
                classes="title",
            )
            yield TextArea(self.summary, soft_wrap=True)
            with Horizontal(classes="buttons"):
                yield Button("send", id="send", variant="primary")
                yield Button("cancel", id="cancel")

    def on_mount(self) -> None:
        text = self.query_one(TextArea)
        text.move_cursor(text.document.end)  # what the person types follows the summary
        text.focus()

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
