"""What a reconciliation reports, apart from how it was computed: ``TreeDiff``, its files'
``FileChange`` and their ``PatchSpan``. Both reconciliations build these (``git.viagit`` with the
``git`` program, ``git.diff`` with pygit2); nothing here loads libgit2."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from caesar_core.actions import ChangeAction
from caesar_core.review.hunks import Hunk


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
    has no text in it). ``hunks`` are its hunks (``git.hunks.file_hunks``; filled with the
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


def assemble(base: str, tree: str, sections: Iterable[tuple[FileChange, str]]) -> TreeDiff:
    """A diff from each file's change and its section of text, in the patch's order: the patch
    is the sections joined, each change carries its ``span`` in it, and the files are sorted by
    path (git's delta order is not path order, so the spans are what find a file's text).
    Sections end with a newline, as git writes them (``\\ No newline at end of file`` included).
    """
    files: list[FileChange] = []
    texts: list[str] = []
    spans = Spans()
    for change, text in sections:
        span = spans.of(text)
        files.append(change if span == change.span else replace(change, span=span))
        texts.append(text)
    files.sort(key=lambda change: change.path)
    return TreeDiff(base=base, tree=tree, files=files, patch="".join(texts))


class Spans:
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
