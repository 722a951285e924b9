"""The executor seam: where a task runs, behind one interface.

An executor lays a task out here (its record and task directory, so every reader sees it at
once), hands it to its engine, and answers for it until it is concluded:

- ``start``: the task, prepared and handed over; its id comes back at once.
- ``wait``: followed to its conclusion; its events land in its ``events.jsonl`` as written.
- ``deliver``: an answer written here (``caesar answer``, the TUI) reaches the agent.
- ``cancel``: the task stopped where it runs (its process tree, there).
- ``recover``: the process that followed it is gone: reattach to it, or conclude it.

``local`` runs the agent on this machine (``runner.engine``: what ``caesar run`` always did);
``dask`` runs it on a Dask cluster's worker, which runs that same local runner there. Another
engine is one more subclass.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.outcome import Outcome
    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore


class Executor(ABC):
    """Runs the tasks of one project (``store``) somewhere."""

    kind: ClassVar[str]

    def __init__(self, store: TaskStore) -> None:
        self.store = store

    @abstractmethod
    def start(
        self, request: Request, workspace: Path, *, continues: str | None = None, message: str = ""
    ) -> str:
        """Lay the task out here and hand it over; its id. ``continues``: a follow-up turn of
        that task, with the reviewer's ``message``."""

    @abstractmethod
    def wait(self, task_id: str, *, interrupted: Callable[[], bool] = lambda: False) -> Outcome:
        """Follow the task to its conclusion; ``interrupted`` (Ctrl-C) cancels it."""

    @abstractmethod
    def deliver(self, record: TaskRecord, question_id: str) -> None:
        """The answer to ``question_id`` was written here: make it reach the agent."""

    @abstractmethod
    def cancel(self, record: TaskRecord) -> None:
        """Its record says cancelled: stop it where it runs."""

    @abstractmethod
    def recover(self, record: TaskRecord) -> None:
        """The process that followed the task is gone: reattach, or conclude it."""
