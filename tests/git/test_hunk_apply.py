"""Hunks on real git: ids from the diff, applying a selection three-way, the rest later."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from caesar_core.git import (
    LocalChangesError,
    apply_changes,
    changes_since,
    create_worktree,
    unapplied_changes,
)
from caesar_core.git.repo import open_repository
from caesar_core.review.hunks import Hunk, Pick, SelectionError, Taken, make_hunk, resolve
from caesar_core.review.revert import revert
from tests.git import TASK_ID, commit_all, git, make_repo, write

BASE = "".join(f"line {n}\n" for n in range(1, 41))


def edited(text: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return text


THREE = (("line 2\n", "line two\n"), ("line 20\n", "line twenty\n"), ("line 38\n", "line 38b\n"))


@pytest.fixture
def task(tmp_path: Path) -> tuple[Path, Path, str]:
    root = make_repo(tmp_path / "repo", {".gitignore": ".caesar/\n", "f.txt": BASE})
    worktree = root / ".caesar" / "wt" / TASK_ID
    base = create_worktree(root, worktree, "caesar/task-01234567")
    return root, worktree, base


def hunks(wt: Path, base: str) -> list[Hunk]:
    diff = changes_since(wt, base, with_patch=True)
    return [hunk for change in diff.files for hunk in change.hunks]


def test_the_diff_carries_hunks_with_git_counts(task: tuple[Path, Path, str]) -> None:
    _root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    diff = changes_since(wt, base, with_patch=True)
    (change,) = diff.files
    shape = change.to_json()["hunks"]
    assert [(h["old_start"], h["added"], h["removed"]) for h in shape] == [
        (1, 1, 1),
        (17, 1, 1),
        (35, 1, 1),
    ]
    assert all(h["header"].startswith("@@ -") and not h["whole"] for h in shape)
    # Ids are stable across re-reads.
    assert [h.id for h in hunks(wt, base)] == [h["id"] for h in shape]


def test_ids_survive_unrelated_edits_elsewhere_in_the_file(task: tuple[Path, Path, str]) -> None:
    _root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    before = hunks(wt, base)
    write(wt, "f.txt", edited(BASE, *THREE[1:]))
    after = hunks(wt, base)
    assert [h.id for h in after] == [h.id for h in before[1:]]


def test_applying_hunk_two_of_three_gives_exactly_that_change(
    task: tuple[Path, Path, str],
) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    commit_all(wt, "agent")
    found = hunks(wt, base)
    result = apply_changes(root, wt, base, picks=[Pick(found[1].id)])
    assert result.applied and result.written == ["f.txt"] and result.hunks == [found[1].id]
    assert (root / "f.txt").read_text() == edited(BASE, THREE[1])
    assert git(root, "diff", "--cached", "--name-only") == ""
    # The rest later: the file holds what the first apply left, so it is not "the user's".
    rest = apply_changes(
        root,
        wt,
        base,
        picks=[Pick(found[0].id), Pick(found[2].id)],
        applied=[Taken(found[1].id, found[1].digest)],
    )
    assert rest.applied and rest.hunks == [found[0].id, found[2].id]
    assert (root / "f.txt").read_text() == edited(BASE, *THREE)
    again = apply_changes(
        root, wt, base, picks=[Pick(found[1].id)], applied=[Taken(h.id, h.digest) for h in found]
    )
    assert again.applied and again.written == [] and again.already_hunks == [found[1].id]


def test_changed_lines_of_a_hunk(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, ("line 5\nline 6\n", "five\nsix\n")))
    (hunk,) = hunks(wt, base)
    assert [line.origin + line.text for line in hunk.lines if line.origin != " "] == [
        "-line 5\n",
        "-line 6\n",
        "+five\n",
        "+six\n",
    ]
    # Remove "line 5" and add "five" (lines 1 and 3): the kept "line 6" stays before "five",
    # as `git add -p` leaves it.
    first = apply_changes(root, wt, base, picks=[Pick(hunk.id, 1, 1), Pick(hunk.id, 3, 3)])
    assert first.hunks == [f"{hunk.id}:1-1", f"{hunk.id}:3-3"]
    assert (root / "f.txt").read_text() == edited(BASE, ("line 5\nline 6\n", "line 6\nfive\n"))
    taken = [Taken(hunk.id, hunk.digest, frozenset({1, 3}))]
    rest = apply_changes(root, wt, base, picks=[Pick(hunk.id)], applied=taken)
    assert rest.applied and rest.hunks == [f"{hunk.id}:2-2", f"{hunk.id}:4-4"]
    assert (root / "f.txt").read_text() == (wt / "f.txt").read_text()


def test_a_conflict_on_one_selected_hunk_writes_nothing(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    write(wt, "g.txt", "new file\n")
    write(root, "f.txt", edited(BASE, ("line 20\n", "the user's twenty\n")))
    commit_all(root, "user")
    found = hunks(wt, base)
    picks = [Pick(h.id) for h in found]  # g.txt's and f.txt's three
    result = apply_changes(root, wt, base, picks=picks)
    assert not result.applied and result.conflicts == ["f.txt"]
    assert not (root / "g.txt").exists()
    assert (root / "f.txt").read_text() == edited(BASE, ("line 20\n", "the user's twenty\n"))


def test_a_file_the_user_changed_is_refused(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    found = hunks(wt, base)
    write(root, "f.txt", BASE + "mine\n")
    with pytest.raises(LocalChangesError):
        apply_changes(root, wt, base, picks=[Pick(found[0].id)])
    # Even after an earlier apply: the user's edit on top of it is the user's.
    write(root, "f.txt", BASE)
    apply_changes(root, wt, base, picks=[Pick(found[0].id)])
    write(root, "f.txt", (root / "f.txt").read_text() + "mine\n")
    with pytest.raises(LocalChangesError):
        apply_changes(
            root, wt, base, picks=[Pick(found[1].id)], applied=[Taken(found[0].id, found[0].digest)]
        )
    assert (root / "f.txt").read_text().endswith("mine\n")


def test_unknown_and_stale_ids_are_refused_with_the_current_ones(
    task: tuple[Path, Path, str],
) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    stale = hunks(wt, base)[0]
    write(wt, "f.txt", edited(BASE, ("line 2\n", "line TWO\n"), *THREE[1:]))
    current = hunks(wt, base)
    with pytest.raises(SelectionError) as refused:
        apply_changes(root, wt, base, picks=[Pick(stale.id)])
    assert stale.id in refused.value.reason
    assert all(h.id in refused.value.remedy for h in current)
    assert (root / "f.txt").read_text() == BASE


def test_whole_hunks_for_binary_rename_and_mode(task: tuple[Path, Path, str]) -> None:
    root, _wt, base = task
    write(root, "tool.sh", "#!/bin/sh\n")
    write(root, "old.txt", "".join(f"moving {n}\n" for n in range(30)))
    commit_all(root, "more files")
    # A fresh worktree at the new HEAD.
    wt2 = root / ".caesar" / "wt" / "t_11111111111111111111111111111111"
    base = create_worktree(root, wt2, "caesar/task-11111111")
    write(wt2, "blob.bin", b"\x00\x01\x02binary")
    os.chmod(wt2 / "tool.sh", 0o755)
    git(wt2, "mv", "old.txt", "new.txt")
    found = {h.path: h for h in hunks(wt2, base)}
    assert all(h.whole for h in found.values())
    assert found["new.txt"].header == "renamed from old.txt"
    assert found["tool.sh"].header == "mode 100644 -> 100755"
    assert found["blob.bin"].header == "binary file created"
    with pytest.raises(SelectionError):
        apply_changes(root, wt2, base, picks=[Pick(found["blob.bin"].id, 1, 1)])
    result = apply_changes(root, wt2, base, picks=[Pick(found["new.txt"].id)])
    assert result.applied and not (root / "old.txt").exists() and (root / "new.txt").exists()
    assert not (root / "blob.bin").exists()
    assert not os.access(root / "tool.sh", os.X_OK)


def test_revert_takes_the_hunk_out_of_the_worktree(task: tuple[Path, Path, str]) -> None:
    _root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    write(wt, "g.txt", "new\n")
    diff = changes_since(wt, base, with_patch=True)
    found = [hunk for change in diff.files for hunk in change.hunks]
    middle = next(h for h in found if "line twenty\n" in [line.text for line in h.lines])
    created = next(h for h in found if h.path == "g.txt")
    selection = resolve([Pick(middle.id), Pick(created.id)], found)
    written = revert(wt, open_repository(wt), diff.files, selection)
    assert written == ["f.txt", "g.txt"]
    assert (wt / "f.txt").read_text() == edited(BASE, THREE[0], THREE[2])
    assert not (wt / "g.txt").exists()
    left = [h.id for h in hunks(wt, base)]
    assert middle.id not in left and created.id not in left and len(left) == 2


def test_unapplied_counts_hunks_neither_applied_nor_rejected(
    task: tuple[Path, Path, str],
) -> None:
    root, wt, base = task
    write(wt, "f.txt", edited(BASE, *THREE))
    found = hunks(wt, base)
    settled = [Taken(h.id, h.digest) for h in found[:2]]
    assert unapplied_changes(root, wt, base, None, settled=settled)
    assert not unapplied_changes(
        root, wt, base, None, settled=[*settled, Taken(found[2].id, found[2].digest)]
    )
    partly = [*settled, Taken(found[2].id, found[2].digest, frozenset({1}))]
    assert unapplied_changes(root, wt, base, None, settled=partly)


def test_no_newline_at_end_is_folded_into_the_text(task: tuple[Path, Path, str]) -> None:
    root, wt, base = task
    write(wt, "f.txt", BASE.rstrip("\n"))
    (hunk,) = hunks(wt, base)
    assert [line.text for line in hunk.lines if line.origin in "+-"] == ["line 40\n", "line 40"]
    # The id is the content's: the same lines made into a hunk by hand give the same one.
    again = make_hunk(hunk.path, hunk.header, 37, 4, 37, 4, hunk.lines)
    assert (again.id, again.body) == (hunk.id, hunk.body)
    apply_changes(root, wt, base, picks=[Pick(hunk.id)])
    assert (root / "f.txt").read_bytes() == BASE.rstrip("\n").encode()
