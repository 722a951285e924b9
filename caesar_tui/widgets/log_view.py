"""The tail of a task's ``raw.log``: what the agent printed, bounded and following."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Self

from textual.widgets import Log

MAX_LINES = 5_000
"""Lines kept on screen; older ones fall off. The file itself keeps everything."""

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""CSI and OSC sequences and two-byte escapes: agents print colours and titles."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""What remains unprintable once escapes are gone (``Log`` only replaces \\x00-\\x14)."""


def clean(line: str) -> str:
    """``line`` without terminal escapes or control characters.

    ``Log`` writes its lines to the terminal as they are, so an escape sequence from an agent
    would restyle, move or retitle the screen; the colours are not worth that risk.
    """
    line = _ANSI.sub("", line.rstrip("\r\n"))
    # A bare carriage return is a progress bar redrawing itself: its last state is what shows.
    line = line.rsplit("\r", 1)[-1]
    return _CONTROL.sub("", line)


class LogView(Log):
    """One task's raw output, appended as the watcher reads it.

    ``Log`` already follows the end only while the view is at the end, so scrolling up to
    read stops the following until the person scrolls back down; and being the ``Log``
    itself (not a wrapper) keeps it focusable for the scrolling keys.
    """

    DEFAULT_CSS = """
    LogView {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(
        self,
        *,
        max_lines: int = MAX_LINES,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Args:
        max_lines: Lines kept; older ones are dropped as new ones arrive.
        """
        super().__init__(max_lines=max_lines, auto_scroll=True, id=id, classes=classes)
        self.task_id: str | None = None

    def show(self, task_id: str, lines: Iterable[str], reset: bool = False) -> None:
        """Append ``lines`` of ``task_id``'s log; ``reset`` (or another task) starts over.

        Args:
            task_id: The task the lines belong to.
            lines: New complete lines, oldest first (line ends are optional).
            reset: The log was truncated or replaced, or this is the first read.
        """
        if reset or task_id != self.task_id:
            super().clear()
            self.task_id = task_id
        self.write_lines(clean(line) for line in lines)

    def clear(self) -> Self:
        """Forget the lines and the task (no task selected)."""
        self.task_id = None
        return super().clear()


__all__ = ["MAX_LINES", "LogView", "clean"]
