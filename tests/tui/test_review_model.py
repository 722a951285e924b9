"""What the Diff tab's choices mean, without a screen: picks, counts, what the record says was
done, and which words of a line changed."""

from __future__ import annotations

from pathlib import Path

from caesar_core.git.diff import FileChange, TreeDiff, patch_digest
from caesar_core.protocol.report import ChangeAction
from caesar_core.review.hunks import Pick
from caesar_tui.review import Box, Done, Review, done_of, line_ranges
from caesar_tui.worddiff import changed_spans
from tests.tui.screen import record, reviewable
from tests.tui.test_review_view import CALC

TASK = "t_" + "e" * 32


def calc_diff() -> TreeDiff:
    return reviewable(
        "b" * 40,
        "c" * 40,
        [(FileChange("calc.py", ChangeAction.MODIFIED, None, 6, 5), "\n".join(CALC) + "\n")],
    )


def test_line_ranges_are_runs_of_consecutive_lines() -> None:
    assert line_ranges({5, 1, 2, 3, 9, 8}) == [(1, 3), (5, 5), (8, 9)]
    assert line_ranges([]) == []


def test_every_hunk_starts_selected_and_toggling_takes_it_out() -> None:
    diff = calc_diff()
    change = diff.files[0]
    first, second, third = change.hunks
    review = Review()
    choice = review.choice([(change, change.hunks)])
    assert choice.whole and choice.picks == (Pick(first.id), Pick(second.id), Pick(third.id))
    review.toggle(second)
    review.choose(third, [2])
    choice = review.choice([(change, change.hunks)])
    assert not choice.whole
    assert choice.picks == (Pick(first.id), Pick(third.id, 2, 2))
    assert review.counts(change, change.hunks).box is Box.SOME
    assert choice.lines[0] == "calc.py: 2 of 3 hunks"
    review.toggle_all(change.hunks)  # some were not selected: all of them now
    assert all(review.box(hunk) is Box.ALL for hunk in change.hunks)
    review.toggle_all(change.hunks)
    assert not review.choice([(change, change.hunks)]).picks


def test_applied_lines_are_never_chosen_again() -> None:
    change = calc_diff().files[0]
    first, second, _ = change.hunks
    review = Review(Done({first.id: None, second.id: frozenset({1, 2})}, {"calc.py": 1}))
    assert review.box(first) is Box.APPLIED and not review.toggle(first)
    assert review.selected(second) == frozenset({3, 4, 5})
    review.choose(second, [1, 2, 3])
    assert review.selected(second) == frozenset({3})
    counts = review.counts(change, change.hunks)
    assert (counts.selected, counts.total, counts.applied, counts.rejected) == (2, 3, 2, 1)


def test_done_of_reads_the_record(tmp_path: Path) -> None:
    diff = calc_diff()
    first, second, third = diff.files[0].hunks
    task = record(TASK, tmp_path)
    assert done_of(task, diff) == Done({}, {})
    whole = task.model_copy(update={"applied_digest": patch_digest(diff.patch)})
    assert done_of(whole, diff).applied == {first.id: None, second.id: None, third.id: None}
    stale = task.model_copy(update={"applied_digest": "0" * 64})
    assert done_of(stale, diff).applied == {}


def test_changed_words_of_an_edited_line() -> None:
    spans = changed_spans("def area(r):", "def area(radius):")
    assert spans is not None
    removed, added = spans
    assert [("def area(r):")[a:b] for a, b in removed] == ["r"]
    assert [("def area(radius):")[a:b] for a, b in added] == ["radius"]
    # A rewrite, not an edit: nothing is highlighted.
    assert changed_spans("return text.split(SEPARATOR)", '"""A docstring."""') is None
    assert changed_spans("same", "same") is None
    assert changed_spans("x" * 2000, "y" * 2000) is None
