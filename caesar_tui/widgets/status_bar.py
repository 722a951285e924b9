"""The header line: how many tasks run, wait for you, finished, failed."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.widgets import Static

from caesar_core.store.record import TaskStatus
from caesar_core.watch import TaskView
from caesar_tui.marks import MUTED, NEEDS_INPUT, STATUS
from caesar_tui.widgets import unchanged


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
        waiting = NEEDS_INPUT.style if needs else MUTED
        run, done, fail = (
            STATUS[TaskStatus.RUNNING],
            STATUS[TaskStatus.SUCCEEDED],
            STATUS[TaskStatus.FAILED],
        )
        unchanged.update(
            self,
            Content.assemble(
                ("caesar ", "bold"),
                (f"{run.glyph} {running} running  ", run.style),
                (f"{NEEDS_INPUT.glyph} {needs} needs input  ", waiting),
                (f"{done.glyph} {finished} finished  ", done.style),
                (f"{fail.glyph} {failed} failed", fail.style if failed else MUTED),
                (f"   filter: {filter_text}" if filter_text else "", "italic"),
                (f"   {project}", MUTED),
            ),
        )
