"""A Static updated only when what it shows changes: the same text in another style is a
change."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

from caesar_tui.widgets import unchanged


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(Content("plain"))


async def test_only_a_change_of_text_or_style_updates_the_static() -> None:
    app = One()
    async with app.run_test(size=(40, 3)):
        static = app.query_one(Static)
        first = static.content
        unchanged.update(static, Content("plain"))
        assert static.content is first  # the same: not updated, no new layout
        bold = Content.styled("plain", "bold")
        unchanged.update(static, bold)
        assert static.content is bold
        unchanged.update(static, Content("other"))
        assert str(static.render()) == "other"
