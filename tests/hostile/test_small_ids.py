"""A 100 KB id is refused with a clipped echo, not thrown back whole (case 17 of issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.conftest import BOUND_S, caesar, run_json
from tests.runner.conftest import context

HUGE = "t_" + "x" * 100_000


@pytest.mark.parametrize(
    "command",
    [("logs", HUGE), ("diff", HUGE), ("cancel", HUGE), ("run", "x", "--agent", HUGE[:100_000])],
)
def test_a_huge_id_is_clipped_in_the_refusal(repo: Path, command: tuple[str, ...]) -> None:
    refused = caesar(repo, *command, timeout=BOUND_S)

    assert refused.returncode == 2, refused.stderr
    assert "Traceback" not in refused.stderr
    assert len(refused.stderr) < 2_000
    assert "characters)" in refused.stderr


def test_a_huge_question_id_is_clipped_too(repo: Path) -> None:
    task_id = run_json(repo, "x", "--agent", "demo", "--context", context("quick"))["task_id"]
    refused = caesar(repo, "answer", str(task_id), "q" * 100_000, "yes", timeout=BOUND_S)

    assert refused.returncode == 2, refused.stderr
    assert "invalid question id" in refused.stderr and "100,000 characters" in refused.stderr
    assert len(refused.stderr) < 2_000
