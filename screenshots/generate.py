"""Regenerate the README's screens (``make screenshots``): the app over the fixed scene of
``snapshots/scene.py``, rendered headlessly to SVG, one file per screen."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.pilot import Pilot

from snapshots.scene import HELPER, IMPLEMENTER, REVIEWER, TURN_2, scene_app
from snapshots.test_app_snapshot import SIZE, steps
from snapshots.test_review_snapshot import COMMENTS
from snapshots.test_review_snapshot import SCENES as REVIEW_SCENES
from snapshots.test_review_snapshot import SIZE as REVIEW_SIZE

SCREENS = {
    "tree-activity": (("1",), IMPLEMENTER, False),
    "questions": (("2",), HELPER, False),
    "diff": (("3",), IMPLEMENTER, False),
    "report": (("4",), REVIEWER, False),
    "help": (("question_mark",), IMPLEMENTER, False),
    "approval": (("a",), HELPER, True),
    "review": (REVIEW_SCENES["hunk_deselected"], IMPLEMENTER, False),
    "comments": (COMMENTS, TURN_2, False),
}
"""name -> (keys pressed, task selected, a tool call held for approval in the scene)."""

SIZES = {"review": REVIEW_SIZE, "comments": REVIEW_SIZE}
"""Screens wider than ``SIZE``: the review wants the width."""

WITH_TURNS = {"comments"}
"""Screens over the scene with a task sent back for a second turn (``scene.add_turns``)."""


def render(name: str, keys: tuple[str, ...], select: str, approval: bool, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="caesar-screens-") as tmp:
        app = scene_app(
            Path(tmp) / "project", with_approval=approval, with_turns=name in WITH_TURNS
        )

        shots: list[str] = []

        async def auto(pilot: Pilot[object]) -> None:
            await steps(*keys, select=select)(pilot)
            shots.append(app.export_screenshot(title=f"caesar watch: {name}"))
            app.exit()

        app.run(headless=True, auto_pilot=auto, size=SIZES.get(name, SIZE))
    (out / f"{name}.svg").write_text(shots[0])
    print(f"wrote screenshots/{name}.svg")


def main() -> None:
    out = Path(__file__).parent
    for name, (keys, select, approval) in SCREENS.items():
        render(name, keys, select, approval, out)


if __name__ == "__main__":
    main()
