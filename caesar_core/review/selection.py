"""STUB, written in the checks branch against the contract expected from the hunks work (items
1-2 of issue 13), so that ``caesar check --hunk`` runs and is tested before it lands; the real
module replaces this file whole.

``selected_contents(record, picks)``: path -> the file's content with only the selected hunks
applied to the task's ``base_ref`` (``None``: the file is deleted). Here the hunks are computed
with difflib (three lines of context, as ``git diff``), text files only.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

import pygit2

from caesar_core import safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.review.hunks import Hunk, HunkLine, Pick, apply_selection, make_hunk, resolve
from caesar_core.runner.worktrees import task_diff
from caesar_core.store.record import TaskRecord

_CONTEXT = 3


def selected_contents(record: TaskRecord, picks: Sequence[Pick]) -> dict[str, bytes | None]:
    if not record.worktree_path or not record.base_ref:
        raise CaesarError(
            f"task {record.id} has no worktree: hunks are a worktree task's",
            "run checks on the whole task: caesar check ID",
            exit_code=ExitCode.USAGE,
        )
    worktree = Path(record.worktree_path)
    repo = pygit2.Repository(str(worktree))
    base = repo.revparse_single(record.base_ref).peel(pygit2.Commit).tree
    diff = task_diff(record)
    texts: dict[str, tuple[str, str, bool]] = {}
    hunks: list[Hunk] = []
    for change in diff.files if diff else []:
        if change.binary or change.link_target is not None:
            continue
        old = _blob(repo, base, change.old_path or change.path)
        deleted = change.action == "deleted"
        new = b"" if deleted else safefs.read_bytes(worktree, change.path)
        old_text = old.decode("utf-8", "surrogateescape")
        new_text = new.decode("utf-8", "surrogateescape")
        texts[change.path] = (old_text, new_text, deleted)
        hunks.extend(_hunks(change.path, old_text, new_text))
    selection = resolve(picks, hunks)
    out: dict[str, bytes | None] = {}
    for path, (old_text, _, deleted) in texts.items():
        mine = [hunk for hunk in hunks if hunk.path == path]
        if not any(selection.of(hunk) for hunk in mine):
            continue
        if deleted and all(selection.whole(hunk) for hunk in mine):
            out[path] = None
            continue
        out[path] = apply_selection(old_text, mine, selection).encode("utf-8", "surrogateescape")
    return out


def _blob(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> bytes:
    try:
        entry = tree[path]
    except KeyError:
        return b""
    blob = repo[entry.id]
    return blob.data if isinstance(blob, pygit2.Blob) else b""


def _hunks(path: str, old: str, new: str) -> list[Hunk]:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    found: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        lines: list[HunkLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [HunkLine(" ", text) for text in a[i1:i2]]
                continue
            lines += [HunkLine("-", text) for text in a[i1:i2]]
            lines += [HunkLine("+", text) for text in b[j1:j2]]
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_lines, new_lines = i2 - i1, j2 - j1
        old_start = i1 + 1 if old_lines else i1
        new_start = j1 + 1 if new_lines else j1
        header = f"@@ -{old_start},{old_lines} +{new_start},{new_lines} @@"
        found.append(make_hunk(path, header, old_start, old_lines, new_start, new_lines, lines))
    return found
