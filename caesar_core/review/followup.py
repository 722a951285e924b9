"""What a follow-up turn of a task is told about the hunks a reviewer rejected.

``rejected_section`` renders the record's rejected hunks (``caesar reject``) as a brief
section: each hunk's file, its header, the reviewer's reason and the lines as the diff showed
them, so the agent neither makes the same change again nor wonders where it went. It is a pure
function of the record, like the brief itself (``agents/brief.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from caesar_core.store.record import RejectedHunk

MAX_SHOWN = 50
"""How many rejected hunks the section quotes; the rest are counted."""


def rejected_section(rejected: Sequence[RejectedHunk]) -> str:
    """``## Changes the reviewer rejected`` with each hunk, or "" when none was."""
    if not rejected:
        return ""
    parts = [
        "## Changes the reviewer rejected",
        "The reviewer reverted these changes out of your worktree. Do not make them again; "
        "if the objective needs them, say why in your report.",
    ]
    for hunk in rejected[:MAX_SHOWN]:
        which = "" if hunk.rejected_lines is None else f" (changed lines {_spans(hunk)})"
        why = f": {hunk.reason.strip()}" if hunk.reason.strip() else ""
        lines = "".join(line if line.endswith("\n") else line + "\n" for line in hunk.lines)
        block = f"```diff\n{hunk.header}\n{lines}```" if lines else f"({hunk.header})"
        parts.append(f"- `{hunk.path}`{which}{why}\n\n{block}")
    if len(rejected) > MAX_SHOWN:
        parts.append(f"...and {len(rejected) - MAX_SHOWN} more rejected hunks.")
    return "\n\n".join(parts) + "\n"


def _spans(hunk: RejectedHunk) -> str:
    numbers = sorted(hunk.rejected_lines or [])
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
