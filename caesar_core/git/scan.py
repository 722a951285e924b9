"""The working tree against its index, stat by stat, on two cores when there are two.

``git_diff_index_to_workdir`` compares each file's ``lstat`` with the stat data the index holds
for it and reads only the files whose stat differs (racy entries too, as git does): on a
20,000-file tree it is 20,000 path walks in the kernel, most of a reconciliation's native
time. The walk splits by top-level name: two scans of disjoint halves of the tree, each in its
own repository object (libgit2 objects are not shared between threads; its calls release the
GIL), cover it exactly when the halves together name every top-level entry of the index and
of the disk. The second scan reads the index file again: when that file changed between the
two reads, its scan is thrown away and the first index scans the rest, so the deltas always
describe one index.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import pygit2
from pygit2.enums import DiffOption, RepositoryOpenFlag

WALK = (
    DiffOption.INCLUDE_UNTRACKED
    | DiffOption.RECURSE_UNTRACKED_DIRS
    | DiffOption.INCLUDE_TYPECHANGE
    | DiffOption.INCLUDE_UNREADABLE
    | DiffOption.IGNORE_SUBMODULES
)
"""Index against disk: untracked files one by one, ignored ones left out (as ``add -A``)."""

SPLIT_FROM = 8192
"""Index entries from which the walk is worth a second thread (a repository and an index
opened again, some milliseconds)."""


Stamp = tuple[int, int, int, int] | None
"""An index file's inode, size, mtime and ctime: when two reads see the same, they read the
same bytes (git replaces the file by a rename; a rewrite in place changes its times)."""


def index_stamp(repo: pygit2.Repository) -> Stamp:
    """The stamp of ``repo``'s index file, taken before the index is read."""
    try:
        info = os.stat(Path(repo.path) / "index")
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def workdir_deltas(
    repo: pygit2.Repository, index: pygit2.Index, stamp: Stamp
) -> list[pygit2.DiffDelta]:
    """What differs between ``index`` (``repo``'s, read from disk after ``stamp`` was taken)
    and the working tree. Raises ``pygit2.GitError`` as ``Index.diff_to_workdir`` does."""
    split = halves(repo, index) if stamp is not None else None
    if split is None:
        return list(index.diff_to_workdir(WALK).deltas)
    first, second = split
    other = _Scan(repo, second, stamp)
    other.start()
    try:
        near = _diff(repo, index, first)
    except _BINDING:  # pygit2's binding is not what it was: one scan, its public way
        other.result()
        return list(index.diff_to_workdir(WALK).deltas)
    far = other.result()
    if far is None:  # the second scan failed, or read another index: the first one scans it
        far = _diff(repo, index, second)
    return [*near.deltas, *far.deltas]


def halves(repo: pygit2.Repository, index: pygit2.Index) -> tuple[list[str], list[str]] | None:
    """The top-level names in two halves of about as many index entries, or None when one
    scan is better: one core, a small tree, a tree under one name, case-folded paths, or two
    names of which one begins the other followed by a byte that sorts before ``/`` (``a`` and
    ``a-b``: libgit2 1.9 then loses ``a/`` from the index side of a path list, and reports its
    files untracked)."""
    if len(index) < SPLIT_FROM or cores() < 2 or _ignores_case(repo):
        return None
    workdir = repo.workdir
    if workdir is None:
        return None
    weights = _top_level_counts(index)
    try:
        for entry in os.scandir(workdir):
            if entry.name != ".git":
                weights.setdefault(os.fsencode(entry.name), 0)
    except OSError:
        return None
    total = sum(weights.values())
    if not weights or max(weights.values()) * 10 > total * 7 or _prefix_pair(weights):
        return None
    halves: tuple[list[str], list[str]] = ([], [])
    loads = [0, 0]
    for name, weight in sorted(weights.items(), key=lambda item: -item[1]):
        lighter = 0 if loads[0] <= loads[1] else 1
        halves[lighter].append(os.fsdecode(name))
        loads[lighter] += weight
    return halves if halves[0] and halves[1] else None


def _prefix_pair(names: Iterable[bytes]) -> bool:
    """Whether a name is another followed by a byte below ``/`` (the names beginning with a
    name sort right after it, so neighbours tell)."""
    ordered = sorted(names)
    return any(
        longer.startswith(name) and longer[len(name)] < ord("/")
        for name, longer in itertools.pairwise(ordered)
    )


def cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


def _top_level_counts(index: pygit2.Index) -> dict[bytes, int]:
    """Each top-level name of ``index`` and how many entries it holds: the entries under
    ``name/`` are contiguous in the index's byte order, from ``name/`` up to ``name0`` (no byte
    sorts between ``/`` and ``0``), so each directory costs a binary search, not a walk."""
    counts: dict[bytes, int] = {}
    size = len(index)
    position = 0
    while position < size:
        path = os.fsencode(index[position].path)
        head, slash, _ = path.partition(b"/")
        end = position + 1 if not slash else _first_at_least(index, position, size, head + b"0")
        counts[head] = counts.get(head, 0) + end - position
        position = end
    return counts


def _first_at_least(index: pygit2.Index, low: int, high: int, key: bytes) -> int:
    while low < high:
        middle = (low + high) // 2
        if os.fsencode(index[middle].path) < key:
            low = middle + 1
        else:
            high = middle
    return low


def _ignores_case(repo: pygit2.Repository) -> bool:
    """An index sorted without regard to case is not in byte order: no split."""
    try:
        return bool(repo.config.get_bool("core.ignorecase"))
    except (KeyError, pygit2.GitError):
        return False


_BINDING = (AttributeError, TypeError, ImportError)
"""What a call through pygit2's cffi binding raises when the binding changed shape."""


def _diff(repo: pygit2.Repository, index: pygit2.Index, names: Sequence[str]) -> pygit2.Diff:
    """``git_diff_index_to_workdir`` of the entries under ``names`` (literal paths)."""
    from pygit2.errors import check_error
    from pygit2.ffi import C, ffi

    options = ffi.new("git_diff_options *")
    check_error(C.git_diff_options_init(options, 1))
    options.flags = int(WALK | DiffOption.DISABLE_PATHSPEC_MATCH)
    strings = [ffi.new("char[]", os.fsencode(name)) for name in names]
    array = ffi.new("char *[]", strings)
    options.pathspec.strings = array
    options.pathspec.count = len(strings)
    found = ffi.new("git_diff **")
    repo_ptr = repo._repo
    check_error(C.git_diff_index_to_workdir(found, repo_ptr, index._index, options))
    return pygit2.Diff.from_c(bytes(ffi.buffer(found)[:]), repo)


class _Scan(threading.Thread):
    """The second half, scanned in a repository and index of its own."""

    def __init__(self, repo: pygit2.Repository, names: list[str], stamp: Stamp) -> None:
        super().__init__(name="caesar-scan", daemon=True)
        self._gitdir = Path(repo.path)
        self._workdir = str(repo.workdir)
        self._names = names
        self._stamp = stamp
        self._found: pygit2.Diff | None = None

    def run(self) -> None:
        try:
            repo = pygit2.Repository(self._workdir, RepositoryOpenFlag.NO_SEARCH)
            if Path(repo.path).resolve() != self._gitdir.resolve():
                return
            index = repo.index
            if index_stamp(repo) != self._stamp:
                return  # the index changed since the first was read: the first scans this half
            self._found = _diff(repo, index, self._names)
        except (pygit2.GitError, OSError, ValueError, KeyError, *_BINDING):
            return  # the first one scans this half, and says what is wrong if anything is

    def result(self) -> pygit2.Diff | None:
        self.join()
        return self._found
