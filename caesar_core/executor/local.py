"""The local executor: the agent runs on this machine, by ``runner.engine`` (what ``caesar
run`` has always done), in this process."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from caesar_core.executor.base import Executor

if TYPE_CHECKING:
    from caesar_core.runner.delegation import Request
    from caesar_core.runner.engine import Runner
    from caesar_core.runner.outcome import Outcome, Prepared
    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore


class LocalExecutor(Executor):
    kind = "local"

    def __init__(self, store: TaskStore, runner: Runner | None = None) -> None:
        super().__init__(store)
        self._runner = runner
        self._prepared: dict[str, Prepared] = {}

    @property
    def runner(self) -> Runner:
        if self._runner is None:
            from caesar_core.config import load_config
            from caesar_core.runner.engine import Runner

            self._runner = Runner(self.store.root, load_config(self.store.root))
        return self._runner

    def start(
        self, request: Request, workspace: Path, *, continues: str | None = None, message: str = ""
    ) -> str:
        if continues is None:
            prepared = self.runner.prepare(request, workspace)
        else:
            prepared = self.runner.prepare_followup(
                continues, message, timeout_ms=request.timeout_ms
            )
        self._prepared[prepared.task.id] = prepared
        return prepared.task.id

    def wait(self, task_id: str, *, interrupted: Callable[[], bool] = lambda: False) -> Outcome:
        return self.runner.execute(self._prepared.pop(task_id), interrupted=interrupted)

    def deliver(self, record: TaskRecord, question_id: str) -> None:
        """The agent reads the very mailbox the answer was written to."""

    def cancel(self, record: TaskRecord) -> None:
        from caesar_core.runner.control import stop_task

        stop_task(record)

    def recover(self, record: TaskRecord) -> None:
        from caesar_core.runner.sweep import conclude_abandoned

        conclude_abandoned(self.store, record, now=datetime.now(UTC))
