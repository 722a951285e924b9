"""The git program's reconciliation (``git.viagit``) against pygit2's, over generated trees,
and what the agent's config or files must not make git run."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caesar_core.git import viagit
from caesar_core.git.changes import TreeDiff
from caesar_core.git.diff import Snapshot, changes_between_by_pygit2, changes_since_by_pygit2
from caesar_core.git.diff import snapshot_by_pygit2 as take_snapshot
from caesar_core.git.difftree import PatchReader, read_raw, split_sections
from caesar_core.git.paths import exclusions
from caesar_core.git.snapshot_by_git import _tree_by_git
from caesar_core.protocol.report import ChangeAction

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@caesar.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@caesar.invalid",
}
NAMES = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e f.txt", "caf\u00e9.txt", "x.bin"]
RAW_NAMES = [b"bad\xff.txt", b'quo"te.txt', b"tab\tname.txt"]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def text(seed: int, lines: int = 12) -> bytes:
    return "".join(f"line {n} of {seed}\n" for n in range(lines)).encode()


def make_base(root: Path) -> str:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for n, name in enumerate(NAMES):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\0\1bin" * 4 if name.endswith(".bin") else text(n))
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "nonl.txt").write_bytes(b"x\ny")
    (root / "empty").write_bytes(b"")
    (root / "run.sh").write_bytes(b"echo\n")
    os.symlink("a.txt", root / "link")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return git(root, "rev-parse", "HEAD").strip()


OPS = st.sampled_from(
    [
        "modify", "append", "delete", "rename", "untracked", "ignored",
        "chmod", "symlink", "retarget", "binary", "crlf", "nonl", "raw_name",
        "empty", "stage", "commit", "dir_untracked", "rename_edit", "typechange",
    ]
)  # fmt: skip


def apply_op(root: Path, op: str, n: int) -> None:
    files = sorted(
        p for p in root.rglob("*") if ".git" not in p.parts and (p.is_file() or p.is_symlink())
    )
    target = files[n % len(files)] if files else None
    if op == "modify" and target and target.is_file() and not target.is_symlink():
        target.write_bytes(target.read_bytes().replace(b"line 3", b"LINE 3 changed"))
    elif op == "append" and target and target.is_file() and not target.is_symlink():
        target.write_bytes(target.read_bytes() + b"more\n")
    elif op == "delete" and target:
        target.unlink()
    elif op in ("rename", "rename_edit") and target and not target.is_symlink():
        dest = target.with_name(f"moved{n}-{target.name}")
        target.rename(dest)
        if op == "rename_edit":
            dest.write_bytes(dest.read_bytes() + b"edited\n")
    elif op == "untracked":
        (root / f"new{n}.txt").write_bytes(text(100 + n))
    elif op == "dir_untracked":
        (root / "fresh" / f"n{n}").mkdir(parents=True, exist_ok=True)
        (root / "fresh" / f"n{n}" / "f.txt").write_bytes(text(200 + n, 3))
    elif op == "ignored":
        (root / f"noise{n}.log").write_bytes(b"ignored\n")
    elif op == "chmod" and target and not target.is_symlink():
        target.chmod(target.stat().st_mode ^ stat.S_IXUSR)
    elif op == "symlink" and not os.path.lexists(root / f"ln{n}"):
        os.symlink("../outside" if n % 2 else "a.txt", root / f"ln{n}")
    elif op == "retarget" and (root / "link").is_symlink():
        (root / "link").unlink()
        os.symlink(f"/etc/target{n}", root / "link")
    elif op == "typechange" and target and not target.is_symlink():
        target.unlink()
        os.symlink("b.txt", target)
    elif op == "binary":
        (root / "x.bin").write_bytes(b"\0\2" * (n + 1))
    elif op == "crlf":
        (root / "crlf.txt").write_bytes(b"one\r\nTWO\r\n")
    elif op == "nonl":
        (root / "nonl.txt").write_bytes(b"x\nz")
    elif op == "raw_name":
        (root / os.fsdecode(RAW_NAMES[n % len(RAW_NAMES)])).write_bytes(b"raw\n")
    elif op == "empty":
        (root / f"empty{n}").write_bytes(b"")
    elif op == "stage":
        git(root, "add", "-A")
    elif op == "commit":
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "work", "--allow-empty")


def same(root: Path, base: str, **options: object) -> None:
    """Both reconciliations name the same change: the same tree, and file for file the same
    sides (blobs, modes), counts, patch sections and hunks, wherever rename detection does
    not enter (see :func:`sides`); exactly equal where neither found an inexact rename."""
    for with_patch in (True, False):
        ours = viagit.changes(root, base, peel="commit", with_patch=with_patch, **options)  # type: ignore[arg-type]
        reference = changes_since_by_pygit2(root, base, with_patch=with_patch, **options)  # type: ignore[arg-type]
        assert ours is not None
        assert (ours.base, ours.tree) == (reference.base, reference.tree)
        if not (paired(ours) or paired(reference)):
            assert ours == reference
            assert ours.to_json() == reference.to_json()
            continue
        assert sides(ours) == sides(reference)
        assert unpaired(ours, with_patch) == unpaired(reference, with_patch)


Side = tuple[str | None, int]


def paired(diff: TreeDiff) -> bool:
    """Whether a rename detection decided anything here that another could decide otherwise:
    a rename whose content changed, or a type change (libgit2 may split one to pair its old
    side with an added file, git without ``-B`` does not)."""
    return any(
        (change.action is ChangeAction.RENAMED and change.old_blob != change.new_blob)
        or (change.old_mode and change.new_mode and change.old_mode >> 12 != change.new_mode >> 12)
        for change in diff.files
    )


def sides(diff: TreeDiff) -> dict[str, tuple[Side | None, Side | None]]:
    """Each path's (blob, mode) before and after, renames unpaired: what changed, whatever
    pairing a rename detection chose. (Git's and libgit2's similarity measures differ: a small
    edited file moved is one rename for libgit2 and a deletion plus an addition for git. With
    the git program on the PATH, caesar's answer is git's, as ``git diff -M`` shows it.)"""
    found: dict[str, tuple[Side | None, Side | None]] = {}

    def put(path: str, before: Side | None = None, after: Side | None = None) -> None:
        was_before, was_after = found.get(path, (None, None))
        found[path] = (before or was_before, after or was_after)

    for change in diff.files:
        before, after = (change.old_blob, change.old_mode), (change.new_blob, change.new_mode)
        if change.action is ChangeAction.RENAMED and change.old_path:
            put(change.old_path, before=before)
            put(change.path, after=after)
        elif change.action is ChangeAction.CREATED:
            put(change.path, after=after)
        elif change.action is ChangeAction.DELETED:
            put(change.path, before=before)
        else:
            put(change.path, before, after)
    return found


def unpaired(diff: TreeDiff, with_patch: bool) -> list[tuple[object, ...]]:
    """The files changed in place (no rename detection could pair them otherwise), with
    their counts, patch sections and hunks."""
    return [
        (change.path, change.additions, change.deletions, change.hunks,
         diff.patch[change.span.start : change.span.end] if with_patch and change.span else None)
        for change in diff.files
        if change.action is ChangeAction.MODIFIED and change.old_mode >> 12 == change.new_mode >> 12
    ]  # fmt: skip


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    ops=st.lists(st.tuples(OPS, st.integers(0, 30)), min_size=1, max_size=12),
    exclude=st.sampled_from([(), ("dir",), ("a.txt", "fresh")]),
    paths=st.sampled_from([None, ["dir"], ["a.txt", "new1.txt", "link"]]),
)
def test_the_git_program_answers_as_pygit2(
    tmp_path_factory: pytest.TempPathFactory,
    ops: list[tuple[str, int]],
    exclude: tuple[str, ...],
    paths: list[str] | None,
) -> None:
    root = tmp_path_factory.mktemp("eq") / "repo"
    base = make_base(root)
    for op, n in ops:
        apply_op(root, op, n)
    same(root, base)
    same(root, base, exclude=exclude, paths=paths)
    by_git = _tree_by_git(root, exclusions(exclude))  # in-place and turn snapshots
    assert by_git is None or by_git == take_snapshot(root, exclude=exclude).tree


def test_a_snapshot_base_answers_as_pygit2(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_base(root)
    (root / "untracked.txt").write_bytes(b"before\n")
    snap = take_snapshot(root)
    for op, n in [("modify", 1), ("rename", 2), ("untracked", 3), ("delete", 4)]:
        apply_op(root, op, n)
    ours = viagit.changes(root, snap.tree, peel="tree", with_patch=True)
    assert ours == changes_between_by_pygit2(root, Snapshot(snap.tree), with_patch=True)


def test_a_racy_write_after_the_index_is_seen(tmp_path: Path) -> None:
    """A file rewritten at once after the index, same size: the copied index keeps its times,
    so git still re-reads it."""
    root = tmp_path / "repo"
    base = make_base(root)
    git(root, "add", "-A")
    (root / "a.txt").write_bytes((root / "a.txt").read_bytes().replace(b"line 1", b"LINE 1"))
    same(root, base)


def test_a_submodule_or_nested_repository_is_left_to_pygit2(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = make_base(root)
    nested = root / "nested"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / "n.txt").write_text("n\n")
    git(nested, "add", "-A")
    git(nested, "commit", "-q", "-m", "n")
    assert viagit.changes(root, base, peel="commit", with_patch=True) is None


def test_no_filter_driver_or_fsmonitor_of_the_agent_runs(tmp_path: Path) -> None:
    """The agent wrote the repository's config and a ``.gitattributes``: git stores the bytes
    as they are (as libgit2 does) and runs neither program."""
    root = tmp_path / "repo"
    base = make_base(root)
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    program.chmod(0o755)
    git(root, "config", "filter.evil.clean", str(program))
    git(root, "config", "filter.evil.required", "true")
    git(root, "config", "filter.evil.process", str(program))
    git(root, "config", "core.fsmonitor", str(program))
    git(root, "config", "diff.evil.textconv", str(program))
    git(root, "config", "diff.external", str(program))
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    (root / "a.txt").write_bytes(b"changed\n")
    (root / "new.txt").write_bytes(b"new\n")
    found = viagit.changes(root, base, peel="commit", with_patch=True)
    assert not marker.exists()
    assert found is not None
    assert found == changes_since_by_pygit2(root, base, with_patch=True)


def test_no_user_git_variable_steers_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "a.txt").write_bytes(b"changed\n")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "other-index"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor=/bin/false'")
    found = viagit.changes(root, base, peel="commit", with_patch=True)
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    assert found == changes_since_by_pygit2(root, base, with_patch=True)


def test_the_agents_index_is_not_touched(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "new.txt").write_bytes(b"new\n")
    index = root / ".git" / "index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    assert viagit.changes(root, base, peel="commit", with_patch=True) is not None
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert git(root, "status", "--porcelain") == "?? new.txt\n"


def test_a_ref_that_looks_like_an_option_is_left_to_pygit2(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_base(root)
    assert viagit.changes(root, "--output=/tmp/x", peel="commit") is None


def test_an_edited_rename_of_a_small_file_is_paired_as_git_pairs_it(tmp_path: Path) -> None:
    """libgit2 calls it a rename (its similarity measure says 66%); git, and so caesar with the
    git program on the PATH, a deletion and an addition. Both name the same change."""
    root = tmp_path / "repo"
    base = make_base(root)
    (root / ".gitignore").rename(root / "moved-.gitignore")
    with (root / "moved-.gitignore").open("ab") as out:
        out.write(b"edited\n")
    same(root, base)
    found = viagit.changes(root, base, peel="commit")
    assert found is not None
    assert {(f.path, f.action) for f in found.files} == {
        (".gitignore", ChangeAction.DELETED),
        ("moved-.gitignore", ChangeAction.CREATED),
    }


def test_a_type_change_whose_old_side_moved(tmp_path: Path) -> None:
    """libgit2 splits the type change and pairs its old side with the added copy; git keeps
    one type change and one addition. Both name the same change."""
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "empty").unlink()
    os.symlink("b.txt", root / "empty")
    (root / "empty0").write_bytes(b"")
    same(root, base)


def test_an_excluded_path_the_project_ignores_is_left_out_by_git(tmp_path: Path) -> None:
    """``.caesar/`` in the project's ``.gitignore`` (as ``caesar init`` writes it): git's add
    refuses to name an ignored path even to exclude it, and says so; the answer is still
    git's, and the same as pygit2's, for a worktree and for an in-place task's snapshot."""
    root = tmp_path / "repo"
    make_base(root)
    (root / ".gitignore").write_text("*.log\n.caesar/\n")
    git(root, "commit", "-qam", "ignore caesar")
    base = git(root, "rev-parse", "HEAD").strip()
    (root / ".caesar" / "tasks").mkdir(parents=True)
    (root / ".caesar" / "tasks" / "t.json").write_text("{}")
    apply_op(root, "modify", 1)
    found = viagit.changes(root, base, peel="commit", with_patch=True)
    assert found is not None
    same(root, base)
    assert _tree_by_git(root, exclusions(())) == take_snapshot(root).tree


def test_a_binary_file_kept_as_it_was_is_still_said_binary(tmp_path: Path) -> None:
    """An exact rename and a mode change say nothing of the content in a patch: whether it
    is binary is git's ``--numstat`` of those files, as libgit2 reads it from the blob."""
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "x.bin").rename(root / "moved.bin")
    (root / "a.txt").rename(root / "moved-a.txt")
    (root / "run.sh").chmod(0o755)
    apply_op(root, "modify", 2)
    same(root, base)
    found = viagit.changes(root, base, peel="commit", with_patch=True)
    assert found is not None
    kept = {f.path: f for f in found.files}
    assert kept["moved.bin"].binary
    assert "Binary files a/x.bin and b/moved.bin differ" in found.patch
    assert not kept["moved-a.txt"].binary


def test_a_kept_file_whose_name_is_a_directory_on_the_other_side(tmp_path: Path) -> None:
    """``a.txt`` moved as it was, and a directory ``a.txt/`` made in its place: a ``--numstat``
    of the kept files' paths alone would also find the directory's files, so it is the whole
    diff's, and the answer the same."""
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "a.txt").rename(root / "moved-a.txt")
    (root / "a.txt").mkdir()
    (root / "a.txt" / "inside.txt").write_bytes(text(7))
    (root / "x.bin").rename(root / "moved.bin")
    same(root, base)


def test_intent_to_add_entries_count_as_their_content(tmp_path: Path) -> None:
    """``git add -N`` in the agent's index: the file counts as it is on disk; under an
    excluded path, not at all (as ``write-tree`` leaves such an entry out)."""
    root = tmp_path / "repo"
    base = make_base(root)
    (root / "new.txt").write_bytes(text(3))
    (root / "dir" / "later.txt").write_bytes(text(4))
    git(root, "add", "-N", "new.txt", "dir/later.txt")
    same(root, base)
    same(root, base, exclude=("dir",))
    (root / "new.txt").unlink()
    same(root, base)


@pytest.fixture(scope="module")
def diff_output(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """``diff-tree -M --raw -z -p`` of many kinds of change."""
    root = tmp_path_factory.mktemp("stream") / "repo"
    base = make_base(root)
    for n, op in enumerate(
        ["nonl", "modify", "rename", "untracked", "delete", "typechange", "binary", "raw_name"]
    ):
        apply_op(root, op, n)
    git(root, "add", "-A")
    tree = git(root, "write-tree").strip()
    raw = subprocess.run(
        ["git", "diff-tree", "-r", "-M", "--raw", "-z", "-p", base, tree],
        cwd=root, env=ENV, check=True, capture_output=True,
    ).stdout  # fmt: skip
    assert raw.count(b"\ndiff --git ") >= 6
    return raw


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sizes=st.lists(st.integers(1, 300), min_size=1, max_size=30))
def test_a_patch_read_as_it_comes_is_read_as_a_whole(diff_output: bytes, sizes: list[int]) -> None:
    """The diff's output cut anywhere into chunks (as a pipe gives it) reads as the whole."""
    chunks: list[bytes] = []
    at = 0
    while at < len(diff_output):
        size = sizes[len(chunks) % len(sizes)]
        chunks.append(diff_output[at : at + size])
        at += size
    reader = PatchReader(iter(chunks))
    entries, rest = read_raw(diff_output)
    assert reader.entries() == entries
    assert list(reader.sections()) == split_sections(rest)
