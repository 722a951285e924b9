"""The messages between the app and its main screen.

A widget's own messages are nested in its class, as Textual's are (``TaskTree.Selected``,
``QuestionForm.Answered``, ``ActivityView.HistoryLoaded``...), and carry it as ``control``.
These two are not a widget's: the app's file watcher feeds the screen with
:class:`ProjectUpdated`, and the screen tells the app what deserves a person's attention
with :class:`Announced`.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from caesar_core.protocol.event import Event
from caesar_core.watch import TaskView
from caesar_tui.announce import News


@dataclass
class ProjectUpdated(Message):
    """Tasks changed on disk: their new views, and the events appended to each."""

    views: dict[str, TaskView]
    events: dict[str, list[Event]]
    """For each changed task, the events appended since the last update (oldest first)."""
    resets: set[str]
    """Tasks whose log was replaced: their events start over."""
    full: bool = False
    """The first scan: every task of the project is in ``views``."""


@dataclass
class Announced(Message):
    """Something a person should hear about (the app shows it, and may alert the desktop)."""

    news: News
    on_screen: bool
    """The task is the one shown: the person is already looking at it."""
