"""What a task's line in the tree says, as texts with the names of their styles.

Pure functions of a :class:`~caesar_core.watch.TaskView` and the clock, apart from the
widget: :mod:`caesar_tui.widgets.task_tree` resolves the styles and draws the line, and
keeps a label until its view or its :data:`ClockKey` changes.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

from rich.style import Style
from textual.content import Content

from caesar_core.events.fold import STALL_AFTER
from caesar_core.humanize import age, clip, one_line
from caesar_core.runner.slots import pid_alive
from caesar_core.store.record import ChecksMark, checks_mark
from caesar_core.terminal import safe_text
from caesar_core.watch import TaskView
from caesar_tui.marks import CHECKS, MUTED, NEEDS_INPUT, STALLED, STATUS

HEADLINE_WIDTH = 70
READING = "reading its log…"
"""The headline of a task whose log is not read yet (the first screen reads its own first)."""
ClockKey = tuple[str, bool, ChecksMark]
"""What of a label moves with the clock: the age as shown, the stall mark, the checks."""
TextParts = tuple[tuple[str, str], ...]
"""Parts of a label before their styles are resolved: each text with its style's name."""
FixedTexts = tuple[TextParts, TextParts, TextParts]
"""What of a label only the task's view decides: before the checks, the agent, after the
age and stall mark."""


@cache
def rich_style(style: str, theme: str) -> Style:
    """A label style as Rich draws it: what Textual's content renders it to in the running
    app (whose theme resolves the variables), computed once per theme."""
    return next(iter(Content.styled(" ", style).render(end="")))[1].rich_style


def age_text(shown_age: str) -> str:
    """An age as its label part: right-aligned in four cells (``  5s``, `` 12m``)."""
    return f"{shown_age:>4} "


def clock_key(view: TaskView, now: datetime) -> ClockKey:
    """What of a label moves without any change on disk: the age as shown, the stall mark,
    and caesar's checks (a running check whose process is gone is not run)."""
    record, activity = view.record, view.activity
    stalled = (
        not record.status.terminal
        and activity.last_at is not None
        and now - activity.last_at >= STALL_AFTER
    )
    shown_age = age((now - record.created_at).total_seconds())
    return shown_age, stalled, checks_mark(record.checks, pid_alive)


def fixed_texts(view: TaskView) -> FixedTexts:
    """The texts of a label that only its view decides, each with the name of its style."""
    record, activity = view.record, view.activity
    who = safe_text(record.role or record.agent)
    told = view.asking if view.needs_input else READING if view.reading else activity.headline
    headline = clip(safe_text(one_line(told)), HEADLINE_WIDTH)
    # One mark column: a task waiting on a person shows the question mark in its place, so
    # the ids of every row stay aligned.
    mark = NEEDS_INPUT if view.needs_input else STATUS[record.status]
    head = ((mark.glyph + " ", mark.style), (record.id[2:10], "bold"))
    agent = ((f" {who:<10.10} ", "$text-secondary"),)
    tail = (
        # The turns of a task (caesar continue) are one chain under its first turn.
        (f"turn {record.turn} " if record.chained else "", "$text-accent"),
        # A task on a cluster's worker (caesar run --on): which one.
        (f"{record.executor.label} " if record.executor else "", MUTED),
        (headline, "$text-warning" if view.needs_input else MUTED if view.reading else ""),
    )
    return head, agent, tail


def clock_texts(clock: ClockKey) -> TextParts:
    """The checks mark (drawn before the agent), the age and the stall mark, with the names
    of their styles."""
    shown_age, stalled, checks = clock
    checked = CHECKS[checks]
    return (
        (" " + checked.glyph, checked.style),
        (age_text(shown_age), MUTED),
        (f"{STALLED.glyph} " if stalled else "", STALLED.style),
    )


def matches(view: TaskView, query: str) -> bool:
    """The filter: words that must all match; ``status:X`` and ``agent:X`` target a field."""
    for word in query.lower().split():
        if word.startswith("status:"):
            wanted = word[len("status:") :]
            state = "needs_input" if view.needs_input else view.record.status.value
            if not state.startswith(wanted):
                return False
        elif word.startswith("agent:"):
            if not view.record.agent.lower().startswith(word[len("agent:") :]):
                return False
        else:
            haystack = " ".join(
                (
                    view.id,
                    view.record.agent,
                    view.record.role or "",
                    view.record.objective,
                    view.activity.headline,
                )
            ).lower()
            if word not in haystack:
                return False
    return True
