"""The demo agent's ``followup`` script: a follow-up turn (``caesar continue``) answered.

It reads what the task file gives a follow-up turn (``task.followup``: the reviewer's message,
open comments, rejected hunks, failed checks) and answers each in the workspace: a line under
each commented range saying it was addressed, and one note per item in ``DEMO_NOTES.md``. A
read-only turn changes nothing and says what it would have done.
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
    """A line under the commented range, saying it was addressed; None when the path is not
    a file of the workspace."""
    relative = PurePosixPath(comment.path)
    if relative.is_absolute() or ".." in relative.parts:
        return None
    path = run.workspace / Path(*relative.parts)
    inside = path.resolve().is_relative_to(run.workspace.resolve())
    if not inside or not path.is_file() or path.is_symlink():
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    at = min(comment.end_line, len(lines))
    if at and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    text = " ".join(comment.text.split())
    lines.insert(at, f"{_marker(path)} review (turn {turn}): {text} ({ADDRESSED})\n")
    with run.tool("edit", comment.path):
        path.write_text("".join(lines), encoding="utf-8")
    run.changed(comment.path, ChangeAction.MODIFIED)
    return comment.path


def _marker(path: Path) -> str:
    return {".md": ">", ".txt": "-"}.get(path.suffix, "#")
