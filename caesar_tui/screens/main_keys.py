"""The keys of ``caesar watch``'s main screen, and its detail tabs (each opened by a key).

The screen (:mod:`caesar_tui.screens.main`) has the actions; this is what calls them, as the
footer and the help (``?``) list them, with the keymap (``[watch.keys]``) applied.
"""

from __future__ import annotations

from textual.binding import BindingType

from caesar_tui.keys import bind

TABS = (
    ("activity", "Activity"),
    ("questions", "Questions"),
    ("diff", "Diff"),
    ("report", "Report"),
    ("log", "Log"),
)
"""The detail tabs: pane id (also the action id of the key that opens it) and title."""

MAIN_BINDINGS: list[BindingType] = [
    bind("down", "move(1)", "Down", show=False, help="move to the next task"),
    bind("up", "move(-1)", "Up", show=False, help="move to the previous task"),
    *(
        bind(pane, f"tab('{pane}')", title, show=False, help=f"the {title} tab")
        for pane, title in TABS
    ),
    bind(
        "next",
        "next_needing_input",
        "Next ?",
        help="select the next task waiting for you (a question or an approval)",
    ),
    bind(
        "answer",
        "answer",
        "Answer",
        help="answer: focus the first held tool call, else the first pending question",
    ),
    bind(
        "apply",
        "apply",
        "Apply",
        help="apply the task's diff to your tree (what is selected in the Diff tab)",
    ),
    bind(
        "reject",
        "reject",
        "Reject",
        help="reject what is selected in the Diff tab: reverted in the task's worktree",
    ),
    bind(
        "comments",
        "comments",
        "Comments",
        show=False,
        help="the task's review comments (x there resolves one)",
    ),
    bind(
        "request_changes",
        "request_changes",
        "Changes",
        help="request changes: a follow-up turn of the ended task, its message prefilled "
        "with the open comments, rejected hunks and failed checks",
    ),
    bind("cancel", "cancel_task", "Cancel", help="cancel the task"),
    bind("discard", "discard", "Discard", help="discard the task's worktree"),
    bind("filter", "filter", "Filter", help="filter the tasks: text, status:running, agent:codex"),
]
"""The main screen's keys, by action id (``caesar_tui.keys.bind``)."""
