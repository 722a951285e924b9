"""STAND-IN for the hunks work (items 1-3 of issue 13), written in the review branch against
the API announced for it, so that the Diff tab's review is built and tested before it lands;
deleted whole when it does (then ``FileChange.hunks``, ``worktrees.apply(picks=...)``,
``worktrees.reject`` and the record's applied and rejected hunks take its place).

Simplified on purpose: applying needs the user's file to be as at ``base_ref``; renames and
links are not handled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pygit2

from caesar_core.git import ApplyResult, TreeDiff, find_repository
from caesar_core.git.diff import FileChange
from caesar_core.review.hunks import Hunk, HunkLine, Pick, apply_selection, make_hunk, resolve
from caesar_core.runner.worktrees import task_diff
from caesar_core.store.record import TaskRecord
from caesar_core.store.store import TaskStore
from caesar_tui.review import Done

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def hunks_of(diff: TreeDiff, change: FileChange) -> tuple[Hunk, ...]:
    """The file's hunks, read from its section of the patch (a file without text: one)."""
    found = getattr(change, "hunks", None)
    if found:
        return tuple(found)
    span = change.span
    section = diff.patch[span.start : span.end] if span is not None else ""
    hunks: list[Hunk] = []
    current: tuple[str, int, int, int, int] | None = None
    lines: list[HunkLine] = []

    def close() -> None:
        if current is not None:
            hunks.append(make_hunk(change.path, *current, lines))

    for raw in section.splitlines(keepends=True):
        match = _HEADER.match(raw)
        if match:
            close()
            a, b, c, d = match.groups()
            current = (raw.rstrip("\n"), int(a), int(b or 1), int(c), int(d or 1))
            lines = []
        elif current is not None and raw[:1] in (" ", "-", "+"):
            lines.append(HunkLine(raw[0], raw[1:]))
        elif current is not None and raw.startswith("\\") and lines:
            last = lines[-1]
            lines[-1] = HunkLine(last.origin, last.text.removesuffix("\n"))
    close()
    if not hunks:
        hunks.append(make_hunk(change.path, "", 0, 0, 0, 0, ()))
    return tuple(hunks)


def _state(store: TaskStore, record: TaskRecord) -> Path:
    return store.home / "state" / "review-standin" / f"{record.id}.json"


def done_of(store: TaskStore, record: TaskRecord) -> Done:
    path = _state(store, record)
    if not path.is_file():
        return Done()
    data = json.loads(path.read_text())
    applied = {
        hid: None if lines is None else frozenset(lines) for hid, lines in data["applied"].items()
    }
    return Done(applied, data["rejected"])


def _save(store: TaskStore, record: TaskRecord, done: Done) -> None:
    path = _state(store, record)
    path.parent.mkdir(parents=True, exist_ok=True)
    applied = {h: None if v is None else sorted(v) for h, v in done.applied.items()}
    path.write_text(json.dumps({"applied": applied, "rejected": dict(done.rejected)}))


def _files(record: TaskRecord) -> tuple[TreeDiff, list[tuple[FileChange, tuple[Hunk, ...]]]]:
    diff = task_diff(record, with_patch=True)
    assert diff is not None
    return diff, [(change, hunks_of(diff, change)) for change in diff.files]


def _base_text(record: TaskRecord, path: str) -> str:
    assert record.worktree_path and record.base_ref
    repo = pygit2.Repository(record.worktree_path)
    tree = repo.revparse_single(record.base_ref).peel(pygit2.Commit).tree
    try:
        blob = repo[tree[path].id]
    except KeyError:
        return ""
    data = blob.data if isinstance(blob, pygit2.Blob) else b""
    return data.decode("utf-8", "surrogateescape")


def apply(store: TaskStore, record: TaskRecord, picks: Sequence[Pick]) -> ApplyResult:
    _, files = _files(record)
    selection = resolve(picks, [hunk for _, hunks in files for hunk in hunks])
    root = find_repository(Path(record.source_workspace or record.workspace))
    assert root is not None and record.worktree_path
    writes: dict[str, str | None] = {}
    conflicts: list[str] = []
    for change, hunks in files:
        if not any(selection.of(hunk) for hunk in hunks):
            continue
        base = _base_text(record, change.path)
        target = root / change.path
        mine = target.read_text() if target.exists() else ""
        if mine != base:
            conflicts.append(change.path)
            continue
        if not hunks[0].lines:
            source = Path(record.worktree_path) / change.path
            writes[change.path] = source.read_text() if source.exists() else None
        else:
            writes[change.path] = apply_selection(base, hunks, selection)
    if conflicts:
        return ApplyResult(applied=False, conflicts=conflicts)
    for path, text in writes.items():
        if text is None:
            (root / path).unlink()
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
    done = done_of(store, record)
    applied = dict(done.applied)
    for hid, lines in selection.lines.items():
        before = applied.get(hid, frozenset())
        hunk = next(h for _, hs in files for h in hs if h.id == hid)
        total = frozenset(range(1, max(hunk.changed, 1) + 1))
        merged = total if before is None else before | lines
        applied[hid] = None if merged == total else merged
    _save(store, record, Done(applied, done.rejected))
    return ApplyResult(applied=True, files=sorted(writes), written=sorted(writes))


def reject(
    store: TaskStore, record: TaskRecord, picks: Sequence[Pick], *, reason: str = ""
) -> None:
    _, files = _files(record)
    selection = resolve(picks, [hunk for _, hunks in files for hunk in hunks])
    assert record.worktree_path
    done = done_of(store, record)
    rejected = dict(done.rejected)
    for change, hunks in files:
        chosen = [hunk for hunk in hunks if selection.of(hunk)]
        if not chosen:
            continue
        target = Path(record.worktree_path) / change.path
        text = target.read_text() if target.exists() else ""
        target.write_text(apply_selection(text, hunks, selection, reverse=True))
        rejected[change.path] = rejected.get(change.path, 0) + len(chosen)
    _save(store, record, Done(done.applied, rejected))
