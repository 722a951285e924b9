"""Review comments on lines of a task's diff: stored, anchored, re-anchored, resolved.

A comment is on lines of the new side of the diff (the workspace as the agent left it) and
keeps the text of those lines, its anchor. The lines move when an agent edits around them (a
follow-up turn), so where a comment is now is found again each time it is read: the anchor's
exact text nearest the old position. A comment whose text is gone is ``addressed`` when a later
turn ran after it (that turn changed its lines), else ``outdated``; both are still shown. Only
the reviewer resolves one.

The comments of a chain of turns are one list, named after the chain's first turn: every
turn's diff is the whole work against the same base, so a comment made on any turn is on the
same code. The list is the reviewer's word, so it is kept in caesar's state
(``.caesar/state/comments/<first turn>.json``, :func:`caesar_core.layout.review_comments`), out of
reach of the agent it is about: kept in a task directory, it could be forged or resolved by that
agent. It is still read through ``safefs`` and validated; one edited into garbage is reported
(the task is still shown), moved aside when a comment is added (nothing lost), and a fresh list
started.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from caesar_core import reclaim, safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.humanize import clip
from caesar_core.layout import review_comments
from caesar_core.protocol._base import ProtocolModel
from caesar_core.protocol.parse import problem_text
from caesar_core.protocol.task import FollowUpComment
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore

COMMENTS_V1 = "caesar.comments/v1"
MAX_COMMENTS = 1_000
MAX_TEXT = 10_000
"""Characters of one comment's text."""
MAX_LINES = 200
"""Lines one comment covers at most (its anchor is kept whole)."""
LINE_CHARS = 400
"""Characters of one line of code a follow-up brief quotes."""
MAX_CHAIN = 1_000
"""Turns followed along ``continued_by`` at most (a cycle in hostile records ends there)."""


class CommentState(StrEnum):
    OPEN = "open"
    ADDRESSED = "addressed"
    RESOLVED = "resolved"
    OUTDATED = "outdated"


class Comment(ProtocolModel):
    """One comment as the comments file keeps it: where it was made and on what text."""

    id: Annotated[str, Field(pattern=r"^c_[0-9a-f]{8}$")]
    path: Annotated[str, Field(min_length=1)]
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int, Field(ge=1)]
    anchor: list[str]
    """The text of lines ``start_line`` to ``end_line`` when the comment was made."""
    text: str
    created_at: AwareDatetime
    author: str = ""
    state: Literal["open", "resolved"] = "open"
    """What the reviewer said: open, or resolved. Addressed and outdated are found on read."""
    turn: str = ""
    """The task id of the chain's latest turn when the comment was made."""
    resolved_at: AwareDatetime | None = None


class CommentsFile(ProtocolModel):
    protocol: Literal["caesar.comments/v1"] = "caesar.comments/v1"
    comments: list[Comment] = Field(default_factory=list)


def line_span(start: int, end: int) -> str:
    """Lines ``start`` to ``end`` as ``PATH:LINE[-LINE]`` names them: ``12``, or ``12-14``."""
    return str(start) if start == end else f"{start}-{end}"


@dataclass(frozen=True)
class Placed:
    """A comment where it is now: its state and its current lines (the stored ones when its
    text is gone)."""

    comment: Comment
    state: CommentState
    start_line: int
    end_line: int
    code: tuple[str, ...]
    """The lines it is on now (its anchor when those are gone)."""

    @property
    def moved(self) -> bool:
        return self.start_line != self.comment.start_line

    @property
    def lines(self) -> str:
        """Its lines now as ``PATH:LINES`` shows them: ``12``, or ``12-14``."""
        return line_span(self.start_line, self.end_line)

    def to_json(self) -> dict[str, Any]:
        c = self.comment
        return {
            "id": c.id,
            "path": c.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "made_at_lines": [c.start_line, c.end_line],
            "state": self.state.value,
            "text": c.text,
            "code": list(self.code),
            "author": c.author,
            "created_at": c.created_at.isoformat(),
            "turn": c.turn,
        }


@dataclass(frozen=True)
class Comments:
    """A task's comments as read: placed, and the problem of a file that could not be read
    (the comments then are none, the file untouched)."""

    task_id: str
    placed: tuple[Placed, ...]
    problem: str | None = None

    @property
    def open(self) -> list[Placed]:
        return [p for p in self.placed if p.state is CommentState.OPEN]

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "comments": [p.to_json() for p in self.placed],
            "problem": self.problem,
        }


class CommentRefused(CaesarError):
    """A comment that cannot be made or resolved as asked; nothing was written."""

    exit_code = ExitCode.USAGE


# -- where ---------------------------------------------------------------------------------


def chain_of(store: TaskStore, record: TaskRecord) -> tuple[str, TaskRecord]:
    """The chain's first turn (whose task directory keeps the comments) and its latest."""
    first = getattr(record, "chain", None) or record.id
    latest = record
    seen = {record.id}
    for _ in range(MAX_CHAIN):
        following = getattr(latest, "continued_by", None)
        if not isinstance(following, str) or following in seen:
            break
        seen.add(following)
        try:
            latest = store.get(following)
        except (CaesarError, OSError):
            break
    return str(first), latest


def _workspace(record: TaskRecord) -> Path:
    """Where the diff's new side is: the worktree, or the workspace of an in-place task."""
    if record.worktree_path and Path(record.worktree_path).is_dir():
        return Path(record.worktree_path)
    return Path(record.workspace)


def _file_lines(record: TaskRecord, path: str) -> list[str] | None:
    """The lines (without endings) of ``path`` in the workspace now; None when it is not a
    file there (gone, a link, a directory)."""
    try:
        data = safefs.read_bytes(_workspace(record), path)
    except OSError:
        return None
    return data.decode("utf-8", "replace").splitlines()


# -- reading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    """Where a chain's comments are kept: ``rel`` below the trusted ``root`` (caesar's state
    directory), which messages show as ``shown_root`` (from the project's root)."""

    root: Path
    rel: str
    shown_root: str

    def shown(self, rel: str | None = None) -> str:
        return f"{self.shown_root}/{self.rel if rel is None else rel}"


def _file_of(store: TaskStore, first: str) -> _File:
    root, rel = review_comments(store.home, first)
    return _File(root, rel, str(root.relative_to(store.root)))


def _read(file: _File) -> tuple[list[Comment], str | None]:
    try:
        raw = safefs.read_bytes(file.root, file.rel)
    except FileNotFoundError:
        return [], None
    except OSError as error:
        return [], f"the comments file {file.shown()} cannot be read: {error}"
    try:
        return CommentsFile.model_validate(safefs.loads(raw)).comments, None
    except ValueError as error:  # ValidationError too: named by its field, on one line
        detail = clip(problem_text(error), 200)
        return [], f"the comments file {file.shown()} is not a comments file ({detail})"


def read_comments(store: TaskStore, record: TaskRecord) -> Comments:
    """Every comment of the task's chain, placed in the workspace as it is now."""
    first, latest = chain_of(store, record)
    comments, problem = _read(_file_of(store, first))
    later = _later_turns(store, latest)
    files: dict[str, list[str] | None] = {}
    placed = []
    for comment in comments:
        if comment.path not in files:
            files[comment.path] = _file_lines(latest, comment.path)
        placed.append(place(comment, files[comment.path], addressed=comment.turn in later))
    return Comments(record.id, tuple(placed), problem)


def _later_turns(store: TaskStore, latest: TaskRecord) -> set[str]:
    """The turns of the chain that a later turn followed (a comment made on one of them whose
    text is gone was addressed)."""
    done: set[str] = set()
    record = latest
    for _ in range(MAX_CHAIN):
        previous = getattr(record, "continues", None)
        if not isinstance(previous, str) or previous in done:
            break
        done.add(previous)
        try:
            record = store.get(previous)
        except (CaesarError, OSError):
            break
    return done


def place(comment: Comment, lines: Sequence[str] | None, *, addressed: bool) -> Placed:
    """Where ``comment`` is in ``lines`` (the file now): its anchor's exact text nearest the
    old position; gone, ``addressed`` (a later turn ran) or ``outdated``."""
    size = comment.end_line - comment.start_line + 1
    if comment.state == "resolved":
        state = CommentState.RESOLVED
    else:
        state = CommentState.ADDRESSED if addressed else CommentState.OUTDATED
    if lines is not None and len(comment.anchor) == size:
        found = _find(comment.anchor, lines, comment.start_line)
        if found is not None:
            code = tuple(lines[found - 1 : found - 1 + size])
            if state is not CommentState.RESOLVED:
                state = CommentState.OPEN
            return Placed(comment, state, found, found + size - 1, code)
    return Placed(comment, state, comment.start_line, comment.end_line, tuple(comment.anchor))


def _find(anchor: Sequence[str], lines: Sequence[str], near: int) -> int | None:
    """The 1-based start of ``anchor`` in ``lines`` nearest ``near``; None when absent."""
    size = len(anchor)
    if not size:
        return None
    first = anchor[0]
    best: int | None = None
    for index, line in enumerate(lines):
        if line != first or list(lines[index : index + size]) != list(anchor):
            continue
        start = index + 1
        if best is None or abs(start - near) < abs(best - near):
            best = start
    return best


# -- writing -------------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(file: _File) -> Iterator[None]:
    """One writer of a chain's comments at a time (the lock beside the file)."""
    lock = file.root / f"{file.rel}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write(file: _File, comments: Sequence[Comment]) -> None:
    """The whole list, replaced in one rename (readers see the old list or the new)."""
    document = CommentsFile(comments=list(comments))
    reclaim.claim_write(file.root, file.rel, document.model_dump_json(indent=2).encode())


@dataclass(frozen=True)
class Added:
    comment: Comment
    set_aside: str | None = None
    """Where an unreadable comments file was moved (from the project's root) before a fresh
    list was started."""


def add_comment(
    store: TaskStore,
    record: TaskRecord,
    path: str,
    start_line: int,
    end_line: int,
    text: str,
    *,
    author: str = "",
    now: datetime | None = None,
) -> Added:
    """Comment on lines ``start_line``-``end_line`` of ``path`` in the task's diff (the new
    side); refused, with the nearest valid range, when those lines are not in the diff."""
    if not text.strip():
        raise CommentRefused("a comment needs a text", "say what should change")
    if len(text) > MAX_TEXT:
        raise CommentRefused(
            f"the comment is {len(text)} characters, more than {MAX_TEXT}", "say it shorter"
        )
    if end_line < start_line:
        start_line, end_line = end_line, start_line
    if end_line - start_line + 1 > MAX_LINES:
        raise CommentRefused(
            f"lines {start_line}-{end_line} are more than {MAX_LINES} lines",
            "comment on a smaller range",
        )
    first, latest = chain_of(store, record)
    _check_in_diff(latest, path, start_line, end_line)
    lines = _file_lines(latest, path) or []
    anchor = lines[start_line - 1 : end_line]
    if len(anchor) != end_line - start_line + 1:
        raise CommentRefused(
            f"{path} has {len(lines)} lines now, not line {end_line}",
            f"see the diff again: caesar diff {record.id}",
        )
    comment = Comment(
        id="c_" + secrets.token_hex(4),
        path=path,
        start_line=start_line,
        end_line=end_line,
        anchor=anchor,
        text=text,
        created_at=now or datetime.now(UTC),
        author=author,
        turn=latest.id,
    )
    file = _file_of(store, first)
    set_aside = None
    with _locked(file):
        comments, problem = _read(file)
        if problem is not None:
            with contextlib.suppress(FileNotFoundError):
                set_aside = file.shown(reclaim.move_aside(file.root, file.rel))
        if len(comments) >= MAX_COMMENTS:
            raise CommentRefused(
                f"task {record.id} has {len(comments)} comments, the most one task keeps",
                f"resolve some first: caesar comment {record.id} --resolve COMMENT_ID",
            )
        _write(file, [*comments, comment])
    return Added(comment, set_aside)


def resolve_comment(
    store: TaskStore, record: TaskRecord, comment_id: str, *, now: datetime | None = None
) -> Comment:
    """Mark a comment resolved (the reviewer's word; it leaves the next turn's brief)."""
    first, _ = chain_of(store, record)
    file = _file_of(store, first)
    with _locked(file):
        comments, problem = _read(file)
        if problem is not None:
            raise CommentRefused(
                problem,
                f"fix or remove {file.shown()}, or add a comment: the file is kept aside and a "
                "new list started",
            )
        for index, comment in enumerate(comments):
            if comment.id == comment_id:
                resolved = comment.model_copy(
                    update={"state": "resolved", "resolved_at": now or datetime.now(UTC)}
                )
                comments[index] = resolved
                _write(file, comments)
                return resolved
    known = ", ".join(c.id for c in comments[:20]) or "none"
    raise CommentRefused(
        f"task {record.id} has no comment {clip(comment_id, 40)} (its comments: {known})",
        f"see them: caesar comments {record.id}",
    )


# -- the diff's lines ------------------------------------------------------------------------


def commentable(record: TaskRecord) -> dict[str, list[tuple[int, int]]]:
    """Each path of the task's diff with the new-side line ranges its hunks show."""
    from caesar_core.runner.taskdiff import task_diff

    diff = task_diff(record, with_patch=True)
    ranges: dict[str, list[tuple[int, int]]] = {}
    for change in [] if diff is None else diff.files:
        spans = [
            (hunk.new_start, hunk.new_start + hunk.new_lines - 1)
            for hunk in change.hunks
            if not hunk.whole and hunk.new_lines > 0
        ]
        if spans:
            ranges[change.path] = spans
    return ranges


def _check_in_diff(record: TaskRecord, path: str, start: int, end: int) -> None:
    ranges = commentable(record)
    spans = ranges.get(path)
    if spans is None:
        shown = ", ".join(sorted(ranges)[:10]) or "none"
        raise CommentRefused(
            f"{clip(path, 200)} has no lines in the diff of task {record.id} "
            f"(paths with lines: {shown})",
            f"comment on a path of the diff: caesar diff {record.id} --stat",
        )
    if any(first <= start and end <= last for first, last in spans):
        return
    first, last = min(spans, key=lambda span: _distance(span, start, end))
    nearest = f"{path}:{first}" if first == last else f"{path}:{first}-{last}"
    asked = f"{start}" if start == end else f"{start}-{end}"
    raise CommentRefused(
        f"lines {asked} of {clip(path, 200)} are not in one hunk of the diff of task {record.id}",
        f"the nearest lines in the diff: {nearest}",
    )


def _distance(span: tuple[int, int], start: int, end: int) -> int:
    first, last = span
    if end < first:
        return first - end
    if start > last:
        return start - last
    return 0


# -- the follow-up brief ---------------------------------------------------------------------


def open_comments_for_brief(store: TaskStore, record: TaskRecord) -> list[Placed]:
    """The open comments of the task's chain, each with its code as it is now: what the next
    turn's brief carries (see ``review.followup``)."""
    return read_comments(store, record).open


def followup_comments(store: TaskStore, record: TaskRecord) -> list[FollowUpComment]:
    """The open comments as a follow-up turn's task file carries them (``task.followup``)."""
    return [
        FollowUpComment(
            path=p.comment.path,
            start_line=p.start_line,
            end_line=p.end_line,
            text=p.comment.text,
            code=[clip(line, LINE_CHARS) for line in p.code],
        )
        for p in open_comments_for_brief(store, record)
    ]
