"""The tail of a task's ``raw.log``: what the agent printed, bounded and following."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from textual import on, work
from textual.message import Message
from textual.widgets import Log

from caesar_core.events.tail import LineTail
from caesar_core.terminal import safe_text
from caesar_tui.workers import WorkerFailures

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
    return safe_text(_CONTROL.sub("", line), lines=True)  # bidi overrides shown escaped


class LogView(WorkerFailures, Log):
    """One task's raw output, appended as it is read.

    ``Log`` already follows the end only while the view is at the end, so scrolling up to
    read stops the following until the person scrolls back down; and being the ``Log``
    itself (not a wrapper) keeps it focusable for the scrolling keys. Its text can be
    selected with the mouse and copied (ctrl+c).

    :meth:`load` reads what was appended since the last read in a thread worker, through a
    :class:`~caesar_core.events.tail.LineTail` kept between reads (and under a lock: a
    superseded worker may still be reading when the next one starts).
    """

    DEFAULT_CSS = """
    LogView {
        height: 1fr;
        background: $surface;
    }
    """

    @dataclass
    class Read(Message):
        """Lines appended to a task's log, read by the worker of :meth:`LogView.load`."""

        log_view: LogView
        task_id: str
        lines: list[str]
        reset: bool

        @property
        def control(self) -> LogView:
            return self.log_view

    def __init__(
        self,
        log_path: Callable[[str], Path] | None = None,
        *,
        max_lines: int = MAX_LINES,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Args:
        log_path: Where a task's ``raw.log`` is; None: only :meth:`show` fills the view.
        max_lines: Lines kept; older ones are dropped as new ones arrive.
        """
        super().__init__(max_lines=max_lines, auto_scroll=True, id=id, classes=classes)
        self.task_id: str | None = None
        self._log_path = log_path
        self._wanted: str | None = None
        self._tail: LineTail | None = None
        self._tail_task: str | None = None
        self._lock = threading.Lock()

    def load(self, task_id: str) -> None:
        """Read what ``task_id`` printed since the last read (all of it, for a new task)."""
        self._wanted = task_id
        if self._log_path is not None:
            self._read(task_id, self._log_path)

    @work(thread=True, exclusive=True, group="log", exit_on_error=False)
    def _read(self, task_id: str, log_path: Callable[[str], Path]) -> None:
        with self._lock:
            reset = False
            if self._tail is None or self._tail_task != task_id:
                if self._tail is not None:
                    self._tail.close()
                self._tail = LineTail(log_path(task_id))
                self._tail_task = task_id
                reset = True
            chunk = self._tail.read()
        lines = [line.decode("utf-8", errors="replace") for line in chunk.lines]
        self.post_message(self.Read(self, task_id, lines, reset or chunk.reset))

    @on(Read)
    def _lines_read(self, message: Read) -> None:
        message.stop()
        if message.task_id == self._wanted:
            self.show(message.task_id, message.lines, message.reset)

    def on_unmount(self) -> None:
        with self._lock:
            if self._tail is not None:
                self._tail.close()
                self._tail = None

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
