"""The header line: how many tasks run, wait for you, finished, failed."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import Static

from caesar_core.store.record import TaskStatus
from caesar_core.watch import TaskView


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    def show(self, views: Iterable[TaskView], project: str, filter_text: str = "") -> None:
        running = needs = finished = failed = 0
        for view in views:
            status = view.record.status
            if view.needs_input:
                needs += 1
            if status in (TaskStatus.RUNNING, TaskStatus.PENDING):
                running += 1
            elif status is TaskStatus.SUCCEEDED:
                finished += 1
            elif status.terminal:
                failed += 1
        line = Text.assemble(
            ("caesar ", "bold"),
            (f"▶ {running} running  ", "cyan"),
            (f"? {needs} needs input  ", "bold yellow" if needs else "dim"),
            (f"✓ {finished} finished  ", "green"),
            (f"✗ {failed} failed", "red" if failed else "dim"),
            (f"   filter: {filter_text}" if filter_text else "", "italic"),
            (f"   {project}", "dim"),
        )
        self.update(line)
