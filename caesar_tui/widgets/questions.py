"""What a task is waiting on: tool calls to allow or deny, then questions, each answerable
from the keyboard."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static

from caesar_core.protocol.mailbox import MailboxAnswer, MailboxQuestion
from caesar_core.terminal import safe_text
from caesar_core.watch import TaskView
from caesar_tui.clock import Clock, system_clock
from caesar_tui.widgets import unchanged
from caesar_tui.widgets.approvals import ApprovalList, decided_lines

PICK_KEYS = "123456789"
"""One key per option; a question with more options is answered by typing the option."""


class AnswerInput(Input):
    """The free-text answer of one form; while empty, it lets an option's digit through.

    An ``Input`` swallows every printable key, digits included, before any binding of its
    ancestors can see it. Declining the option digits while the box is empty lets the form's
    ``1``-``9`` bindings answer at once, and once text is typed, digits are text again
    ("wait 2 minutes" must stay typeable).
    """

    def __init__(self, picks: int, *, placeholder: str = "") -> None:
        """Args:
        picks: How many options the question has (only those digits are declined).
        placeholder: The hint shown while the box is empty.
        """
        super().__init__(placeholder=placeholder, compact=True)
        self.picks = min(picks, len(PICK_KEYS))

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if not self.value and character is not None and character in PICK_KEYS[: self.picks]:
            return False
        return super().check_consume_key(key, character)


class QuestionForm(Vertical):
    """The answer form of one pending question: numbered options, free text, send.

    A form answers once: after it posts its answer it ignores further picks until the app
    either removes it (the answer was written) or calls :meth:`reopen` (writing failed).
    """

    DEFAULT_CSS = """
    QuestionForm {
        height: auto;
        border: round $panel;
        padding: 0 1;
        margin-bottom: 1;
        &:focus-within { border: round $accent; }
        &.-sent { opacity: 60%; }
        .options { height: auto; margin-top: 1; }
        .options Button { min-width: 0; padding: 0 1; }
        .free { height: auto; margin-top: 1; }
        .free Input { width: 1fr; }
        .free Button { min-width: 0; padding: 0 1; margin-left: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the keys must reach the form before the focused input or button does.
        Binding(
            key,
            f"pick({n})",
            f"option {n}",
            show=False,
            priority=True,
            tooltip="pick that option and send it (while the answer box is empty)",
        )
        for n, key in enumerate(PICK_KEYS, start=1)
    ]

    @dataclass
    class Answered(Message):
        """A person answered the form's question; the screen writes the answer."""

        form: QuestionForm
        task_id: str
        question_id: str
        answer: str

        @property
        def control(self) -> QuestionForm:
            return self.form

    def __init__(self, task_id: str, question: MailboxQuestion) -> None:
        """Args:
        task_id: The task asking; part of the answer message.
        question: The pending question; its options become the numbered buttons.
        """
        super().__init__()
        self.task_id = task_id
        self.question = question
        self.sent = False
        """The answer is posted and not yet written or refused."""
        self._focus_on_mount = False
        picks = len(question.options)
        hint = (
            f"type an answer, or 1-{min(picks, len(PICK_KEYS))} to pick"
            if picks
            else "type an answer"
        )
        self.answer_input = AnswerInput(picks, placeholder=hint)

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(
                (safe_text(self.question.question), "bold"),
                "  ",
                (self.question.id, "$text-muted"),
            ),
        )
        if self.question.options:
            with Vertical(classes="options"):
                for n, option in enumerate(self.question.options, start=1):
                    shown = safe_text(option)
                    label = f"{n} {shown}" if n <= len(PICK_KEYS) else shown
                    yield Button(Content(label), name=str(n), classes="option", compact=True)
        with Horizontal(classes="free"):
            yield self.answer_input
            yield Button("send", classes="send", compact=True, variant="primary")

    def on_mount(self) -> None:
        if self._focus_on_mount:
            self.call_after_refresh(self.answer_input.focus)

    def focus_answer(self) -> None:
        """Put the focus in the answer box, now or as soon as the form is mounted."""
        if self.answer_input.is_mounted:
            # After a refresh: the pane may have just been made visible (a tab switch), and
            # a widget that is not displayed yet refuses the focus.
            self.call_after_refresh(self.answer_input.focus)
        else:
            self._focus_on_mount = True

    def reopen(self) -> None:
        """Accept an answer again: writing the last one failed."""
        self.sent = False
        self.remove_class("-sent")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Declining (rather than ignoring) a digit beyond the options lets the key go on to
        # the focused widget, so it is not silently eaten; a pick while the form is sent is
        # eaten instead, so that it does not turn into text either.
        if action == "pick":
            (n,) = parameters
            return isinstance(n, int) and 1 <= n <= len(self.question.options)
        return True

    def action_pick(self, n: int) -> None:
        self._send(self.question.options[n - 1])

    @on(Button.Pressed, ".option")
    def _option_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._send(self.question.options[int(event.button.name or "1") - 1])

    @on(Button.Pressed, ".send")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._send(self.answer_input.value)

    @on(Input.Submitted)
    def _text_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._send(event.value)

    def _send(self, answer: str) -> None:
        # An empty answer is almost always an accidental enter, and answers are final.
        if self.sent or not answer.strip():
            return
        self.sent = True
        self.add_class("-sent")
        self.post_message(self.Answered(self, self.task_id, self.question.id, answer.strip()))


class QuestionsPane(VerticalScroll):
    """A task's held tool calls (approvals), its pending questions, each with its answer
    form, then what was answered.

    ``show`` is called on every refresh of the task, so it updates in place: a form is keyed
    by its question id and kept while the question stays pending, which keeps whatever the
    person is typing into it; a question answered elsewhere (the CLI, another watcher) loses
    its form at once. Answering only posts :class:`QuestionForm.Answered`: the screen writes
    the answer through caesar_core, like ``caesar answer``. Approvals work the same way (see
    :mod:`caesar_tui.widgets.approvals`) and come first: they hold a tool call, and time out.
    """

    DEFAULT_CSS = """
    QuestionsPane {
        height: 1fr;
        #pending { height: auto; }
        .ended { color: $text-warning; margin-bottom: 1; }
        .empty, .answered, .decided { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "leave answer", tooltip="leave the questions"),
    ]

    @dataclass
    class Dismissed(Message):
        """The focus left the questions: escape, or the form it was in went away.

        The screen puts the focus back where it wants it (the task list, usually).
        """

        pane: QuestionsPane

        @property
        def control(self) -> QuestionsPane:
            return self.pane

    def __init__(
        self, *, id: str | None = None, classes: str | None = None, clock: Clock = system_clock
    ) -> None:
        """Args:
        id: The widget id.
        classes: CSS classes.
        clock: The app's clock: approvals count down to their timeout with it.
        """
        super().__init__(id=id, classes=classes)
        self.task_id: str | None = None
        self.clock = clock
        self._forms: dict[str, QuestionForm] = {}
        self.approvals = ApprovalList(id="approvals")
        self._decided = Static("", classes="decided")
        self._pending = Vertical(id="pending")
        self._ended = Static("", classes="ended")
        self._answered = Static("", classes="answered")
        self._empty = Static("no questions", classes="empty")

    def compose(self) -> ComposeResult:
        yield self._empty
        yield self._ended
        yield self.approvals
        yield self._pending
        yield self._answered
        yield self._decided

    def on_mount(self) -> None:
        self._ended.display = False
        self._answered.display = False
        self._decided.display = False
        self.approvals.display = False

    def show(self, view: TaskView) -> None:
        """Bring the pane to ``view``: add forms for new questions, drop answered ones."""
        lost_focus = False
        if view.id != self.task_id:
            lost_focus = self._drop(list(self._forms))
            lost_focus |= self.approvals.drop(list(self.approvals.cards))
            self.task_id = view.id
        # A task that ended reads no answer any more: its questions get no form, and no
        # bridge of it still waits for a decision.
        ended = view.record.status.terminal
        lost_focus |= self.approvals.show(view.id, () if ended else view.approvals, self.clock())
        live = () if ended else view.pending
        wanted = {question.id for question in live}
        lost_focus |= self._drop([qid for qid in self._forms if qid not in wanted])
        following: QuestionForm | None = None
        for question in reversed(live):
            form = self._forms.get(question.id)
            if form is None:
                form = QuestionForm(view.id, question)
                self._forms[question.id] = form
                # Asked order, even when a question arrives between two that have forms.
                if following is None:
                    self._pending.mount(form)
                else:
                    self._pending.mount(form, before=following)
            following = form
        self._forms = {question.id: self._forms[question.id] for question in live}
        if lost_focus and not self.focus_first_question():
            # Nothing left to answer here: the app decides where the focus goes next.
            self.action_leave()
        unread = view.pending if ended else ()
        unchanged.update(self._ended, _unread(unread))
        self._ended.display = bool(unread)
        unchanged.update(self._answered, _answered(view.answered))
        self._answered.display = bool(view.answered)
        unchanged.update(self._decided, Content("\n").join(decided_lines(view.decided)))
        self._decided.display = bool(view.decided)
        self._empty.display = not (view.pending or view.answered or view.approvals or view.decided)

    def clear(self) -> None:
        """No task selected."""
        lost = self._drop(list(self._forms))
        if self.approvals.drop(list(self.approvals.cards)) or lost:
            self.action_leave()
        self.approvals.display = False
        self.task_id = None
        self._ended.display = self._answered.display = self._decided.display = False
        self._empty.display = True

    def tick(self, now: datetime) -> None:
        """Approvals count down to their timeout (no I/O)."""
        self.approvals.tick(now)

    def focus_first_question(self) -> bool:
        """Focus the first held tool call, else the first pending question's answer box;
        False when there is neither."""
        if self.approvals.focus_first():
            return True
        form = next(iter(self._forms.values()), None)
        if form is None:
            return False
        form.focus_answer()
        return True

    def reopen(self, question_id: str) -> None:
        """Let a form answer again: the app could not write the answer it posted."""
        form = self._forms.get(question_id)
        if form is not None:
            form.reopen()

    def reopen_approval(self, approval_id: str) -> None:
        """Let a card decide again: the app could not write the decision it posted."""
        self.approvals.reopen(approval_id)

    def action_leave(self) -> None:
        self.screen.set_focus(None)
        self.post_message(self.Dismissed(self))

    def _drop(self, question_ids: list[str]) -> bool:
        """Remove these questions' forms; True if the focus was in one of them."""
        forms = [self._forms.pop(qid) for qid in question_ids]
        had_focus = any(form.has_focus_within for form in forms)
        if had_focus:
            # Before removing: Textual's fallback would move the focus to a sibling button.
            self.screen.set_focus(None)
        for form in forms:
            form.remove()
        return had_focus


def _unread(questions: tuple[MailboxQuestion, ...]) -> Content:
    lines = [Content("the task ended without reading these:")]
    lines += [Content.assemble("• ", safe_text(question.question)) for question in questions]
    return Content("\n").join(lines)


def _answered(pairs: tuple[tuple[MailboxQuestion, MailboxAnswer], ...]) -> Content:
    lines = [Content.styled("answered", "bold")]
    for question, answer in pairs:
        by = f"  by {safe_text(answer.answered_by)}" if answer.answered_by else ""
        lines.append(Content.assemble("✓ ", safe_text(question.question)))
        lines.append(Content.assemble("  → ", (safe_text(answer.answer), "$text"), by))
    return Content("\n").join(lines)


__all__ = ["AnswerInput", "QuestionForm", "QuestionsPane"]
