"""Fixtures for the bridge tests: a ``HookWorld`` (a project, its state, ``caesar hook``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bridge.hookkit import HookWorld


@pytest.fixture
def world(tmp_path: Path) -> HookWorld:
    return HookWorld(tmp_path)
