"""The footer of the main screen: Textual's ``Footer``, composed again only when what it shows
changes.

Textual's footer composes its keys again every time the screen says its bindings may have
changed: focus moving, a tab shown, a pane's loading state, a worker's message... Each time
it makes a widget per key and styles them all, a few milliseconds, and ``caesar watch``'s
start-up asked for that eight times before its first full frame, the same keys each time.
This one compares what the keys would be (each shown binding, whether it is enabled, its
tooltip and how its key is spelled) with what it shows, and composes only when they differ;
several notifications in one refresh make one comparison.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

Shown = tuple[object, ...]
"""What the footer's keys are made of: compared, never read."""


class KeysFooter(Footer):
    """A ``Footer`` that recomposes when its keys change, not whenever they might have."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Shown | None = None
        """What the keys on screen were composed from (None: nothing composed yet)."""
        self._pending = False
        """A comparison is waiting for the next refresh."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._pending:
            self._pending = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        if self.is_attached and self._keys() != self._shown:
            await self.recompose()

    def compose(self) -> ComposeResult:
        self._shown = self._keys()
        yield from super().compose()

    def _keys(self) -> Shown:
        """Everything ``Footer.compose`` reads, in the order it reads it."""
        if not self._bindings_ready:
            return ()
        get_key_display = self.app.get_key_display
        active = self.screen.active_bindings
        shown = tuple(
            (binding, enabled, tooltip, get_key_display(binding))
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                palette = (binding, enabled, tooltip, get_key_display(binding))
        return (self.compact, self.combine_groups, shown, palette)
