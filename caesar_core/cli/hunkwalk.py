"""Hunks in a terminal: ``caesar diff --hunks`` lists them, ``caesar apply --interactive``
walks them like ``git add -p`` (y, n, s to split, q, ? for help).

Every line shown is the agent's text, so it goes through ``safe_text``; changed lines are
numbered 1.. within their hunk, the numbers ``--hunk ID:N-M`` takes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from caesar_core.git.diff import FileChange
from caesar_core.review.hunks import Hunk, Pick, Selection, split
from caesar_core.terminal import quote_path, safe_text

NO_NEWLINE = "\\ No newline at end of file"
HELP = """\
y - apply this hunk
n - do not apply this hunk
s - split this hunk into smaller ones (at its unchanged lines)
q - quit: apply the hunks chosen so far and none of the others
? - print this help"""


def hunk_title(hunk: Hunk) -> str:
    """``h_… path  @@ … @@`` (a whole hunk says what it is, and that it goes whole)."""
    what = f"({hunk.header}: taken or left whole)" if hunk.whole else hunk.header
    return safe_text(f"{hunk.id}  {quote_path(hunk.path)}  {what}")


def hunk_body(hunk: Hunk, span: tuple[int, int] | None = None, context: int = 3) -> list[str]:
    """The hunk's lines, changed ones numbered; with ``span`` only those changed lines and up
    to ``context`` unchanged lines around them."""
    rows: list[tuple[int | None, str, str]] = []
    changed = 0
    for line in hunk.lines:
        number = None
        if line.origin != " ":
            changed += 1
            number = changed
        rows.append((number, line.origin, line.text))
    if span is not None:
        first, last = span
        inside = [i for i, (n, _, _) in enumerate(rows) if n is not None and first <= n <= last]
        low, high = inside[0] - context, inside[-1] + context
        rows = [
            row
            for i, row in enumerate(rows)
            if low <= i <= high and (row[0] is None or first <= row[0] <= last)
        ]
    shown: list[str] = []
    for number, origin, text in rows:
        label = f"{number:>5}" if number is not None else "     "
        body = text[:-1] if text.endswith("\n") else text
        shown.append(safe_text(f"{label} {origin}{body}"))
        if not text.endswith("\n"):
            shown.append(f"        {NO_NEWLINE}")
    return shown


def hunk_listing(changes: Sequence[FileChange], *, with_lines: bool) -> list[str]:
    """Every hunk of ``changes`` with its id (and its numbered lines, ``with_lines``)."""
    out: list[str] = []
    for change in changes:
        for hunk in change.hunks:
            out.append(hunk_title(hunk))
            if with_lines and not hunk.whole:
                out.extend(hunk_body(hunk))
    return out


Ask = Callable[[str], str | None]
"""Show a prompt, return the answer typed (None at the end of input)."""


def walk(
    hunks: Sequence[Hunk], done: Selection, ask: Ask, say: Callable[[str], None]
) -> list[Pick]:
    """Ask about each hunk not applied yet (``done``); the picks answered ``y``."""
    chosen: list[Pick] = []
    todo = [hunk for hunk in hunks if not done.whole(hunk)]
    for skipped in (hunk for hunk in hunks if done.whole(hunk)):
        say(f"{skipped.id} already applied: skipped")
    for index, hunk in enumerate(todo, 1):
        say(hunk_title(hunk))
        if not hunk.whole:
            say("\n".join(hunk_body(hunk)))
        answer = _answer(ask, f"({index}/{len(todo)}) Apply this hunk [y,n,s,q,?]? ", say)
        if answer == "s":
            parts = split(hunk)
            if len(parts) < 2 or hunk.whole:
                say("this hunk cannot be split")
                answer = _answer(ask, f"({index}/{len(todo)}) Apply this hunk [y,n,q,?]? ", say)
            else:
                say(f"split into {len(parts)} parts")
                quit_now = _walk_parts(hunk, parts, index, len(todo), ask, say, chosen)
                if quit_now:
                    return chosen
                continue
        if answer == "q":
            return chosen
        if answer == "y":
            chosen.append(Pick(hunk.id))
    return chosen


def _walk_parts(
    hunk: Hunk,
    parts: list[tuple[int, int]],
    index: int,
    total: int,
    ask: Ask,
    say: Callable[[str], None],
    chosen: list[Pick],
) -> bool:
    """Ask about each part of a split hunk; True when the answer was ``q``."""
    for n, (first, last) in enumerate(parts, 1):
        say(f"{hunk.id}:{first}-{last}")
        say("\n".join(hunk_body(hunk, (first, last))))
        prompt = f"({index}/{total}, part {n}/{len(parts)}) Apply this part [y,n,q,?]? "
        answer = _answer(ask, prompt, say, splittable=False)
        if answer == "q":
            return True
        if answer == "y":
            chosen.append(Pick(hunk.id, first, last))
    return False


def _answer(ask: Ask, prompt: str, say: Callable[[str], None], *, splittable: bool = True) -> str:
    allowed = "ynsq" if splittable else "ynq"
    while True:
        typed = ask(prompt)
        if typed is None:
            return "q"
        answer = typed.strip().lower()[:1]
        if answer and answer in allowed:
            return answer
        say(HELP if splittable else "\n".join(h for h in HELP.splitlines() if h[0] != "s"))
