"""Fixtures for the live tests: a git repository (from the runner tests) and model servers."""

from __future__ import annotations

from tests.runner.conftest import repo

__all__ = ["repo"]
