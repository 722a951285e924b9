"""Tool calls the bridge holds for a person: each one a card answered with ``y`` or ``n``.

``y``/``n`` are bindings of the card, so they only mean allow/deny while the focus is on an
approval (after ``a``, or enter on the Questions tab); everywhere else ``n`` stays the app's
"next task waiting". A held tool call times out, so every card counts down to its deadline
from the app's clock, never from the wall clock of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from caesar_core.protocol.approvals import Approval, ApprovalAnswer, ApprovalDecision
from caesar_core.terminal import safe_text
from caesar_tui.clock import countdown, remaining
from caesar_tui.keys import bind


class ApprovalCard(Vertical, can_focus=True):
    """One held tool call: what it is, why it is held, how long it waits; allow or deny.

    Like a question's form, a card answers once: after it posts its decision it ignores
    further keys until the app removes it (the answer was written) or calls :meth:`reopen`.
    """

    DEFAULT_CSS = """
    ApprovalCard {
        height: auto;
        border: round $warning 60%;
        padding: 0 1;
        margin-bottom: 1;
        &:focus, &:focus-within { border: round $warning; }
        &.-sent { opacity: 60%; }
        .summary { color: $text; }
        .reason { color: $text-muted; }
        .clock { color: $text-warning; }
        .clock.-late { color: $text-error; }
        .buttons { height: auto; margin-top: 1; }
        .buttons Button { min-width: 0; padding: 0 1; margin-right: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("allow", "decide('allow')", "Allow", help="allow the held tool call"),
        bind("deny", "decide('deny')", "Deny", help="deny the held tool call"),
    ]

    @dataclass
    class Decided(Message):
        """A person allowed or denied the held tool call; the screen writes the decision."""

        card: ApprovalCard
        task_id: str
        approval_id: str
        decision: ApprovalDecision

        @property
        def control(self) -> ApprovalCard:
            return self.card

    def __init__(self, task_id: str, approval: Approval, now: datetime) -> None:
        """Args:
        task_id: The task whose tool call is held; part of the decision message.
        approval: The held call (tool, redacted summary, reason, deadline).
        now: The app's time, for the first countdown.
        """
        super().__init__()
        self.task_id = task_id
        self.approval = approval
        self.sent = False
        self._clock = Static(countdown(approval, now), classes="clock")
        self._late = False
        self._set_late(now)

    def compose(self) -> ComposeResult:
        approval = self.approval
        yield Static(
            Content.assemble(
                ("approve ", "bold"),
                (safe_text(approval.tool), "bold $text-warning"),
                ("?", "bold"),
                "  ",
                (approval.id, "$text-muted"),
            )
        )
        if approval.summary:
            yield Static(Content(safe_text(approval.summary)), classes="summary")
        if approval.reason:
            yield Static(Content(safe_text(approval.reason)), classes="reason")
        yield self._clock
        with Horizontal(classes="buttons"):
            yield Button("y allow", name="allow", variant="success", compact=True)
            yield Button("n deny", name="deny", variant="error", compact=True)

    def tick(self, now: datetime) -> None:
        self._clock.update(countdown(self.approval, now))
        self._set_late(now)

    def _set_late(self, now: datetime) -> None:
        left = remaining(self.approval, now)
        self._clock.set_class(left is not None and left <= 10, "-late")

    def reopen(self) -> None:
        """Accept a decision again: writing the last one failed."""
        self.sent = False
        self.remove_class("-sent")

    def action_decide(self, decision: ApprovalDecision) -> None:
        self._send(decision)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._send("allow" if event.button.name == "allow" else "deny")

    def _send(self, decision: ApprovalDecision) -> None:
        if self.sent:
            return
        self.sent = True
        self.add_class("-sent")
        self.post_message(self.Decided(self, self.task_id, self.approval.id, decision))


class ApprovalList(Vertical):
    """The pending approvals of one task, kept in place across refreshes (keyed by id)."""

    DEFAULT_CSS = """
    ApprovalList { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: dict[str, ApprovalCard] = {}

    def show(self, task_id: str, held: tuple[Approval, ...], now: datetime) -> bool:
        """Cards for ``held`` exactly (asked order); True if a removed card had the focus."""
        wanted = {approval.id for approval in held}
        lost_focus = self.drop([aid for aid in self.cards if aid not in wanted])
        following: ApprovalCard | None = None
        for approval in reversed(held):
            card = self.cards.get(approval.id)
            if card is None:
                card = ApprovalCard(task_id, approval, now)
                self.cards[approval.id] = card
                if following is None:
                    self.mount(card)
                else:
                    self.mount(card, before=following)
            following = card
        self.cards = {approval.id: self.cards[approval.id] for approval in held}
        self.display = bool(held)
        return lost_focus

    def tick(self, now: datetime) -> None:
        for card in self.cards.values():
            card.tick(now)

    def focus_first(self) -> bool:
        card = next(iter(self.cards.values()), None)
        if card is None:
            return False
        # After a refresh: the pane may have just been made visible by a tab switch.
        self.call_after_refresh(card.focus)
        return True

    def reopen(self, approval_id: str) -> None:
        card = self.cards.get(approval_id)
        if card is not None:
            card.reopen()

    def drop(self, approval_ids: list[str]) -> bool:
        """Remove these cards; True if the focus was in one of them."""
        cards = [self.cards.pop(aid) for aid in approval_ids]
        had_focus = any(card.has_focus_within for card in cards)
        if had_focus:
            # Before removing: Textual's fallback would move the focus to a sibling button.
            self.screen.set_focus(None)
        for card in cards:
            card.remove()
        return had_focus


DECIDED_SHOWN = 20
"""Answered approvals listed under the pending ones; an agent may ask for hundreds."""


def decided_lines(pairs: tuple[tuple[Approval, ApprovalAnswer], ...]) -> list[Content]:
    """The latest approvals already answered, for the pane's history below the pending ones."""
    earlier = len(pairs) - DECIDED_SHOWN
    title = "tool calls" + (f" (and {earlier} earlier)" if earlier > 0 else "")
    lines = [Content.styled(title, "bold")]
    for approval, answer in pairs[-DECIDED_SHOWN:]:
        if answer.decision == "allow":
            verdict, style = "✓ allowed ", "$text-success"
        else:
            verdict, style = "✗ denied ", "$text-error"
        by = f"  by {safe_text(answer.answered_by)}" if answer.answered_by else ""
        lines.append(
            Content.assemble(
                (verdict, style),
                (safe_text(approval.tool), "bold"),
                f" {safe_text(approval.summary)}".rstrip(),
                by,
            )
        )
    return lines


__all__ = ["DECIDED_SHOWN", "ApprovalCard", "ApprovalList", "decided_lines"]
