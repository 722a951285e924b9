"""The Activity tab: a task's events as rows, each tool call one row from start to end."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.widgets import DataTable

from caesar_core.protocol.event import Event
from caesar_tui.activity_rows import Row, RowBuilder

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_KIND_STYLE = {
    "message": "",
    "thinking": "dim italic",
    "progress": "cyan",
    "file": "green",
    "question": "bold yellow",
    "answer": "yellow",
    "error": "red",
    "started": "dim",
    "finished": "bold",
}
TEXT_WIDTH = 90
DETAIL_WIDTH = 120
COLUMNS = ("time", "mark", "what", "took", "detail")


class ActivityView(DataTable[Text]):
    """Rows are keyed by the row builder's keys, so a call's end updates its start row.

    DataTable renders only the visible rows, so thousands of rows stay cheap; only the rows
    an update touched are re-rendered.
    """

    DEFAULT_CSS = """
    ActivityView {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_header=True)
        self.task_id: str | None = None
        self._builder = RowBuilder()
        self._tick = 0
        self._now: datetime | None = None
        self._last_seq = -1
        self.loading = False
        """Between a switch to a task and the arrival of its history."""

    def on_mount(self) -> None:
        if not self.columns:  # a switch to a task may have laid them out already
            self._add_columns()

    def _reset(self) -> None:
        """Empty, with columns as new: an auto-sized column must not keep the width of rows
        that are gone, or the same task would render differently by history."""
        self.clear(columns=True)
        self._add_columns()

    def _add_columns(self) -> None:
        self.add_column("time", key="time", width=8)
        self.add_column("", key="mark", width=2)
        self.add_column("what", key="what", width=12)
        self.add_column("took", key="took", width=7)
        # Fixed, not auto-sized: streaming rows never re-measure the table, and a task
        # renders the same whatever order its rows arrived in.
        self.add_column("detail", key="detail", width=DETAIL_WIDTH)

    def start_loading(self, task_id: str) -> None:
        """Switch to another task; its rows come with :meth:`show` once its history is read."""
        self.task_id = task_id
        self.loading = True
        self._builder = RowBuilder()
        self._last_seq = -1
        self._reset()

    def show(self, task_id: str, events: list[Event], now: datetime) -> None:
        """The task's rows, from its recent events."""
        self.task_id = task_id
        self.loading = False
        self._builder = RowBuilder()
        self._last_seq = -1
        self._reset()
        self._now = now
        self.extend(events, now)

    def extend(self, events: list[Event], now: datetime) -> None:
        """Append or update the rows ``events`` touch; follows the end if it was at the end."""
        self._now = now
        # The history read from disk and the live updates may overlap: each seq once.
        events = [e for e in events if e.seq > self._last_seq]
        if not events:
            return
        self._last_seq = max(e.seq for e in events)
        at_end = self.cursor_row >= self.row_count - 1
        for row in self._builder.feed(events):
            cells = self._cells(row)
            if row.key in self.rows:
                for column, cell in zip(
                    ("time", "mark", "what", "detail", "took"), cells, strict=True
                ):
                    self.update_cell(row.key, column, cell)
            else:
                self.add_row(*cells, key=row.key)
        if at_end and self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def tick(self, now: datetime) -> None:
        """Advance the spinners and elapsed times of running calls."""
        self._tick += 1
        self._now = now
        for row in self._builder.rows.values():
            if row.kind == "tool" and row.status == "started" and row.key in self.rows:
                _, mark, _, took, _ = self._cells(row)
                self.update_cell(row.key, "mark", mark)
                self.update_cell(row.key, "took", took)

    def _cells(self, row: Row) -> tuple[Text, Text, Text, Text, Text]:
        when = Text(row.at.astimezone().strftime("%H:%M:%S"), style="dim")
        text = " ".join(row.text.split())
        if row.kind == "thinking":
            text = text[:TEXT_WIDTH]  # folded: the first words of the thought
        elif len(text) > DETAIL_WIDTH:
            text = text[: DETAIL_WIDTH - 1] + "…"
        if row.kind == "tool":
            if row.status == "started":
                frame = int(self._now.timestamp()) if self._now else self._tick
                mark = Text(SPINNER[frame % len(SPINNER)], style="cyan")
                took = _duration(row.at, self._now) if self._now else ""
                took_text = Text(took, style="cyan")
            else:
                failed = row.status == "failed"
                mark = Text("✗" if failed else "✓", style="red" if failed else "green")
                took_text = Text(
                    _duration(row.at, row.ended_at) if row.ended_at else "", style="dim"
                )
            return when, mark, Text(row.title, style="bold"), took_text, Text(text)
        style = _KIND_STYLE.get(row.kind, "")
        return (
            when,
            Text("·", style=style),
            Text(row.title, style=style),
            Text(""),
            Text(text, style=style),
        )


def _duration(start: datetime, end: datetime | None) -> str:
    if end is None:
        return ""
    seconds = max(0.0, (end - start).total_seconds())
    if seconds < 60:
        return f"{seconds:.1f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
