"""The demo agent's ``followup`` script: a follow-up turn (``caesar continue``) answered.

It reads what the task file gives a follow-up turn (``task.followup``: the reviewer's message,
open comments, rejected hunks, failed checks) and answers each in the workspace: the commented
lines rewritten (see :func:`_answer`), so caesar marks each comment addressed, and one note per
item in ``DEMO_NOTES.md``. A read-only turn changes nothing and says what it would have done.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from caesar_core.agents.demo.run import NOTES, Outcome, Run
from caesar_core.protocol.report import Change, ChangeAction, ReportStatus
from caesar_core.protocol.task import FollowUp, FollowUpComment, Mode

ADDRESSED = "addressed by the demo agent"


def followup(run: Run) -> Outcome:
    task, found = run.task, run.task.followup
    if found is None:
        summary = "Nothing to follow up: this task continues no other."
        run.say(summary)
        return Outcome(run.report(ReportStatus.SUCCESS, summary))
    run.think(f"Turn {found.turn}: reading the review of {found.continues}.")
    notes = _notes(found)
    if task.mode is Mode.READ_ONLY:
        summary = f"Read-only turn {found.turn}: {len(notes)} review item(s) read, nothing changed."
        run.say(summary)
        return Outcome(run.report(ReportStatus.SUCCESS, summary, details="\n".join(notes)))
    changes: list[Change] = []
    for comment in found.comments:
        changed = _answer(run, comment, found.turn)
        if changed is not None:
            changes.append(Change(path=changed, action=ChangeAction.MODIFIED, summary="addressed"))
    action = run.append(NOTES, "".join(f"{note}\n" for note in notes))
    changes.append(Change(path=NOTES, action=action, summary=f"turn {found.turn}'s review"))
    summary = (
        f"Turn {found.turn}: answered the review of {found.continues} "
        f"({len(found.comments)} comment(s), {len(found.rejected_hunks)} rejected hunk(s), "
        f"{len(found.failed_checks)} failed check(s)): {task.objective}"
    )
    run.progress("done", 100)
    run.say(summary)
    return Outcome(run.report(ReportStatus.SUCCESS, summary, changes=changes))


def _notes(found: FollowUp) -> list[str]:
    turn = f"- turn {found.turn}"
    notes = [f"{turn}: {found.message or 'continue'}"]
    notes += [f"{turn}: addressed {c.path}:{c.start_line}: {c.text}" for c in found.comments]
    notes += [f"{turn}: left {h.path} out ({h.reason or 'rejected'})" for h in found.rejected_hunks]
    notes += [f"{turn}: check `{c.command}` failed ({c.outcome})" for c in found.failed_checks]
    return [" ".join(note.split()) for note in notes]  # one line each


def _answer(run: Run, comment: FollowUpComment, turn: int) -> str | None:
    """The commented lines rewritten to answer the comment, the file kept valid: the last line
    of the range that can carry it ends with a note of the review (as a comment of the file's
    language, or as text in prose); where no line can, the note goes on a line of its own under
    the range. None when the path is not a file of the workspace."""
    relative = PurePosixPath(comment.path)
    if relative.is_absolute() or ".." in relative.parts:
        return None
    path = run.workspace / Path(*relative.parts)
    inside = path.resolve().is_relative_to(run.workspace.resolve())
    if not inside or not path.is_file() or path.is_symlink():
        return None
    lines = path.read_bytes().decode("utf-8", "replace").splitlines(keepends=True)  # \r\n kept
    note = f"review (turn {turn}): {' '.join(comment.text.split())} ({ADDRESSED})"
    _rewrite(lines, comment.start_line, comment.end_line, note, _syntax(path))
    with run.tool("edit", comment.path):
        path.write_bytes("".join(lines).encode())
    run.changed(comment.path, ChangeAction.MODIFIED)
    return comment.path


LINE_COMMENTS = {
    **dict.fromkeys((".py", ".sh", ".bash", ".rb", ".toml", ".yaml", ".yml", ".r"), "#"),
    **dict.fromkeys((".js", ".ts", ".jsx", ".tsx", ".go", ".rs", ".c", ".h", ".java"), "//"),
    **dict.fromkeys((".cc", ".cpp", ".hpp", ".kt", ".swift", ".cs", ".scala"), "//"),
}
"""The line comment of the languages a note can end a line of code in."""
PROSE = (".md", ".markdown", ".txt", ".rst", "")
"""Where a note is text (a dotfile without a suffix is not prose: ``.gitignore``)."""


def _syntax(path: Path) -> str | None:
    """How a note ends a line of ``path``: its line comment, ``""`` for prose, None when a
    line of it cannot carry one (JSON, an unknown format)."""
    suffix = path.suffix.lower()
    if suffix in LINE_COMMENTS:
        return LINE_COMMENTS[suffix]
    if suffix in PROSE and not path.name.startswith("."):
        return ""
    return None


def _rewrite(lines: list[str], start: int, end: int, note: str, syntax: str | None) -> None:
    """Lines ``start``-``end`` (1-based) of ``lines`` answered by ``note``, in place."""
    end = min(end, len(lines))
    text = {at: lines[at - 1].rstrip("\r\n") for at in range(max(start, 1), end + 1)}
    # The last line with text that can end in a note (a line a backslash continues cannot);
    # a range of blank lines: its last line becomes the note.
    filled = [at for at, line in text.items() if line.strip() and not line.endswith("\\")]
    blank = [at for at, line in text.items() if not line.strip()]
    if syntax is not None and (filled or blank):
        at = (filled or blank)[-1]
        ending = lines[at - 1][len(text[at]) :] or "\n"
        said = f"{syntax} {note}" if syntax else note
        joint = "  " if syntax else " -- "
        lines[at - 1] = f"{text[at]}{joint}{said}{ending}" if filled else f"{said}{ending}"
        return
    if end and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    lines.insert(end, f"{syntax or '#'} {note}\n")
