"""Reconciliation: what a task changed, as git sees it, whatever the agent says.

The base is always a fixed point recorded when the task started -- the commit its worktree
was created at (``changes_since``), or a snapshot tree of an in-place working directory
(``changes_between``) -- never HEAD: an agent that commits its work moves HEAD, and a diff
against HEAD would then report nothing. The other side is the working directory's content
(see ``content.py``), so committed, staged, unstaged and untracked work all count.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import DeltaStatus, DiffFind, FileMode

from caesar_core.git.content import as_tree, content_tree, exclusions, tree_diff
from caesar_core.git.hunks import hunks_of
from caesar_core.git.repo import (
    GitError,
    normalize_rel,
    open_repository,
    resolve_commit,
    under_any,
    workdir_of,
)
from caesar_core.layout import CAESAR_DIR
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Hunk

_ACTIONS = {
    DeltaStatus.ADDED: ChangeAction.CREATED,
    DeltaStatus.COPIED: ChangeAction.CREATED,
    DeltaStatus.DELETED: ChangeAction.DELETED,
    DeltaStatus.MODIFIED: ChangeAction.MODIFIED,
    DeltaStatus.TYPECHANGE: ChangeAction.MODIFIED,
    DeltaStatus.RENAMED: ChangeAction.RENAMED,
}


@dataclass(frozen=True, slots=True)
class PatchSpan:
    """Where one file's section (from its ``diff --git`` line to the next file's) is in a
    ``TreeDiff.patch``: characters ``start`` to ``end`` (``patch[start:end]``), which are lines
    ``first_line`` to ``first_line + line_count`` (0-based; a reader that counts in other units
    than Python's code points splits the patch on ``\\n`` and takes those lines)."""

    start: int
    end: int
    first_line: int
    line_count: int

    def to_json(self) -> dict[str, int]:
        return {
            "start": self.start,
            "end": self.end,
            "first_line": self.first_line,
            "line_count": self.line_count,
        }


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file that differs; ``old_path`` is set for renames only.

    ``link_target`` is where the symbolic link the change leaves at ``path`` points (None when
    it leaves no link); ``link_outside`` says that target leaves the repository (see
    :func:`link_leaves_repository`), which ``apply`` refuses unless asked explicitly. ``span``
    is the file's section of the diff's patch (None when no patch was asked for, or the file
    has no text in it). ``hunks`` are its hunks (``git.hunks.hunks_of``; filled with the
    patch, empty without it); ``old_blob``/``new_blob`` (None on the side where the file does
    not exist) and the modes are the two sides as git stores them.
    """

    path: str
    action: ChangeAction
    old_path: str | None = None
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    link_target: str | None = None
    link_outside: bool = False
    span: PatchSpan | None = None
    hunks: tuple[Hunk, ...] = ()
    old_blob: str | None = None
    new_blob: str | None = None
    old_mode: int = 0
    new_mode: int = 0

    def to_json(self) -> dict[str, Any]:
        """The file as ``caesar diff --json`` and the MCP ``caesar_diff`` show it."""
        return {
            "path": self.path,
            "old_path": self.old_path,
            "action": self.action.value,
            "additions": self.additions,
            "deletions": self.deletions,
            "binary": self.binary,
            "link_target": self.link_target,
            "link_outside": self.link_outside,
            "patch_span": self.span.to_json() if self.span else None,
            "hunks": [hunk.to_json() for hunk in self.hunks],
        }


@dataclass(frozen=True, slots=True)
class TreeDiff:
    """Everything that differs between a base and a working directory.

    ``base`` is the commit SHA (``changes_since``) or snapshot tree SHA (``changes_between``)
    compared against; ``tree`` is the tree SHA of the compared content (exclusions and
    ``paths`` applied), which is what ``apply_changes`` merges. ``patch`` is filled only when
    asked for (then each file's ``span`` says where its section is; see :func:`assemble`).
    """

    base: str
    tree: str
    files: list[FileChange] = field(default_factory=list)
    patch: str = ""

    def to_json(self) -> dict[str, Any]:
        """The diff as ``caesar diff --json`` and the MCP ``caesar_diff`` return it."""
        return {
            "base": self.base,
            "tree": self.tree,
            "is_empty": self.is_empty,
            "files": [change.to_json() for change in self.files],
            "patch": self.patch,
        }

    @property
    def is_empty(self) -> bool:
        return not self.files

    @property
    def paths(self) -> list[str]:
        """Every path touched, renames counted at both ends."""
        touched = {change.path for change in self.files}
        touched.update(change.old_path for change in self.files if change.old_path)
        return sorted(touched)

    @property
    def links(self) -> list[FileChange]:
        """The changes that leave a symbolic link."""
        return [change for change in self.files if change.link_target is not None]

    @property
    def outside_links(self) -> list[FileChange]:
        """The changes that leave a symbolic link pointing out of the repository."""
        return [change for change in self.files if change.link_outside]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The content of an in-place task's working directory when the task started.

    ``tree`` is a tree SHA in the repository's object store. Nothing references it, so
    ``git gc`` may prune it after ``gc.pruneExpire`` (two weeks by default): far longer than
    a task runs.
    """

    tree: str


@dataclass(slots=True)
class Reconciled:
    """The pygit2 objects behind a ``TreeDiff``, for ``apply`` to merge without recomputing."""

    repo: pygit2.Repository
    base_tree: pygit2.Tree
    tree: pygit2.Tree
    diff: pygit2.Diff


def changes_since(
    workdir: Path,
    base_ref: str,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """What differs between commit ``base_ref`` and ``workdir``'s current content.

    Covers commits made on top of ``base_ref``, staged, unstaged and untracked-not-ignored
    files; renames are detected (50% similarity, git's default). ``exclude`` and ``paths``
    use prefix semantics on path components; ``.caesar/`` is always excluded. Neither the
    index nor any file of ``workdir`` is modified; new blobs and trees are written to the
    object store.
    """
    repo = _open_workdir(workdir)
    base = resolve_commit(repo, base_ref)
    found = reconcile(repo, base.tree, exclude=exclude, paths=paths)
    return to_tree_diff(found, str(base.id), with_patch=with_patch)


def snapshot(workdir: Path, *, exclude: Sequence[str] = ()) -> Snapshot:
    """Record ``workdir``'s content (untracked-not-ignored files included) as a tree."""
    repo = _open_workdir(workdir)
    return Snapshot(tree=str(content_tree(repo, exclusions(exclude))))


def changes_between(
    workdir: Path,
    snap: Snapshot,
    *,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
) -> TreeDiff:
    """What changed in ``workdir`` since ``snap`` was taken (in-place tasks)."""
    repo = _open_workdir(workdir)
    base_tree = as_tree(repo, snap.tree)
    found = reconcile(repo, base_tree, exclude=exclude, paths=paths)
    return to_tree_diff(found, snap.tree, with_patch=with_patch)


def changes_between_snapshots(
    workdir: Path, old: Snapshot, new: Snapshot, *, with_patch: bool = False
) -> TreeDiff:
    """What differs between two snapshots of ``workdir`` (one turn of a task to the next)."""
    repo = _open_workdir(workdir)
    base_tree, tree = as_tree(repo, old.tree), as_tree(repo, new.tree)
    diff = tree_diff(base_tree, tree)
    diff.find_similar(flags=DiffFind.FIND_RENAMES)
    found = Reconciled(repo=repo, base_tree=base_tree, tree=tree, diff=diff)
    return to_tree_diff(found, old.tree, with_patch=with_patch)


def as_unicode(path: str) -> str:
    """``path`` as a JSON document can hold it: bytes that were not UTF-8 (kept by git as
    surrogate escapes) become U+FFFD. For reports only; the exact path stays in the diff."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def link_leaves_repository(path: str, target: str) -> bool:
    """Whether a link at ``path`` (repository-relative) pointing to ``target`` leads out of it.

    Judged on the text alone: an absolute target, or one whose ``..`` climb above the
    repository's root from the link's directory (``~/.ssh``, ``../../etc/passwd``).
    """
    if not target or posixpath.isabs(target):
        return True
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return resolved == ".." or resolved.startswith("../")


def patch_digest(patch: str) -> str:
    """SHA-256 of a patch: what was applied, to tell later whether anything else remains."""
    return hashlib.sha256(patch.encode("utf-8", "surrogateescape")).hexdigest()


def _open_workdir(workdir: Path) -> pygit2.Repository:
    """The repository of ``workdir``, refusing one found above a damaged task worktree.

    Task worktrees live in ``<root>/.caesar/wt/``; if one lost its ``.git``, discovery would
    climb to the main repository, where ``.caesar/`` is excluded, and report "no changes"
    for work that is really there.
    """
    repo = open_repository(workdir)
    root = workdir_of(repo).resolve()
    try:
        inner = workdir.resolve().relative_to(root).parts
    except ValueError:
        inner = ()
    if inner[:1] == (CAESAR_DIR,):
        raise GitError(
            f"{workdir} is not a git worktree (its .git is missing); only {root} was found",
            "inspect the directory by hand before removing it",
        )
    return repo


def reconcile(
    repo: pygit2.Repository,
    base_tree: pygit2.Tree,
    *,
    exclude: Sequence[str] = (),
    paths: Sequence[str] | None = None,
) -> Reconciled:
    """Diff ``base_tree`` against the working content, restricted to the selected paths.

    When something must be left out, the compared tree is rebuilt as ``base_tree`` plus the
    selected changes only, so the diff, the patch and a later merge all agree on one tree.
    Renames are detected on that final diff, so a rename half outside the selection shows
    as the half inside it.
    """
    excludes = exclusions(exclude)
    selected = None if paths is None else [normalize_rel(p, "selected path") for p in paths]
    if selected is not None and "" in selected:
        selected = None
    work = content_tree(repo, excludes)
    diff = tree_diff(base_tree, as_tree(repo, work))

    def keep(path: str) -> bool:
        if under_any(path, excludes):
            return False
        return selected is None or under_any(path, selected)

    deltas = list(diff.deltas)
    tree_id = work
    if not all(keep(delta.new_file.path) for delta in deltas):
        index = pygit2.Index()
        index.read_tree(base_tree)
        for delta in deltas:
            path = delta.new_file.path
            if not keep(path):
                continue
            if delta.status == DeltaStatus.DELETED:
                index.remove(path)
            else:
                index.add(pygit2.IndexEntry(path, delta.new_file.id, delta.new_file.mode))
        tree_id = index.write_tree(repo)
        diff = tree_diff(base_tree, as_tree(repo, tree_id))
    diff.find_similar(flags=DiffFind.FIND_RENAMES)
    return Reconciled(repo=repo, base_tree=base_tree, tree=as_tree(repo, tree_id), diff=diff)


def assemble(base: str, tree: str, sections: Iterable[tuple[FileChange, str]]) -> TreeDiff:
    """A diff from each file's change and its section of text, in the patch's order: the patch
    is the sections joined, each change carries its ``span`` in it, and the files are sorted by
    path (git's delta order is not path order, so the spans are what find a file's text).
    Sections end with a newline, as git writes them (``\\ No newline at end of file`` included).
    """
    files: list[FileChange] = []
    texts: list[str] = []
    spans = _Spans()
    for change, text in sections:
        span = spans.of(text)
        files.append(change if span == change.span else replace(change, span=span))
        texts.append(text)
    files.sort(key=lambda change: change.path)
    return TreeDiff(base=base, tree=tree, files=files, patch="".join(texts))


class _Spans:
    """Where each section falls in the patch its sections make, one section after the other."""

    def __init__(self) -> None:
        self.start = self.line = 0

    def of(self, text: str) -> PatchSpan | None:
        if not text:
            return None
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        span = PatchSpan(self.start, self.start + len(text), self.line, lines)
        self.start += len(text)
        self.line += lines
        return span


def to_tree_diff(found: Reconciled, base: str, *, with_patch: bool) -> TreeDiff:
    """The public view of a reconciliation: one ``FileChange`` per file, sorted by path."""
    sections: list[tuple[FileChange, str]] = []
    spans = _Spans()  # made here as ``assemble`` makes them, so no change is built twice
    for patch in found.diff:
        if patch is None:  # pragma: no cover - tree-to-tree deltas always carry a patch
            continue
        delta = patch.delta
        action = _ACTIONS.get(delta.status, ChangeAction.MODIFIED)
        _, additions, deletions = patch.line_stats
        data = patch.data if with_patch else b""  # the text git would print, made once
        text = data.decode("utf-8", "replace")
        target = None
        if action is not ChangeAction.DELETED and delta.new_file.mode == FileMode.LINK:
            target = _link_target(found.repo, delta.new_file.id)
        change = FileChange(
            path=delta.new_file.path,
            action=action,
            old_path=delta.old_file.path if action is ChangeAction.RENAMED else None,
            additions=additions,
            deletions=deletions,
            binary=bool(delta.is_binary),
            link_target=target,
            link_outside=target is not None and link_leaves_repository(delta.new_file.path, target),
            span=spans.of(text),
            hunks=hunks_of(patch, data) if with_patch else (),
            old_blob=_blob_id(delta.old_file),
            new_blob=_blob_id(delta.new_file),
            old_mode=int(delta.old_file.mode),
            new_mode=int(delta.new_file.mode),
        )
        sections.append((change, text))
    return assemble(base, str(found.tree.id), sections)


def _blob_id(side: pygit2.DiffFile) -> str | None:
    """The blob of one side of a delta; None where the file does not exist."""
    return None if side.mode == 0 or side.id.raw == bytes(20) else str(side.id)


def _link_target(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    """A link blob's content: the path it points to (bytes that are not UTF-8 kept escaped)."""
    blob = repo.get(oid)
    return os.fsdecode(blob.data) if isinstance(blob, pygit2.Blob) else ""
