"""The working tree's scan split in two halves finds what one scan finds, exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2
import pytest

from caesar_core.git import scan
from caesar_core.git.diff import changes_since
from tests.git import commit_all, git, make_repo, write

Found = set[tuple[int, str, str]]


@pytest.fixture
def two_halves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any tree splits, on any machine."""
    monkeypatch.setattr(scan, "SPLIT_FROM", 1)
    monkeypatch.setattr(scan, "cores", lambda: 2)


def worked_tree(root: Path, *, tops: tuple[str, ...] = ("a", "ab", "b", "c")) -> Path:
    """Files changed, deleted, staged, untracked and ignored under several top-level names, a
    top-level file, a directory only the index knows."""
    files: dict[str, str | bytes] = {
        f"{top}/f{n}.txt": f"{top} {n}\n" for top in tops for n in range(6)
    }
    files |= {"top.txt": "top\n", ".gitignore": "*.log\n"}
    make_repo(root, files)
    write(root, "a/f0.txt", "changed\n")
    write(root, "c/f1.txt", "changed\n")
    (root / "b" / "f2.txt").unlink()
    write(root, "top.txt", "changed\n")
    write(root, "staged/x.txt", "staged\n")
    git(root, "add", "staged")
    shutil.rmtree(root / "staged")  # in the index only now
    write(root, "new/n.txt", "untracked\n")
    write(root, "d.log", "ignored\n")
    return root


def deltas_of(found: list[pygit2.DiffDelta]) -> Found:
    return {(int(d.status), d.old_file.path, d.new_file.path) for d in found}


def one_scan(root: Path) -> Found:
    repo = pygit2.Repository(str(root))
    return deltas_of(list(repo.index.diff_to_workdir(scan.WALK).deltas))


def test_two_halves_find_what_one_scan_finds(tmp_path: Path, two_halves: None) -> None:
    root = worked_tree(tmp_path / "repo")
    repo = pygit2.Repository(str(root))
    stamp = scan.index_stamp(repo)
    index = repo.index
    halves = scan.halves(repo, index)
    assert halves is not None and all(halves)
    found = deltas_of(scan.workdir_deltas(repo, index, stamp))
    assert found == one_scan(root)
    assert {path for _, _, path in found} >= {"a/f0.txt", "top.txt", "staged/x.txt", "new/n.txt"}


def test_names_that_sort_around_a_directory_keep_one_scan(tmp_path: Path, two_halves: None) -> None:
    """``a``, ``a-b`` and ``a.d``: libgit2 loses ``a/`` from the index side of a path list
    naming ``a`` with ``a-b``, so such a tree is scanned whole."""
    root = worked_tree(tmp_path / "repo", tops=("a", "a-b", "a.d", "b", "c"))
    repo = pygit2.Repository(str(root))
    stamp = scan.index_stamp(repo)
    index = repo.index
    assert scan.halves(repo, index) is None
    assert deltas_of(scan.workdir_deltas(repo, index, stamp)) == one_scan(root)


def test_an_index_changed_between_the_two_reads_is_scanned_by_the_first(
    tmp_path: Path, two_halves: None
) -> None:
    root = worked_tree(tmp_path / "repo")
    repo = pygit2.Repository(str(root))
    index = repo.index
    stale = (0, 0, 0, 0)  # what the first read saw is not what the second reads
    assert deltas_of(scan.workdir_deltas(repo, index, stale)) == one_scan(root)


def test_changes_since_is_the_same_with_two_halves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = worked_tree(tmp_path / "repo")
    base = git(root, "rev-parse", "HEAD").strip()
    commit_all(root, "agent work")
    write(root, "c/f3.txt", "after the commit\n")
    single = changes_since(root, base, with_patch=True)
    monkeypatch.setattr(scan, "SPLIT_FROM", 1)
    monkeypatch.setattr(scan, "cores", lambda: 2)
    assert changes_since(root, base, with_patch=True) == single
