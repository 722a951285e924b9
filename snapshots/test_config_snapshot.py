"""An SVG snapshot of ``caesar config``: the policy tab, each value with the layer that set it.

Deterministic: the layers are written by the test (the global one in tmp_path), no agent CLI
is on PATH (the demo agent runs from the interpreter's full path), and the project's layer is
shown relative to the project. Update with ``--snapshot-update`` only after looking at it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from caesar_tui.config_app import ConfigApp

SIZE = (110, 24)


async def settled(pilot: Pilot[Any]) -> None:
    from textual.widgets import DataTable

    app = pilot.app
    for _ in range(200):
        busy = [worker for worker in app.workers if not worker.is_finished]
        tables = list(app.query("#agents-table").results(DataTable))
        if not busy and tables and tables[0].row_count:
            break
        await pilot.pause(0.02)
    await pilot.press("3")
    await pilot.pause()


def test_config_policy(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    root = tmp_path / "shop"
    (root / ".caesar").mkdir(parents=True)
    (root / ".caesar" / "config.toml").write_text(
        '# the team\'s\n[policy]\ndenied = ["codex"]\nmax_parallel = 3\n'
    )
    (root / ".caesar" / "config.local.toml").write_text('[policy]\ndefault_timeout = "20m"\n')
    home = tmp_path / "xdg"
    (home / "caesar").mkdir(parents=True)
    (home / "caesar" / "config.toml").write_text("[policy]\nmax_depth = 1\n")
    app = ConfigApp(root, config_home=home)
    assert snap_compare(app, terminal_size=SIZE, run_before=settled)
