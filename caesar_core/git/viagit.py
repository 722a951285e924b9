"""Reconciliation by the ``git`` program: the ``TreeDiff`` of ``git.diff``, in a third of the time.

pygit2's import alone costs more than git's processes doing the whole reconciliation, and
git's own stat refresh is threaded. So ``caesar diff`` asks git when it can (``git.program``
pins what git may run), in six short processes (two at once) and no change to anything the
agent owns:

1. ``rev-parse``: the working tree's root, its git directory, the base's id;
2. ``config --list``: the filter drivers and transports to neutralise;
3. ``add -A`` into a copy of the worktree's index (``GIT_INDEX_FILE`` in a private temporary
   directory, the copy's times kept so git's racy-entry check still sees what it would), the
   excluded paths left out by pathspec, so they are never read;
4. ``write-tree``: the content's tree, as ``content.content_tree`` builds it; and at the
   same time
5. ``diff-index --cached -M --raw -p`` from the base to that index (the same entries as the
   tree's: intent-to-add entries invisible, as ``write-tree`` leaves them out, and a conflict
   fails ``write-tree``), parsed here into the same files, spans and hunks, the index lines
   abbreviated as libgit2 writes them (7 digits) and type changes written as libgit2 writes
   them (one section, no hunk).

Changes outside the selection are put back as the base has them (``update-index``) and the tree
written again, as ``diff.reconcile`` rebuilds its tree. A file that keeps its content (an exact
rename, a mode change) says nothing of it in a patch: whether it is binary comes from a
``--numstat`` of those files alone (the whole diff's when that run pairs them otherwise).
Whatever git cannot answer the way pygit2 would -- a submodule or nested repository in the
diff, a ``core.abbrev``, a refusal of any kind (a damaged index, an unreadable file, a
conflict, no git) -- returns None, and the caller asks pygit2, whose answer and errors are the
reference. ``tests/git/test_viagit.py`` runs both over generated trees.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from caesar_core.actions import ChangeAction
from caesar_core.git.changes import (
    FileChange,
    PatchSpan,
    Spans,
    TreeDiff,
    assemble,
    link_leaves_repository,
)
from caesar_core.git.difftree import (
    PatchReader,
    RawEntry,
    file_lines,
    libgit2_header,
    quoted,
    read_numstat,
    read_raw,
    section_stats,
    type_change_section,
)
from caesar_core.git.hunks import GITLINK_MODE, LINK_MODE, Sides, file_hunks
from caesar_core.git.paths import exclusions, normalize_rel, under_any
from caesar_core.git.program import Git, GitFailed
from caesar_core.git.staging import Staging, revision, staged

_ACTIONS = {
    "A": ChangeAction.CREATED,
    "C": ChangeAction.CREATED,
    "D": ChangeAction.DELETED,
    "M": ChangeAction.MODIFIED,
    "T": ChangeAction.MODIFIED,
    "R": ChangeAction.RENAMED,
}
_ZERO = "0" * 40
_OPTIONS = (
    "-M", "--raw", "-z", "--full-index", "--no-indent-heuristic", "--diff-algorithm=myers",
    "--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/",
    "--no-relative",
)  # fmt: skip
_INDEX_DIFF = ("diff-index", "--cached", "--ita-invisible-in-index", *_OPTIONS)
_TREE_DIFF = ("diff-tree", "-r", *_OPTIONS)
_PATHSPEC_BYTES = 64 * 1024
"""The most a run's path arguments hold (far below any system's limit)."""


def changes(
    workdir: Path,
    base_ref: str,
    *,
    peel: str,
    exclude: Sequence[str] = (),
    with_patch: bool = False,
    paths: Sequence[str] | None = None,
    started: Staging | None = None,
) -> TreeDiff | None:
    """What differs between ``base_ref`` (peeled to ``peel``: ``commit`` or ``tree``) and
    ``workdir``'s content, as ``diff.changes_since`` / ``changes_between`` tell it; None when
    git cannot tell it the same way (then pygit2 does). ``started`` is
    :func:`caesar_core.git.staging.begin`'s staging for the same arguments, if the caller
    started it (taken, and closed, here; one for other arguments is closed unused)."""
    try:
        return _changes(workdir, base_ref, peel, exclude, with_patch, paths, started)
    finally:
        if started is not None:
            started.close()


def _changes(
    workdir: Path,
    base_ref: str,
    peel: str,
    exclude: Sequence[str],
    with_patch: bool,
    paths: Sequence[str] | None,
    started: Staging | None,
) -> TreeDiff | None:
    if base_ref.startswith("-"):
        return None
    excludes = exclusions(exclude)
    selected = None if paths is None else [normalize_rel(p, "selected path") for p in paths]
    if selected is not None and "" in selected:
        selected = None
    rev = revision(base_ref, peel)
    try:
        if started is not None and started.key != (str(workdir), rev, tuple(excludes)):
            started = None  # closed unused by the caller
        with started if started is not None else staged(workdir, rev, excludes) as work:
            if work is None:
                return None
            git, top, index, base = work.git, work.top, work.index, work.rev
            run = _Diff(git, top, index, base, with_patch)
            try:
                if any(GITLINK_MODE in (e.old_mode, e.new_mode) for e in run.entries):
                    return None
                undo = _outside(run.entries, excludes, selected)
                if undo:
                    run.close()
                    git.run(["update-index", "-z", "--index-info"], top, index=index, stdin=undo)
                    run = _Diff(git, top, index, base, with_patch)
                sections = _read(run, git, top, base)
                tree = run.tree()
            finally:
                run.close()
    except GitFailed:
        return None
    label = base_ref if peel == "tree" else base  # as pygit2's answer names it
    return assemble(label, tree, sections)


def _read(run: _Diff, git: Git, top: str, base: str) -> list[tuple[FileChange, str]]:
    """The sections of ``run``'s diff, each read as git writes it (the numstat of files kept
    as they were asked for when the first is met)."""
    entries = run.entries
    targets = _link_targets(git, top, entries)
    if not run.with_patch:
        return _sections(entries, iter(()), targets, counts=read_numstat(run.reader.rest()))
    counts: list[Sequence[tuple[bool, int, int]] | None] = []

    def kept() -> Sequence[tuple[bool, int, int]] | None:
        if not counts:
            counts.append(_counts_if_same_content(git, top, base, run.tree(), entries))
        return counts[0]

    pieces = run.reader.sections()
    sections = _sections(entries, pieces, targets, kept=kept)
    for _ in pieces:  # the rest (none), to git's exit
        pass
    return sections


class _Diff:
    """``write-tree`` of an index and the diff from ``base`` to it (``--numstat``, or the
    patch), started at once; the raw entries read, the rest to read as it comes."""

    def __init__(self, git: Git, top: str, index: str, base: str, with_patch: bool) -> None:
        self.with_patch = with_patch
        self._tree: str | None = None
        shape = ["-p", "-U3", "--inter-hunk-context=0"] if with_patch else ["--numstat"]
        self._writing = git.start(["write-tree"], top, index=index)
        try:  # -U implies -p: never with --numstat
            self._diffing = git.start([*_INDEX_DIFF, *shape, base], top, index=index)
        except BaseException:
            self._writing.reap()
            raise
        self.reader = PatchReader(self._diffing.chunks())
        try:
            self.entries = self.reader.entries()
        except ValueError as error:
            self.close()
            raise GitFailed(str(error)) from None
        except BaseException:
            self.close()
            raise

    def tree(self) -> str:
        """The index's tree (once ``write-tree`` is done)."""
        if self._tree is None:
            self._tree = self._writing.result().decode().strip()
        return self._tree

    def close(self) -> None:
        """Both runs ended (one still writing is stopped)."""
        self._diffing.reap()
        self._writing.reap()


def _counts_if_same_content(
    git: Git, top: str, base: str, tree: str, entries: Sequence[RawEntry]
) -> list[tuple[bool, int, int]] | None:
    """The ``--numstat`` of each entry when a file in the diff keeps its content (an exact
    rename, a mode change): a patch says nothing of that content, and whether it is binary
    is only said there (libgit2 reads the blob). None, without a second run, otherwise.

    The run is limited to those files' paths when it then finds exactly those entries (the
    same pairs: an exact rename's sides are both in it); anything else (a path that is a
    directory on the other side, a pairing of its own) and it is the whole diff's."""
    kept = [entry for entry in entries if _same_content(entry)]
    if not kept:
        return None
    specs = sorted({f":(literal){path}" for e in kept for path in (e.old_path, e.path)})
    if sum(len(spec) + 1 for spec in specs) <= _PATHSPEC_BYTES:
        out = git.run([*_TREE_DIFF, "--numstat", base, tree, "--", *specs], top)
        found, rest = read_raw(out)
        if found == kept:
            counts = iter(read_numstat(rest))
            return [next(counts) if _same_content(e) else (False, 0, 0) for e in entries]
    out = git.run([*_TREE_DIFF, "--numstat", base, tree], top)
    return read_numstat(read_raw(out)[1])


def _same_content(entry: RawEntry) -> bool:
    """Whether ``entry`` keeps a file's content (both sides exist, one blob)."""
    return bool(entry.old_mode and entry.new_mode) and entry.old_id == entry.new_id


def _outside(
    entries: Sequence[RawEntry], excludes: Sequence[str], selected: Sequence[str] | None
) -> bytes:
    """``update-index --index-info`` input putting back, as the base has them, the changes
    outside the selection (each half of a rename judged alone, as ``diff.reconcile`` does)."""

    def keep(path: str) -> bool:
        return not under_any(path, excludes) and (selected is None or under_any(path, selected))

    lines: list[bytes] = []
    for entry in entries:
        halves = [(entry.old_path, entry.old_mode, entry.old_id)]
        if entry.status in "RC":
            if entry.status == "C":
                halves = []
            halves.append((entry.path, 0, _ZERO))
        for path, mode, oid in halves:
            if not keep(path):
                record = f"{mode:o} {oid}\t" if mode else f"0 {_ZERO}\t"
                lines.append(record.encode() + path.encode("utf-8", "surrogateescape") + b"\0")
    return b"".join(lines)


def _link_targets(git: Git, top: str, entries: Sequence[RawEntry]) -> dict[str, str]:
    """Where each symbolic link the change leaves points (blob id -> target)."""
    wanted = sorted({e.new_id for e in entries if e.new_mode == LINK_MODE and e.status != "D"})
    if not wanted:
        return {}
    out = git.run(["cat-file", "--batch"], top, stdin="".join(f"{i}\n" for i in wanted).encode())
    found: dict[str, str] = {}
    at = 0
    for oid in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitFailed(f"link blob {oid} is missing")
        size = int(header[2])
        found[oid] = os.fsdecode(out[end + 1 : end + 1 + size])
        at = end + 2 + size
    return found


def _sections(
    entries: Sequence[RawEntry],
    pieces: Iterator[bytes],
    targets: dict[str, str],
    *,
    counts: Sequence[tuple[bool, int, int]] | None = None,
    kept: Callable[[], Sequence[tuple[bool, int, int]] | None] = lambda: None,
) -> list[tuple[FileChange, str]]:
    """Each entry's change and its section of the patch ``pieces`` (empty with the diff's
    ``counts``, its ``--numstat``, and no patch); ``kept()`` is the ``--numstat`` read when a
    file keeps its content (:func:`_counts_if_same_content`)."""
    with_patch = counts is None
    sections: list[tuple[FileChange, str]] = []
    spans = Spans()  # made here as ``assemble`` makes them, so no change is built twice
    for n, entry in enumerate(entries):
        data = b""
        stats = (False, 0, 0)
        if entry.status == "T":  # git writes a deletion and an addition; libgit2 one section
            if with_patch:
                _next(pieces), _next(pieces)
                data = type_change_section(entry)
        elif with_patch:
            data = libgit2_header(_next(pieces))
            stats = section_stats(data)
            if _same_content(entry):
                same = kept()
                if same is not None and same[n][0] and not stats[0]:  # binary, libgit2 says
                    old, new = quoted("a/" + entry.old_path), quoted("b/" + entry.path)
                    data += f"Binary files {old} and {new} differ\n".encode(
                        "utf-8", "surrogateescape"
                    )
                    stats = (True, 0, 0)
            elif not stats[0] and entry.old_id != entry.new_id and b"\n--- " not in data:
                data += file_lines(entry)  # libgit2 names the sides of a change with no hunk
        elif counts is not None:
            stats = counts[n]
        text = data.decode("utf-8", "replace")
        sections.append((_change(entry, data, stats, targets, spans.of(text)), text))
    return sections


def _next(pieces: Iterator[bytes]) -> bytes:
    """The patch's next section; :class:`GitFailed` where it has none left."""
    for piece in pieces:
        return piece
    raise GitFailed("the patch ends before its files")


def _change(
    entry: RawEntry,
    data: bytes,
    stats: tuple[bool, int, int],
    targets: dict[str, str],
    span: PatchSpan | None,
) -> FileChange:
    """The change ``entry`` makes; ``stats`` are whether it is binary and its line counts,
    ``span`` where its section is in the patch."""
    binary, additions, deletions = stats
    action = _ACTIONS.get(entry.status, ChangeAction.MODIFIED)
    target = (
        targets.get(entry.new_id)
        if entry.new_mode == LINK_MODE and action is not ChangeAction.DELETED
        else None
    )
    return FileChange(
        path=entry.path,
        action=action,
        old_path=entry.old_path if action is ChangeAction.RENAMED else None,
        additions=additions,
        deletions=deletions,
        binary=binary,
        link_target=target,
        link_outside=target is not None and link_leaves_repository(entry.path, target),
        span=span,
        hunks=file_hunks(_sides(entry, binary), data) if data else (),
        old_blob=None if not entry.old_mode or entry.old_id == _ZERO else entry.old_id,
        new_blob=None if not entry.new_mode or entry.new_id == _ZERO else entry.new_id,
        old_mode=entry.old_mode,
        new_mode=entry.new_mode,
    )


def _sides(entry: RawEntry, binary: bool) -> Sides:
    """``entry``'s two sides, as :func:`~caesar_core.git.hunks.file_hunks` reads them."""
    return Sides(
        status=entry.status,
        old_path=entry.old_path if entry.status in "RC" else entry.path,
        old_id=entry.old_id,
        old_mode=entry.old_mode,
        new_path=entry.path,
        new_id=entry.new_id,
        new_mode=entry.new_mode,
        binary=binary,
    )
