"""The app over the fixed scene with one tool call held for approval: the tree marks the
helper as waiting, and its Questions tab shows the approval card (focused with ``a``, so the
footer offers ``y`` allow / ``n`` deny) above its pending question.

A scene of its own (``scene_app(with_approval=True)``) so the other baselines stay as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from snapshots.scene import HELPER, scene_app
from snapshots.test_app_snapshot import SIZE, steps


def test_approval_card(snap_compare: Any, tmp_path: Path) -> None:
    app = scene_app(tmp_path / "project", with_approval=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("a", select=HELPER))
