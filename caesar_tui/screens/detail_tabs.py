"""The detail tabs the first frame does not show: the Diff, Report and Log tabs' views, each
made (and its modules imported) when its tab is first shown, and what the open one loads.

The first frame shows the Activity tab: composing, styling and drawing the other views (and
importing what draws a diff) before it was a tenth of ``caesar watch``'s start. The main
screen owns one :class:`DetailTabs`; until a tab has been shown its view does not exist, so
nothing can act on it (the Diff tab's selection is none, a diff to read again is not shown).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabPane

from caesar_core.store.record import TaskRecord
from caesar_core.watch import TaskView
from caesar_tui.source import TaskFiles

if TYPE_CHECKING:
    from caesar_core.review.comments import Comments
    from caesar_tui.widgets.diff_view import DiffProvider, DiffView
    from caesar_tui.widgets.log_view import LogView
    from caesar_tui.widgets.report_view import ReportView

_View = TypeVar("_View", bound=Widget)


class DetailTabs:
    """The Diff, Report and Log tabs of ``screen`` (panes ``#diff``, ``#report``, ``#log``)."""

    def __init__(
        self,
        screen: Screen[None],
        files: TaskFiles,
        diff_provider: DiffProvider,
        read_comments: Callable[[TaskRecord], Comments],
    ) -> None:
        self._screen = screen
        self._files = files
        self._diff_provider = diff_provider
        self._read_comments = read_comments
        self._diff: DiffView | None = None
        self._report: ReportView | None = None
        self._log: LogView | None = None

    def load(self, pane: str, view: TaskView) -> None:
        """What the open tab ``pane`` shows of ``view``'s task, its view made if it was not."""
        if pane == "diff":
            self.diff().load(view.record)
        elif pane == "report":
            self.report().load(view)
        elif pane == "log":
            self.log().load(view.id)

    def showing_diff(self, task_id: str) -> DiffView | None:
        """The Diff tab's view if it shows ``task_id``'s diff (None: another's, or none, or
        the tab was never opened)."""
        view = self._diff
        return view if view is not None and view.task_id == task_id else None

    def diff(self) -> DiffView:
        if self._diff is None:
            from caesar_tui.widgets.diff_view import DiffView

            made = DiffView(self._diff_provider, self._read_comments, id="diff-view")
            self._diff = self._mount("diff", made)
        return self._diff

    def report(self) -> ReportView:
        if self._report is None:
            from caesar_tui.widgets.report_view import ReportView

            self._report = self._mount("report", ReportView(self._files.report, id="report-view"))
        return self._report

    def log(self) -> LogView:
        if self._log is None:
            from caesar_tui.widgets.log_view import LogView

            self._log = self._mount("log", LogView(self._files.raw_log, id="log-view"))
        return self._log

    def _mount(self, pane: str, view: _View) -> _View:
        self._screen.query_one(f"#{pane}", TabPane).mount(view)
        return view
