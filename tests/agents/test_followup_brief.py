"""The brief of a follow-up turn (``task.followup``): what it continues, then the review."""

from __future__ import annotations

import re

from caesar_core.agents.brief import render_brief
from caesar_core.protocol.task import FollowUp, FollowUpCheck, FollowUpComment, FollowUpHunk
from tests.agents.test_brief import make_task, section

FIRST = "t_" + "1" * 32


def followup(**fields: object) -> FollowUp:
    return FollowUp.model_validate(
        {
            "continues": FIRST,
            "first_turn": FIRST,
            "turn": 2,
            "first_objective": "Fix the parser crash on empty input.",
            "previous_objective": "Fix the parser crash on empty input.",
            "message": "Keep the old error message.",
            **fields,
        }
    )


def test_a_follow_up_opens_with_what_it_continues_and_the_review_in_order() -> None:
    review = followup(
        comments=[
            FollowUpComment(
                path="src/parser.py", start_line=3, end_line=5, text="too clever", code=["x = 1"]
            )
        ],
        rejected_hunks=[
            FollowUpHunk(
                path="src/api.py",
                header="@@ -1,2 +1,2 @@",
                reason="public API",
                lines=[" keep", "-old()", "+new()"],
            )
        ],
        failed_checks=[FollowUpCheck(command="pytest -q", outcome="exit 1", output="1 failed")],
    )
    task = make_task(objective="Keep the old error message.", followup=review)
    brief = render_brief(task, tier="file", resumed=True)

    headings = re.findall(r"^#+ (.+)$", brief, re.M)
    assert headings[:7] == [
        f"Follow-up: turn 2 of task {FIRST}",
        "Previous objective",
        "What to do now",
        "Review comments",
        "Changes the reviewer rejected",
        "Failing checks",
        "`pytest -q` (exit 1)",
    ]
    assert headings[-2:] == ["Constraints", "Reporting"]
    assert "This goes on in your previous session" in brief
    assert section(brief, "Previous objective") == "Fix the parser crash on empty input."
    assert section(brief, "What to do now") == "Keep the old error message."
    comments = section(brief, "Review comments")
    assert "- `src/parser.py` lines 3-5: too clever\n  ```\n  x = 1\n  ```" in comments
    rejected = section(brief, "Changes the reviewer rejected")
    assert "- `src/api.py`: public API\n\n```diff\n@@ -1,2 +1,2 @@\n keep\n-old()\n+new()\n```" in (
        rejected
    )
    assert "```\n1 failed\n```" in brief
    assert f"set `task_id` to `{task.id}`" in brief  # this turn's report, not the previous one's


def test_a_fresh_session_is_told_it_starts_without_memory() -> None:
    brief = render_brief(make_task(followup=followup()), tier="schema", resumed=False)
    assert "Your earlier session could not be resumed" in brief
    assert "Review comments" not in brief and "reviewer rejected" not in brief


def test_a_third_turn_names_the_task_and_the_previous_objective() -> None:
    review = followup(turn=3, previous_objective="Keep the old error message.")
    brief = render_brief(make_task(objective="And the docs.", followup=review), tier="file")
    assert section(brief, "The task (turn 1)") == "Fix the parser crash on empty input."
    assert section(brief, "Previous objective") == "Keep the old error message."


def test_the_work_quoted_cannot_break_its_fence_or_the_command_line() -> None:
    hostile = ["+```", "+````", "+\x00\x1b[31mred"]
    review = followup(
        rejected_hunks=[FollowUpHunk(path="a.md", reason="no\x00", lines=hostile)],
        failed_checks=[FollowUpCheck(command="make", output="\x00" * 3 + "done")],
    )
    brief = render_brief(make_task(followup=review), tier="file")
    assert "\x00" not in brief and "\x1b" not in brief
    assert "\n`````diff\n" in brief  # longer than any backtick run inside
    assert "\\x00" in brief


def test_items_left_out_are_counted() -> None:
    brief = render_brief(make_task(followup=followup(omitted=4)), tier="file")
    assert "(4 more review item(s) left out" in brief
