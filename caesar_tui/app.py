"""``caesar watch``: every task of a project, live, with the means to act on them.

The app holds what is global: the project source and its watcher, the clock, the keys that
work everywhere (quit, help) and the keymap, and how a person is alerted (a toast; the bell
and a desktop notification for a task not on screen). Everything about tasks is the
:class:`~caesar_tui.screens.main.MainScreen`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App
from textual.binding import BindingType
from textual.screen import Screen

from caesar_core.store.record import TaskRecord
from caesar_core.store.tree import build_tree, walk_tree
from caesar_tui import milestones
from caesar_tui.clock import Clock, system_clock
from caesar_tui.keys import bind
from caesar_tui.messages import Announced
from caesar_tui.notify import notification
from caesar_tui.screens.main import MainScreen
from caesar_tui.source import ProjectSource
from caesar_tui.widgets.activity import ActivityView
from caesar_tui.widgets.approvals import ApprovalCard
from caesar_tui.widgets.questions import QuestionForm, QuestionsPane
from caesar_tui.widgets.task_tree import TaskTree
from caesar_tui.workers import WorkerFailures

if TYPE_CHECKING:
    from caesar_core.git import TreeDiff
    from caesar_tui.modals.help import HelpSection
    from caesar_tui.widgets.diff_view import DiffProvider

FIRST_FRAME_WAIT_S = 2.0
"""How long the rest of the project waits for the first frame to be drawn."""

Terminal = Callable[[str], None]
"""Writes an escape sequence to the terminal, between frames."""


def compute_diff(record: TaskRecord) -> TreeDiff | None:
    from caesar_core.runner.taskdiff import task_diff  # pygit2: when a diff is first asked for

    return task_diff(record, with_patch=True)


class CaesarApp(WorkerFailures, App[None]):
    TITLE = "caesar"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        bind("quit", "quit", "Quit", help="quit"),
        bind("help", "help", "Help", help="this help"),
    ]

    @classmethod
    def help_sections(cls) -> tuple[HelpSection, ...]:
        """What the help lists after the keys that work everywhere (the app's and the main
        screen's): each section's bindings, read from the classes that bind them (the help
        the comments list and the Diff tab's classes imported when the help is first opened)."""
        from caesar_tui.modals.comments import CommentsModal
        from caesar_tui.modals.help import HelpSection
        from caesar_tui.widgets.diff_files import DiffFileList
        from caesar_tui.widgets.diff_text import DiffText
        from caesar_tui.widgets.diff_view import DiffView

        return (
            HelpSection("the task list", (TaskTree,)),
            HelpSection("the Activity tab", (ActivityView,)),
            HelpSection("a held tool call (Questions tab, after a)", (ApprovalCard,)),
            HelpSection("a question (Questions tab)", (QuestionForm, QuestionsPane)),
            HelpSection(
                "the Diff tab: review by file, hunk and line", (DiffView, DiffFileList, DiffText)
            ),
            HelpSection("the list of comments (C)", (CommentsModal,)),
        )

    def __init__(
        self,
        source: ProjectSource,
        *,
        clock: Clock = system_clock,
        diff_provider: DiffProvider = compute_diff,
        notify: bool = True,
        keys: Mapping[str, str] | None = None,
        terminal: Terminal | None = None,
        environ: Mapping[str, str] | None = None,
        freeze_gc: bool = False,
    ) -> None:
        """Args:
        source: The project, watched.
        clock: The one clock of the app (tests and snapshots fix it).
        diff_provider: Computes a task's diff.
        notify: Alert (bell, desktop notification) for news of a task not on screen.
        keys: ``[watch.keys]``: keys by action id, replacing the defaults.
        terminal: Where escape sequences go (default: the terminal, through the driver).
        environ: The environment that says which terminal this is (default: ``os.environ``).
        freeze_gc: Once the project is read, move what is alive out of the cyclic garbage
            collector's way (``gc.freeze``): a full collection over a thousand tasks' state
            stalls the screen for hundreds of milliseconds. ``caesar watch`` sets it, and
            pauses the collector while it starts: the app resumes it once the first frame is
            drawn. An app in a test leaves it off (it would pin its process's garbage).
        """
        super().__init__()
        self.source = source
        self.clock = clock
        self.diff_provider = diff_provider
        self.alerts = notify
        self.keys = dict(keys or {})
        self._terminal = terminal
        self.environ = os.environ if environ is None else environ
        self.freeze_gc = freeze_gc
        self.main = MainScreen(
            source.files,
            clock=clock,
            diff_provider=diff_provider,
            project=source.root.name,
            keys=self.keys,
        )
        self.set_keymap(self.keys)
        self._read_before = False
        """The first scan was read before the app ran (:meth:`read_first`) and handed to the
        screen, which shows it in the first frame it draws."""

    @property
    def loaded(self) -> asyncio.Event:
        """Set once the first scan is on screen."""
        return self.main.loaded

    def read_first(self, rows: int) -> None:
        """Read the first scan now, before the app runs (blocking), and the recent activity of
        the task shown first: the first frame then shows the project (the tree, the selected
        task) instead of an empty screen drawn first and drawn again once the scan is read.
        ``rows``: the terminal's height, the logs read first (those of the tasks on screen).
        A scan that fails is left to the app's own (:meth:`follow_project`), which fails the
        same way and says so on screen, as before."""
        try:
            first = self.source.initial(max(rows, 1))
        except Exception:  # read again by the app, whose worker reports it
            return
        # The task the screen shows first is the tree's first; its recent activity is read
        # now too (a read that fails is left to the Activity tab's worker, which tells why).
        order = walk_tree(build_tree(view.record for view in first.views.values()))
        shown = next((record.id for _, record in order), None)
        history = None
        if shown is not None:
            with contextlib.suppress(Exception):
                history = (shown, self.source.files.history(shown))
        self.main.show_first(first, history)
        self._read_before = True

    def get_default_screen(self) -> MainScreen:
        return self.main

    def on_mount(self) -> None:
        self.follow_project()

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def follow_project(self) -> None:
        """The first scan (the logs of the tasks a screen shows), then the other logs and what
        changes on disk; reading happens in threads."""
        if not self._read_before:
            first = await asyncio.to_thread(self.source.initial, max(self.size.height, 1))
            self.main.post_message(first)
        self._settle()
        # The rest of the project once the first screen is drawn (reading it meanwhile would
        # take the interpreter from the drawing), or after a while if drawing is held up.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.main.painted.wait(), FIRST_FRAME_WAIT_S)
        self._settle()
        if self.freeze_gc:
            gc.enable()  # paused by `caesar watch` until the first frame (see freeze_gc)
        complete = False
        async for update in self.source.updates():
            if update.views:
                self.main.post_message(update)
            if not complete and self.source.complete:
                complete = True
                self.call_after_refresh(self._settle)
                milestones.mark("read")

    def _settle(self) -> None:
        """What is alive now lives long: out of the collector's way (``freeze_gc``)."""
        if self.freeze_gc:
            gc.freeze()

    @on(Announced)
    def _announced(self, message: Announced) -> None:
        news = message.news
        self.notify(news.text, title=news.title, severity=news.severity, markup=False)
        if self.alerts and not message.on_screen:
            self.bell()
            self.write_to_terminal(notification(f"caesar: {news.title}", news.text, self.environ))

    def write_to_terminal(self, sequence: str) -> None:
        """An escape sequence to the terminal (a desktop notification), between frames."""
        if self._terminal is not None:
            self._terminal(sequence)
        elif self._driver is not None:
            self._driver.write(sequence)

    def action_help(self) -> None:
        from caesar_tui.modals.help import HelpModal, HelpSection

        everywhere = HelpSection("everywhere", (type(self), MainScreen, Screen))
        sections = (everywhere, *self.help_sections())
        self.push_screen(HelpModal.of_bindings(sections, self.keys, self.get_key_display))

    async def on_unmount(self) -> None:
        self.source.close()


def make_app(
    root: Path,
    *,
    only: tuple[str, ...] = (),
    poll: bool = False,
    clock: Clock = system_clock,
    diff_provider: DiffProvider = compute_diff,
    notify: bool = True,
    keys: Mapping[str, str] | None = None,
    terminal: Terminal | None = None,
    environ: Mapping[str, str] | None = None,
    freeze_gc: bool = False,
) -> CaesarApp:
    return CaesarApp(
        ProjectSource(root, only=only, poll=poll, clock=clock),
        clock=clock,
        diff_provider=diff_provider,
        notify=notify,
        keys=keys,
        terminal=terminal,
        environ=environ,
        freeze_gc=freeze_gc,
    )
