"""The hunk model alone: ids, selections, applying and reverting changed lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caesar_core.review.hunks import (
    Hunk,
    Pick,
    Selection,
    SelectionError,
    apply_selection,
    parse_pick,
    resolve,
    split,
)
from tests.review.difflib_hunks import hunks_of

LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n", "f"]), max_size=30)


def _text(lines: list[str]) -> str:
    # Only the last line may lack its newline.
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines[:-1]) + (
        lines[-1] if lines else ""
    )


def _everything(hunks: list[Hunk]) -> Selection:
    return resolve([Pick(h.id) for h in hunks], hunks)


@given(LINES, LINES)
def test_all_or_nothing_gives_either_side(old_lines: list[str], new_lines: list[str]) -> None:
    old, new = _text(old_lines), _text(new_lines)
    hunks = hunks_of("f.txt", old, new)
    assert apply_selection(old, hunks, _everything(hunks)) == new
    assert apply_selection(old, hunks, Selection({})) == old
    assert apply_selection(new, hunks, _everything(hunks), reverse=True) == old
    assert apply_selection(new, hunks, Selection({}), reverse=True) == new


@given(LINES, LINES, st.data())
def test_applying_some_hunks_then_reverting_them_is_the_base(
    old_lines: list[str], new_lines: list[str], data: st.DataObject
) -> None:
    old, new = _text(old_lines), _text(new_lines)
    hunks = hunks_of("f.txt", old, new)
    chosen = data.draw(st.lists(st.sampled_from(hunks), unique=True) if hunks else st.just([]))
    selection = resolve([Pick(h.id) for h in chosen], hunks)
    middle = apply_selection(old, hunks, selection)
    rest = resolve([Pick(h.id) for h in hunks if h not in chosen], hunks)
    # What was not taken, reverted out of the new side, is what was taken.
    assert apply_selection(new, hunks, rest, reverse=True) == middle


def test_ids_follow_content_not_position() -> None:
    old = "".join(f"line {i}\n" for i in range(40))
    new = old.replace("line 30\n", "line thirty\n")
    moved_old = "header\n" + old
    moved_new = "header\n" + new
    (first,) = hunks_of("f.txt", old, new)
    (second,) = hunks_of("f.txt", moved_old, moved_new)
    assert first.id == second.id and first.old_start != second.old_start
    (other_path,) = hunks_of("g.txt", old, new)
    assert other_path.id != first.id


def test_changed_lines_of_one_hunk() -> None:
    old = "a\nb\nc\n"
    new = "a\nB\nC\nc\n"  # -b +B +C : changed lines 1 (-b), 2 (+B), 3 (+C)
    (hunk,) = hunks_of("f.txt", old, new)
    assert hunk.changed == 3
    only_b = resolve([parse_pick(f"{hunk.id}:2-2")], [hunk])
    assert apply_selection(old, [hunk], only_b) == "a\nb\nB\nc\n"
    drop_b = resolve([parse_pick(f"{hunk.id}:1-1")], [hunk])
    assert apply_selection(old, [hunk], drop_b) == "a\nc\n"


def test_bad_selections_are_refused_with_the_current_ids() -> None:
    (hunk,) = hunks_of("f.txt", "a\n", "b\n")
    with pytest.raises(SelectionError, match=hunk.id):
        resolve([Pick("h_000000000000")], [hunk])
    with pytest.raises(SelectionError, match="changed lines"):
        resolve([parse_pick(f"{hunk.id}:1-5")], [hunk])
    with pytest.raises(SelectionError, match="overlaps"):
        resolve([parse_pick(f"{hunk.id}:1-2"), parse_pick(f"{hunk.id}:2-2")], [hunk])
    for bad in ("h_xyz", "h_000000000000:0-1", "h_000000000000:3-2", ""):
        with pytest.raises(SelectionError):
            parse_pick(bad)


def test_split_cuts_at_context_lines() -> None:
    old = "".join(f"{c}\n" for c in "abcdefgh")
    new = old.replace("b\n", "B\n").replace("d\n", "D\nD2\n")
    (hunk,) = hunks_of("f.txt", old, new)
    assert split(hunk) == [(1, 2), (3, 5)]
    first = resolve([Pick(hunk.id, 1, 2)], [hunk])
    assert apply_selection(old, [hunk], first) == old.replace("b\n", "B\n")
