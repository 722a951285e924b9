"""The project as an observer sees it, kept current by reading only what changed."""

from __future__ import annotations

from caesar_core.watch.monitor import ProjectMonitor, TaskView, WatchedDir

__all__ = ["ProjectMonitor", "TaskView", "WatchedDir"]
