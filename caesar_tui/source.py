"""Where the app's data comes from: the project on disk, watched, read by offset.

A ``ProjectSource`` owns a :class:`~caesar_core.watch.ProjectMonitor`. All its reading happens
in a thread (``asyncio.to_thread``), and the app receives immutable views in a
:class:`~caesar_tui.messages.ProjectUpdated`; the monitor is never touched by two threads.
The first update reads only the logs of the tasks a first screen shows; the others are read
a few at a time afterwards, whenever no change on disk is waiting.
What the detail panes read of one task (its recent events, its report, its raw log) goes
through :class:`TaskFiles`, which any thread may call.
"""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from caesar_core.errors import CaesarError
from caesar_core.protocol.documents import read_shown_report
from caesar_core.protocol.event import Event
from caesar_core.protocol.report import Report
from caesar_core.watch import ProjectMonitor, TaskView
from caesar_tui import inotify
from caesar_tui.clock import Clock, system_clock
from caesar_tui.messages import ProjectUpdated

DEBOUNCE_MS = 40
"""watchfiles batches changes within this window; well under the 100 ms latency goal."""
CATCH_UP = "<catch up>"
"""In a batch from ``changes``: read every task again (what was written before the watcher
started), not a path."""
READ_MORE = 25
"""Logs read per step once the first screen is up (``ProjectMonitor.read_more``): a step holds
the reading thread for tens of milliseconds, so a change on disk waits at most that long."""


class TaskFiles:
    """What the detail panes read of one task, straight from its directory (any thread)."""

    def __init__(self, monitor: ProjectMonitor) -> None:
        self.monitor = monitor
        self.store = monitor.store

    def history(self, task_id: str) -> list[Event]:
        """The task's last events, read from the end of its log: cost set by the count."""
        return self.monitor.history(task_id)

    def report(self, task_id: str) -> Report | None:
        """The task's report; None until it has a valid one."""
        try:
            return read_shown_report(self.store.paths(task_id).report)
        except (OSError, ValueError, CaesarError):
            return None

    def raw_log(self, task_id: str) -> Path:
        return self.store.paths(task_id).raw_log


class ProjectSource:
    """The project, watched: the first scan, then what each batch of changed paths changed."""

    def __init__(
        self,
        root: Path,
        *,
        only: Iterable[str] = (),
        poll: bool = False,
        clock: Clock = system_clock,
    ) -> None:
        self.root = root
        self.poll = poll
        self.clock = clock
        self.monitor = ProjectMonitor(root, only=only)
        self.files = TaskFiles(self.monitor)
        self.caught_up = False
        """What was written before the watcher started has been read (``CATCH_UP``)."""

    def _collect(self, ids: set[str], *, full: bool = False) -> ProjectUpdated:
        now = self.clock()
        views: dict[str, TaskView] = {}
        events: dict[str, list[Event]] = {}
        resets: set[str] = set()
        for task_id in ids:
            views[task_id] = self.monitor.view(task_id, now)
            fresh, reset = self.monitor.take_fresh(task_id)
            events[task_id] = fresh
            if reset:
                resets.add(task_id)
        return ProjectUpdated(views, events, resets, full)

    def initial(self, first: int | None = None) -> ProjectUpdated:
        """Everything, once (blocking: call it from a thread); with ``first``, the logs of the
        first ``first`` tasks in tree order only, the others read by :meth:`updates`."""
        return self._collect(self.monitor.scan(first=first), full=True)

    def read_more(self) -> ProjectUpdated:
        """The next few logs the first scan left unread (blocking: call it from a thread)."""
        return self._collect(self.monitor.read_more(READ_MORE))

    @property
    def complete(self) -> bool:
        """Every task's log has been read once, and what was written before the watcher
        started too."""
        return self.caught_up and not self.monitor.unread

    async def updates(self) -> AsyncIterator[ProjectUpdated]:
        """What changes on disk, as updates; between batches of changes, the logs the first
        scan left unread. Batches that arrive while one is read are read together."""
        batches: asyncio.Queue[set[str]] = asyncio.Queue()

        async def watch() -> None:
            async for paths in self.changes():
                batches.put_nowait(paths)

        watching = asyncio.ensure_future(watch())
        try:
            while True:
                if batches.empty() and not self.complete:
                    update = await asyncio.to_thread(self.read_more)
                else:
                    waiting = asyncio.ensure_future(batches.get())
                    try:
                        await asyncio.wait({waiting, watching}, return_when=FIRST_COMPLETED)
                    finally:
                        waiting.cancel()
                    if not waiting.done() or waiting.cancelled():
                        watching.result()  # the watcher's error, if it failed
                        return
                    paths = waiting.result()
                    while not batches.empty():
                        paths |= batches.get_nowait()
                    update = await asyncio.to_thread(self.apply, paths)
                yield update
        finally:
            watching.cancel()

    def apply(self, paths: Iterable[str]) -> ProjectUpdated:
        """What a batch of changed paths changed (blocking: call it from a thread)."""
        paths = set(paths)
        if CATCH_UP in paths:
            self.caught_up = True
            return self._collect(self.monitor.catch_up() | self.monitor.refresh(paths - {CATCH_UP}))
        return self._collect(self.monitor.refresh(paths))

    async def changes(self) -> AsyncIterator[set[str]]:
        """Batches of changed paths under ``.caesar``, from file notifications (or polling).

        A directory that is not a project yet (no ``.caesar``, no ``.git``) is not littered
        with one: the root itself is watched until a first task creates ``.caesar``.
        Notifications come from Linux's inotify where it works (``caesar_tui.inotify``: at
        once, and nothing runs while nothing changes), else from ``watchfiles``.
        """
        from watchfiles import awatch

        store = self.monitor.store
        if not store.home.exists() and not (self.root / ".git").exists():
            async for _ in awatch(
                self.root,
                debounce=DEBOUNCE_MS,
                recursive=False,
                force_polling=self.poll or None,
                poll_delay_ms=100,
            ):
                if store.home.exists():
                    break
        # Only the task directories, the records and the approvals' answers: worktrees also
        # live under .caesar, and an agent's npm install there must not flood the app.
        watched = [store.tasks_dir, store.records_dir, store.approval_answers_dir]
        for directory in watched:
            await asyncio.to_thread(directory.mkdir, parents=True, exist_ok=True)
        if not self.poll and inotify.available():
            async for batch in self._notified():
                yield batch
            # The kernel would not watch them all (its limit): watchfiles, from a catch-up.
        stream = awatch(
            *watched,
            debounce=DEBOUNCE_MS,
            step=10,
            force_polling=self.poll or None,
            poll_delay_ms=100,
            recursive=True,
        )
        # The watcher first, then the catch-up read: the other order loses whatever is
        # written between the two (a burst of events right after the first scan stayed
        # unseen until the next change). awatch registers its watches in its first step.
        first = asyncio.ensure_future(anext(stream))
        try:
            await asyncio.sleep(0)
            yield {CATCH_UP}
            yield {path for _, path in await first}
            async for changed in stream:
                yield {path for _, path in changed}
        finally:
            first.cancel()
            await stream.aclose()

    async def _notified(self) -> AsyncIterator[set[str]]:
        """What inotify tells, from a catch-up once its watches are in place; ends (for the
        caller to carry on another way) if a directory cannot be watched."""
        roots = [
            inotify.Root(watched.path, watched.depth, watched.wanted)
            for watched in self.monitor.watched_dirs()
        ]
        try:
            notifier = await asyncio.to_thread(inotify.Inotify, roots)
        except inotify.WatchError:
            return
        stream = notifier.batches()
        try:
            yield {CATCH_UP}
            async for paths in stream:
                if inotify.OVERFLOW in paths:  # changes were lost: read everything again
                    yield (paths - {inotify.OVERFLOW}) | {CATCH_UP}
                else:
                    yield paths
        except inotify.WatchError:
            return
        finally:
            await stream.aclose()  # off the event loop before the descriptor is closed
            notifier.close()

    def close(self) -> None:
        self.monitor.close()
