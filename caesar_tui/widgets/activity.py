"""The Activity tab: a task's events as rows, each tool call one row from start to end.

The widget follows one task at a time. :meth:`ActivityView.follow` empties it and reads the
task's recent history in a thread worker; live events that arrive meanwhile are kept and
appended once the history is on screen (the two may overlap: each ``seq`` is shown once),
and a history overtaken by a newer switch is dropped. That race lives here, with the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final

from textual import on, work
from textual.binding import BindingType
from textual.content import Content
from textual.message import Message

from caesar_core.humanize import clip, one_line, took
from caesar_core.protocol.event import Event
from caesar_core.terminal import safe_text
from caesar_tui.activity_rows import Row, RowBuilder
from caesar_tui.clock import Clock
from caesar_tui.keys import bind
from caesar_tui.marks import CALL, MUTED, ROW_STYLE, SPINNER
from caesar_tui.widgets.row_table import Column, RowTable
from caesar_tui.workers import WorkerFailures

TEXT_WIDTH = 90
"""A thought is folded to its first words."""
DETAIL_WIDTH = 120


COLUMNS: Final = (
    Column("time", "time", 8),
    Column("mark", "", 2),
    Column("what", "what", 12),
    Column("took", "took", 7),
    # Fixed, not auto-sized: streaming rows never re-measure the table, and a task renders
    # the same whatever order its rows arrived in.
    Column("detail", "detail", DETAIL_WIDTH),
)
"""The one definition of the columns: adding a row, updating it and ticking all go by key."""

CLOCK_COLUMNS: Final = ("mark", "took")
"""What the clock moves on a running call: its spinner and its elapsed time."""

Cells = dict[str, Content]
"""One row's cells by column key."""

History = Callable[[str], list[Event]]
"""A task's recent events (blocking: read in a thread worker)."""


class ActivityView(WorkerFailures, RowTable):
    """Rows are keyed by the row builder's keys, so a call's end updates its start row.

    A :class:`RowTable`: only the visible rows are drawn, and only the rows an update touched
    are drawn again, so thousands of rows and a stream of events stay cheap.
    """

    DEFAULT_CSS = """
    ActivityView {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("copy", "copy_row", "Copy", help="copy the highlighted row's text", show=False),
    ]

    @dataclass
    class HistoryLoaded(Message):
        """A task's recent events, read by the worker of :meth:`ActivityView.follow`."""

        activity: ActivityView
        task_id: str
        events: list[Event]
        request: int
        """Which :meth:`follow` asked: only the latest one's history is shown."""

        @property
        def control(self) -> ActivityView:
            return self.activity

    def __init__(self, history: History, clock: Clock, *, id: str | None = None) -> None:
        """Args:
        history: Reads a task's recent events (called in a thread).
        clock: The app's clock: running calls count their time with it.
        id: The widget id.
        """
        super().__init__(COLUMNS, id=id)
        self._history = history
        self._clock = clock
        self.task_id: str | None = None
        self._builder = RowBuilder()
        self._last_seq = -1
        self._request = 0
        self._early: list[Event] = []
        """Live events of the followed task that arrived while its history was being read."""
        self._running_rows: dict[str, Row] = {}
        """The rows of running calls, which the clock moves."""

    def follow(self, task_id: str, history: list[Event] | None = None) -> None:
        """Show ``task_id`` with its recent ``history``, or, without it, empty at once and
        with its history as soon as a worker has read it."""
        self.task_id = task_id
        self._request += 1
        self._early = []
        self._builder = RowBuilder()
        self._running_rows = {}
        self._last_seq = -1
        self.clear()
        if history is not None:
            self._shown(history)
        else:
            self.loading = True
            self._read_history(task_id, self._request)

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def _read_history(self, task_id: str, request: int) -> None:
        """The task's last events, read from the end of its log: cost set by the count."""
        self.post_message(self.HistoryLoaded(self, task_id, self._history(task_id), request))

    @on(HistoryLoaded)
    def _history_loaded(self, message: HistoryLoaded) -> None:
        message.stop()
        if message.request != self._request:
            return  # overtaken by a newer switch: its events may be older than _early
        self._shown(message.events)

    def _shown(self, history: list[Event]) -> None:
        self.loading = False
        self._append(history)
        self._append(self._early)  # only what the history did not include
        self._early = []

    def extend(self, task_id: str, events: list[Event]) -> None:
        """Live events of ``task_id``, appended if it is the task shown."""
        if task_id != self.task_id:
            return
        if self.loading:
            self._early.extend(events)
        else:
            self._append(events)

    def _append(self, events: list[Event]) -> None:
        """Add or update the rows ``events`` touch; follows the end if it was at the end."""
        # The history read from disk and the live updates may overlap: each seq once.
        events = [event for event in events if event.seq > self._last_seq]
        if not events:
            return
        self._last_seq = max(event.seq for event in events)
        at_end = self.cursor_row >= self.row_count - 1
        for row in self._builder.feed(events):
            if row.kind == "tool" and row.status == "started":
                self._running_rows[row.key] = row
            else:
                self._running_rows.pop(row.key, None)
            cells = self._cells(row)
            if self.has_row(row.key):
                self.update_row(row.key, cells)
            else:
                self.add_row((cells[column.key] for column in COLUMNS), key=row.key)
        if at_end and self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def tick(self) -> None:
        """Advance the spinners and elapsed times of the running calls on screen (one scrolled
        into view follows at the next tick)."""
        top = self.scroll_offset.y
        shown = range(top, top + self.size.height)
        for row in self._running_rows.values():
            if self.has_row(row.key) and self.get_row_index(row.key) in shown:
                cells = self._cells(row)
                self.update_row(row.key, {key: cells[key] for key in CLOCK_COLUMNS})

    def action_copy_row(self) -> None:
        """The highlighted row's text to the clipboard (OSC 52), as it reads on screen."""
        if not self.row_count:
            return
        text = "  ".join(cell.plain for cell in self.get_row_at(self.cursor_row) if cell.plain)
        self.app.copy_to_clipboard(text)
        self.notify(text, title="copied", markup=False)

    def _cells(self, row: Row) -> Cells:
        when = Content.styled(row.at.astimezone().strftime("%H:%M:%S"), MUTED)
        # What an agent wrote: its controls shown escaped, never sent to the terminal.
        text = safe_text(one_line(row.text))
        # A thought is folded to its first words; anything else is clipped with an ellipsis.
        text = text[:TEXT_WIDTH] if row.kind == "thinking" else clip(text, DETAIL_WIDTH)
        if row.kind != "tool":
            style = ROW_STYLE.get(row.kind, "")
            return {
                "time": when,
                "mark": Content.styled("·", style),
                "what": Content.styled(safe_text(row.title), style),
                "took": Content(""),
                "detail": Content.styled(text, style),
            }
        mark = CALL.get(row.status, CALL["succeeded"])
        if row.status == "started":
            now = self._clock()
            glyph = SPINNER[int(now.timestamp()) % len(SPINNER)]
            elapsed = Content.styled(took(row.at, now), mark.style)
        else:
            glyph = mark.glyph
            elapsed = Content.styled(took(row.at, row.ended_at) if row.ended_at else "", MUTED)
        return {
            "time": when,
            "mark": Content.styled(glyph, mark.style),
            "what": Content.styled(safe_text(row.title), "bold"),
            "took": elapsed,
            "detail": Content(text),
        }
