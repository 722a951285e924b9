"""What a follow-up turn of a task is told about its review: the reviewer's open comments, the
hunks they rejected, the checks that failed.

``followup_hunk`` turns a hunk the record keeps (``caesar reject``) into what the task file
carries (``protocol.task.FollowUpHunk``); each ``*_section`` renders the brief's section from
the task file, a pure function like the brief itself (``agents/brief.py``). What is quoted
comes from the agent's own work (its code, its tests' output), so control characters are
escaped (a NUL would even stop the command line the brief travels on) and each block is fenced
longer than any backtick run inside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from caesar_core.humanize import clip
from caesar_core.protocol.task import FollowUpCheck, FollowUpComment, FollowUpHunk
from caesar_core.store.record import RejectedHunk, TaskRecord
from caesar_core.terminal import safe_text

MAX_SHOWN = 50
"""How many rejected hunks the section quotes; the rest are counted."""
HUNK_LINES = 120
"""Lines of one rejected hunk the task file carries."""
LINE_CHARS = 400
CHECK_OUTPUT = 4_000
"""Characters of a failed check's output carried: its end, where the failures are."""

_BACKTICKS = re.compile(r"`{3,}")


def followup_hunk(hunk: RejectedHunk) -> FollowUpHunk:
    """A rejected hunk as the follow-up turn's task file carries it: lines without their
    endings, clipped to ``HUNK_LINES`` of ``LINE_CHARS``."""
    lines = [clip(line.rstrip("\r\n"), LINE_CHARS) for line in hunk.lines[:HUNK_LINES]]
    return FollowUpHunk(
        path=hunk.path,
        header=hunk.header,
        reason=hunk.reason,
        lines=lines,
        rejected_lines=hunk.rejected_lines,
    )


def rejected_hunks(record: TaskRecord) -> list[FollowUpHunk]:
    """The hunks a reviewer rejected out of the turn's work (``caesar reject``), with why."""
    return [followup_hunk(hunk) for hunk in record.rejected_hunks if hunk.path]


def failed_checks(record: TaskRecord) -> list[FollowUpCheck]:
    """The checks caesar ran on the turn's work (``[review] checks``) that did not pass."""
    if record.checks is None:
        return []
    found: list[FollowUpCheck] = []
    for result in record.checks.failed:
        if result.error:
            outcome = f"not run: {result.error}"
        elif result.timed_out:
            outcome = "timed out"
        else:
            outcome = "no exit code" if result.exit_code is None else f"exit {result.exit_code}"
        output = result.output_tail[-CHECK_OUTPUT:]
        found.append(FollowUpCheck(command=result.command, outcome=outcome, output=output))
    return found


def comments_section(comments: Sequence[FollowUpComment]) -> str:
    """``## Review comments`` with each comment and the code it is on, or "" when none."""
    if not comments:
        return ""
    items = [
        f"- `{clean(c.path)}` {_lines(c.start_line, c.end_line)}: {clean(c.text)}"
        + (_indented(fenced("\n".join(c.code))) if c.code else "")
        for c in comments
    ]
    return "## Review comments\n\nOpen comments on your work:\n\n" + "\n".join(items)


def rejected_section(rejected: Sequence[FollowUpHunk]) -> str:
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
        why = f": {clean(hunk.reason)}" if hunk.reason.strip() else ""
        lines = [hunk.header, *hunk.lines] if hunk.header else hunk.lines
        block = fenced("\n".join(lines), "diff") if hunk.lines else f"({clean(hunk.header)})"
        parts.append(f"- `{clean(hunk.path)}`{which}{why}\n\n{block}")
    if len(rejected) > MAX_SHOWN:
        parts.append(f"...and {len(rejected) - MAX_SHOWN} more rejected hunks.")
    return "\n\n".join(parts)


def checks_section(checks: Sequence[FollowUpCheck]) -> str:
    """``## Failing checks``: each check caesar ran that failed, with the end of its output."""
    if not checks:
        return ""
    blocks = [
        f"### `{clean(c.command)}`{f' ({clean(c.outcome)})' if c.outcome else ''}"
        + (f"\n\n{fenced(c.output)}" if c.output.strip() else "")
        for c in checks
    ]
    intro = "caesar ran the project's checks on the work; these failed (end of output):"
    return "## Failing checks\n\n" + intro + "\n\n" + "\n\n".join(blocks)


def clean(text: str) -> str:
    """Text from the work (code, test output, an agent's objective): controls escaped."""
    return safe_text(text.strip("\n"), lines=True)


def fenced(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    body = clean(text)
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _lines(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _indented(block: str) -> str:
    return "\n" + "\n".join(f"  {line}" if line else "" for line in block.split("\n"))


def _spans(hunk: FollowUpHunk) -> str:
    numbers = sorted(hunk.rejected_lines or [])
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
