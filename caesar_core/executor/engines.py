"""Which executor runs a task: the one its record names, or the one an address names."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from caesar_core.executor.base import Executor
    from caesar_core.store.record import TaskRecord
    from caesar_core.store.store import TaskStore


def executor_for(store: TaskStore, record: TaskRecord) -> Executor:
    """The executor a task's record names (``executor``; none: this machine's)."""
    return for_address(store, record.executor.address if record.executor else None)


def for_address(store: TaskStore, address: str | None) -> Executor:
    """A Dask scheduler's address: its cluster; None (or ``local``): this machine."""
    if address is not None and address != "local":
        from caesar_core.executor.dask import DaskExecutor

        return DaskExecutor(store, address)
    from caesar_core.executor.local import LocalExecutor

    return LocalExecutor(store)
