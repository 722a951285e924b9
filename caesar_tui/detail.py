"""What the detail tabs of the selected task show, read off the app's thread.

:class:`DetailLoader` refreshes the Questions pane and reads the report at once, and the diff
and the raw log only while their tab is open; each read is an exclusive thread worker of the
app (groups ``report``, ``diff``, ``log``), so a newer request cancels an older one. The log
is followed by a :class:`~caesar_core.events.tail.LineTail` kept between reads.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from caesar_core.errors import CaesarError
from caesar_core.events.tail import LineTail
from caesar_core.protocol.documents import read_report
from caesar_core.protocol.report import Report
from caesar_core.store.record import TaskRecord
from caesar_core.watch import TaskView
from caesar_tui.messages import DiffReady
from caesar_tui.widgets.diff_view import DiffView
from caesar_tui.widgets.log_view import LogView
from caesar_tui.widgets.questions import QuestionsPane
from caesar_tui.widgets.report_view import ReportView

if TYPE_CHECKING:
    from collections.abc import Callable

    from caesar_tui.app import CaesarApp


class DetailLoader:
    """The detail tabs' readers for one app; the workers are the app's."""

    def __init__(self, app: CaesarApp) -> None:
        self.app = app
        self._log_tail: LineTail | None = None
        self._log_task: str | None = None

    def _work(self, group: str, name: str, read: Callable[[], None]) -> None:
        """Like ``@work(thread=True, group=group, exclusive=True, exit_on_error=False)``."""
        self.app.run_worker(
            read, name=name, group=group, exclusive=True, exit_on_error=False, thread=True
        )

    def refresh(self, task_id: str) -> None:
        view = self.app.views.get(task_id)
        if view is None:
            return
        self.app._main(QuestionsPane).show(view)
        self._work("report", "load_report", partial(self._load_report, view))
        active = self.app._main(TabbedContent).active
        if active == "diff":
            self._work("diff", "load_diff", partial(self._load_diff, view.record))
        if active == "log":
            self._work("log", "load_log", partial(self._load_log, task_id))

    def _load_report(self, view: TaskView) -> None:
        app = self.app
        report: Report | None
        try:
            report = read_report(app.source.monitor.store.paths(view.id).report)
        except (OSError, ValueError, CaesarError):
            report = None
        app.call_from_thread(app._main(ReportView).show, view, report)

    def _load_diff(self, record: TaskRecord) -> None:
        try:
            diff = self.app.diff_provider(record)
            self.app.post_message(DiffReady(record.id, diff))
        except (CaesarError, OSError) as error:
            self.app.post_message(DiffReady(record.id, None, str(error)))

    def diff_ready(self, message: DiffReady, selected_id: str | None) -> None:
        if message.task_id == selected_id:
            if message.error:
                self.app.notify(message.error, title="Diff", severity="error")
            self.app._main(DiffView).show(message.task_id, message.diff)

    def _load_log(self, task_id: str) -> None:
        app = self.app
        reset = False
        if self._log_task != task_id or self._log_tail is None:
            if self._log_tail is not None:
                self._log_tail.close()
            self._log_tail = LineTail(app.source.monitor.store.paths(task_id).raw_log)
            self._log_task = task_id
            reset = True
        chunk = self._log_tail.read()
        lines = [line.decode("utf-8", errors="replace") for line in chunk.lines]
        app.call_from_thread(app._main(LogView).show, task_id, lines, reset or chunk.reset)

    def close(self) -> None:
        if self._log_tail is not None:
            self._log_tail.close()
