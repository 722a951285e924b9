"""The TUI tests share the runner tests' real repository fixture."""

from __future__ import annotations

from tests.runner.conftest import repo

__all__ = ["repo"]
