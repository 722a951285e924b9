"""The follow-up brief's section on rejected hunks, from the hunks the record keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from caesar_core.review.followup import followup_hunk, rejected_section
from caesar_core.review.hunks import HunkLine, make_hunk
from caesar_core.store.record import rejected_hunk

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def test_rejected_hunks_are_quoted_with_the_reason() -> None:
    hunk = make_hunk(
        "app.py",
        "@@ -1,2 +1,2 @@",
        1,
        2,
        1,
        2,
        [HunkLine(" ", "def f():\n"), HunkLine("-", "    return 1\n"), HunkLine("+", "    x")],
    )
    whole = rejected_hunk(hunk, frozenset({1, 2}), "keep the old value", NOW)
    part = rejected_hunk(hunk, frozenset({2}), "", NOW)
    text = rejected_section([followup_hunk(whole), followup_hunk(part)])
    assert text.startswith("## Changes the reviewer rejected\n")
    assert "- `app.py`: keep the old value\n\n```diff\n@@ -1,2 +1,2 @@\n def f():\n" in text
    assert "-    return 1\n+    x\n```" in text
    assert "- `app.py` (changed lines 2)\n" in text
    assert rejected_section([]) == ""
