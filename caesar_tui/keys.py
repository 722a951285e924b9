"""The app's rebindable keys: every binding a person may remap is made here, by action id.

The default keys come from ``caesar_core.config.WATCH_KEYS``, the table ``[watch.keys]``
is checked against and documented from, so the config file, the footer and the help screen
cannot disagree about what a key does. A remap is applied by Textual's keymap (bindings
carry their action id as ``Binding.id``); the footer and the help read the keys in force.
"""

from __future__ import annotations

from textual.binding import Binding

from caesar_core.config import WATCH_KEYS


def bind(
    action_id: str,
    action: str,
    description: str,
    *,
    help: str = "",
    show: bool = True,
    priority: bool = False,
) -> Binding:
    """A binding of ``action_id``'s default keys to ``action``.

    Args:
        action_id: The id ``[watch.keys]`` knows the action by (a ``WATCH_KEYS`` key).
        action: The Textual action it runs (``"apply"``, ``"tab('diff')"``).
        description: The footer's word for it.
        help: The help screen's sentence (default: the description).
        show: Whether the footer shows it.
        priority: Checked before the focused widget's own bindings.
    """
    return Binding(
        WATCH_KEYS[action_id],
        action,
        description,
        show=show,
        tooltip=help,
        id=action_id,
        priority=priority,
    )


__all__ = ["bind"]
