"""A ``Static`` updated only when what it shows changes.

``Static.update`` lays the whole screen out again (it refreshes with ``layout=True``), and the
panes that follow a task are handed its view on every change on disk: one appended event
redrew every widget of the screen. Content compares by its text alone (``Content.__eq__``),
so text and styles are compared here.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


def update(static: Static, content: Content) -> None:
    """``static.update(content)``, unless it shows exactly that already."""
    shown = static.content
    if isinstance(shown, Content) and shown.plain == content.plain and shown.spans == content.spans:
        return
    static.update(content)
