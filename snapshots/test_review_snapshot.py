"""The Diff tab as a review screen over the fixed scene: hunks chosen and not, lines being
chosen, the side-by-side view, and the confirmation of an apply (files, hunks, the checks).

Deterministic like every snapshot here (snapshots/scene.py: fixed ids, times, canned diff).
The first is the README's screenshot of the review screen (screenshots/generate.py), and
``test_comments`` its screenshot of review comments on a task sent back for a second turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from snapshots.scene import IMPLEMENTER, TURN_2, scene_app
from snapshots.test_app_snapshot import steps

SIZE = (170, 40)
"""Wider than the other screens: review wants the width (side by side needs 80 columns)."""

REVIEW = ("3", "enter", "enter")
"""The Diff tab, its file list, then its text: where the review keys act."""

SCENES: dict[str, tuple[str, ...]] = {
    # The second hunk deselected: its checkbox, its gutter, the file's counts; the first
    # hunk's word-level highlight (``split("=", 1)``).
    "hunk_deselected": (*REVIEW, "right_square_bracket", "space", "left_square_bracket"),
    "lines_chosen": (*REVIEW, "v", "j", "j"),
    "side_by_side": (*REVIEW, "s"),
    "apply_confirmation": (*REVIEW, "right_square_bracket", "space", "A"),
}


@pytest.mark.parametrize("name", list(SCENES))
def test_review(snap_compare: Any, tmp_path: Path, name: str) -> None:
    app = scene_app(tmp_path / "project")
    assert snap_compare(
        app, terminal_size=SIZE, run_before=steps(*SCENES[name], select=IMPLEMENTER)
    )


COMMENTS = REVIEW
"""The second turn's Diff tab, its text: its comments under their lines."""


def test_comments(snap_compare: Any, tmp_path: Path) -> None:
    """A task's two turns in the tree; in the second's diff (the whole work), a comment made
    on turn 1 that turn 2 addressed, and an open one."""
    app = scene_app(tmp_path / "project", with_turns=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*COMMENTS, select=TURN_2))
