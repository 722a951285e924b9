"""Reading ``caesar watch`` the way a person does: the rendered lines of a widget, the cells
of a table as drawn, the terminal's escape sequences; and a project written in process.

Nothing here reads a widget's private state: what a test asserts is what is on screen.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Static

from caesar_core.events import EventWriter
from caesar_core.git import FileChange, TreeDiff, assemble
from caesar_core.git.diff import hunks_of
from caesar_core.protocol import ChangeAction, Isolation, Mode
from caesar_core.protocol.event import Event, EventPayload
from caesar_core.store import TaskRecord, TaskStatus, TaskStore
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.widgets.row_table import RowTable

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TASK = "t_" + "a" * 32
OTHER = "t_" + "b" * 32
SIZE = (150, 40)


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, moment: datetime = T0) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def at(self, seconds: float) -> datetime:
        return T0 + timedelta(seconds=seconds)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    """Let the app run until ``condition`` holds (file events arrive asynchronously)."""
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def lines(widget: Widget) -> list[str]:
    """The widget's lines as rendered (its visible region), trailing blanks dropped."""
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


def screen_lines(app: App[Any]) -> list[str]:
    """The whole screen as the terminal shows it, one string per row."""
    return _frame(app, styles=False).splitlines()


def styled_screen(app: App[Any]) -> str:
    """The whole screen with its colours and styles, as the terminal shows it."""
    return _frame(app, styles=True)


def _frame(app: App[Any], *, styles: bool) -> str:
    """The screen's full frame, done as ``App.export_screenshot`` does it (the compositor's
    full frame through a recording console), but kept as text: Textual has no public call
    for a frame's text."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=styles)


def text(widget: Widget) -> str:
    """What the screen shows inside ``widget``'s region (children and all)."""
    region = widget.region
    rows = screen_lines(widget.app)[region.y : region.y + region.height]
    return "\n".join(row[region.x : region.x + region.width].rstrip() for row in rows)


def static_text(widget: Static) -> str:
    """What a ``Static`` shows, whether or not it is scrolled into view."""
    return str(widget.render())


def cells(table: RowTable | DataTable[Any]) -> list[tuple[str, ...]]:
    """Every row of a table, cell by cell in column order, as drawn (markup-free text)."""
    return [
        tuple(getattr(cell, "plain", str(cell)) for cell in table.get_row_at(index))
        for index in range(table.row_count)
    ]


def record(task_id: str, root: Path, **fields: Any) -> TaskRecord:
    values: dict[str, Any] = {
        "id": task_id,
        "status": TaskStatus.RUNNING,
        "created_at": T0,
        "agent": "claude",
        "objective": "tidy the parser",
        "workspace": str(root),
        "isolation": Isolation.WORKTREE,
        "mode": Mode.WRITE,
        "worktree_path": str(root / "wt"),
    }
    values.update(fields)
    return TaskRecord.model_validate(values)


class Project:
    """A project on disk written the way caesar writes it, in this process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = TaskStore(root)
        self.diffs: dict[str, TreeDiff | None] = {}

    def task(self, task_id: str = TASK, **fields: Any) -> Path:
        return self.store.create(record(task_id, self.root, **fields)).root

    @contextmanager
    def events(self, task_id: str = TASK, *moments: datetime) -> Iterator[EventWriter]:
        """A writer of the task's events; each append takes the next moment (else now)."""
        times = iter(moments)
        with EventWriter(
            self.store.paths(task_id).events,
            task_id,
            clock=lambda: next(times, datetime.now(UTC)),
        ) as writer:
            yield writer

    def emit(self, task_id: str, at: datetime, payload: EventPayload) -> Event | None:
        """Append one event as caesar would; the event written (its ``seq``, for a record)."""
        with self.events(task_id, at) as writer:
            return writer.append(payload)

    def diff(self, task_record: TaskRecord) -> TreeDiff | None:
        return self.diffs.get(task_record.id)

    def app(self, clock: Clock, **options: Any) -> CaesarApp:
        return make_app(self.root, clock=clock, diff_provider=self.diff, **options)


def reviewable(base: str, tree: str, sections: Iterable[tuple[FileChange, str]]) -> TreeDiff:
    """``git.assemble`` of canned sections, each file given its hunks as caesar reads them
    from git (libgit2 parses the section's text; ``git.diff.hunks_of`` makes the hunks), as a
    diff computed by ``changes_since`` has them."""
    found: list[tuple[FileChange, str]] = []
    for change, section in sections:
        patches = [p for p in pygit2.Diff.parse_diff(section) if p is not None] if section else []
        hunks = hunks_of(patches[0]) if patches else ()
        found.append((replace(change, hunks=hunks), section))
    return assemble(base, tree, found)


def one_file_diff(path: str, added: int = 1) -> TreeDiff:
    body = "".join(f"+line {n}\n" for n in range(added))
    patch = (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n"
        f"+++ b/{path}\n@@ -1,1 +1,{added + 1} @@\n old\n{body}"
    )
    return reviewable(
        "a" * 40, "b" * 40, [(FileChange(path, ChangeAction.MODIFIED, None, added, 0), patch)]
    )


def toasts(app: App[Any]) -> list[str]:
    """The notifications on screen, as their text reads (run the app with notifications)."""
    return [str(toast.render()) for toast in app.screen.query("Toast").results(Static)]
