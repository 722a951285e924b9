"""The Activity tab's table: a row cursor moved by keys and the mouse, and drawing that costs
the rows an update touched, read off the screen."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from textual.app import App, ComposeResult
from textual.content import Content
from textual.renderables.styled import Styled

from caesar_tui.widgets.row_table import CELL_PADDING, Column, RowTable, content_cell
from tests.tui.screen import lines, until

COLUMNS = (Column("n", "n", 6), Column("text", "text", 30))


class Table(App[None]):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield RowTable(COLUMNS)

    def on_mount(self) -> None:
        table = self.query_one(RowTable)
        for n in range(self.rows):
            table.add_row([Content(str(n)), Content(f"row {n}")], key=f"r{n}")
        table.focus()


def shown(table: RowTable) -> list[str]:
    return [line.split()[0] for line in lines(table)[1:] if line.strip()]


async def test_keys_move_the_cursor_and_the_view_follows_it() -> None:
    app = Table(100)
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(RowTable)
        assert lines(table)[0].split() == ["n", "text"]
        assert shown(table)[:2] == ["0", "1"]
        await pilot.press(*["down"] * 30)
        assert table.cursor_row == 30 and "30" in shown(table)
        await pilot.press("ctrl+end")
        assert table.cursor_row == 99 and shown(table)[-1] == "99"
        await pilot.press("pageup")
        assert table.cursor_row < 99 and str(table.cursor_row) in shown(table)
        await pilot.press("ctrl+home")
        assert table.cursor_row == 0 and shown(table)[0] == "0"
        await pilot.press("up")
        assert table.cursor_row == 0


async def test_a_click_puts_the_cursor_on_the_row_clicked() -> None:
    app = Table(10)
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(RowTable)
        await pilot.click(RowTable, offset=(2, 4))  # the header, then rows 0, 1, 2
        assert table.cursor_row == 3
        await pilot.click(RowTable, offset=(2, 0))  # the header moves nothing
        assert table.cursor_row == 3


async def test_an_update_draws_the_rows_it_touched_not_the_screen() -> None:
    app = Table(200)
    async with app.run_test(size=(60, 22)) as pilot:
        table = app.query_one(RowTable)
        await pilot.pause()
        before = table.drawn_rows
        table.update_row("r3", {"text": Content("row 3, updated")})
        await until(pilot, lambda: "row 3, updated" in "".join(lines(table)), "the update")
        assert table.drawn_rows - before == 1
        await pilot.press("ctrl+end")
        await until(pilot, lambda: "row 199" in "".join(lines(table)), "the end")
        before = table.drawn_rows
        table.add_row([Content("200"), Content("row 200")], key="r200")
        table.move_cursor(row=200)  # following the end, as the Activity tab does
        await until(pilot, lambda: "row 200" in "".join(lines(table)), "the new row")
        # The new row, and the cursor's two rows (it left one, came to the other).
        assert table.drawn_rows - before <= 3


STYLES = ("", "bold", "red", "italic #ff0000 on #000000", "reverse", "dim underline")


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40),
    width=st.integers(3, 50),
    style=st.sampled_from(STYLES),
    cursor=st.booleans(),
    second_line=st.booleans(),
)
def test_a_content_cell_is_drawn_as_the_console_draws_it_padded_and_styled(
    text: str, width: int, style: str, cursor: bool, second_line: bool
) -> None:
    """``content_cell`` takes the console's steps without its machinery: the same segments as
    ``Styled(Padding(cell, (0, 1)), pre, post)`` rendered on one line (DataTable's way), for
    any text (wide, combining, control characters), width and style."""
    cell = Content.styled(text + ("\nsecond" if second_line else ""), style)
    pre = Style(color="#eeeeee", bgcolor="#101010") + Style.from_meta({"row": 3, "column": 1})
    post = Style(color="#ffffff", bgcolor="#0000aa") if cursor else Style.null()
    console = Console(width=200, color_system="truecolor", force_terminal=True)
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    drawn = console.render_lines(Styled(Padding(cell, (0, CELL_PADDING)), pre, post), options)
    assert content_cell(cell, width, pre, post) == drawn[0]
