"""The scripted server's own logic, without any CLI: briefs read from a conversation, and the
check that a later turn's request carries the earlier turns (a resumed session)."""

from __future__ import annotations

import pytest

from tests.live.dialects import codex
from tests.live.modelserver import NotResumed, Say, Script, Shell, read_brief, split_at_brief

FIRST, SECOND = "t_" + "1" * 32, "t_" + "2" * 32


def brief_text(task_id: str, turn: int = 1) -> str:
    head = f"# Follow-up: turn {turn} of task {FIRST}\n\n" if turn > 1 else "# Objective\n\n"
    return (
        f"{head}do it\n\n- Stay inside the workspace: /w.\n\nwrite the report as JSON to "
        f"`/tasks/{task_id}/report.json` ... set `task_id` to `{task_id}`."
    )


def turns() -> Script:
    first = Script([Shell("one"), Shell("two"), Say("first done")])
    return Script(first.steps, followups=[Script([Shell("three"), Say("second done")])])


def test_the_latest_brief_names_the_turn_its_task_and_every_earlier_task() -> None:
    conversation = [brief_text(FIRST), "tool result", brief_text(SECOND, turn=2)]
    brief = read_brief(conversation)
    assert (brief.turn, brief.task_id, brief.task_ids) == (2, SECOND, (FIRST, SECOND))
    assert brief.report_path == f"/tasks/{SECOND}/report.json"
    assert split_at_brief(conversation, brief) == ([brief_text(FIRST), "tool result"], [])


def test_a_later_turn_plays_its_own_script_from_its_brief_on() -> None:
    script = turns()
    resumed = read_brief([brief_text(FIRST), brief_text(SECOND, turn=2)])
    assert script.step(0, resumed, earlier_results=2) == Shell("three")
    assert script.step(1, resumed, earlier_results=2) == Say("second done")
    assert script.step(1, read_brief([brief_text(FIRST)])) == Shell("two")


def test_a_resumed_script_refuses_a_later_turn_without_the_earlier_conversation() -> None:
    script = turns()
    script.resumed = True
    restarted = read_brief([brief_text(SECOND, turn=2)])
    with pytest.raises(NotResumed, match="restarted, not resumed"):
        script.step(0, restarted)
    without_results = read_brief([brief_text(FIRST), brief_text(SECOND, turn=2)])
    with pytest.raises(NotResumed):
        script.step(0, without_results, earlier_results=1)
    assert len(script.violations) == 2
    assert script.step(0, without_results, earlier_results=2) == Shell("three")


def test_codex_searches_again_while_the_channel_has_no_tools_yet() -> None:
    """codex starts the channel's server beside the turn: a search made before it is up finds
    nothing, and is made again (the step replayed) instead of moving on to calls of tools
    codex does not know yet."""
    shell = {"type": "function_call_output", "output": "done"}
    empty = {"type": "tool_search_output", "tools": []}
    found = {"type": "tool_search_output", "tools": [{"type": "namespace", "name": "mcp__x"}]}
    assert codex.played([shell]) == (1, False)
    assert codex.played([shell, empty]) == (1, True)
    assert codex.played([shell, empty, empty]) == (1, True)
    assert codex.played([shell, empty, empty, found]) == (2, False)
    assert codex.played([shell, found, shell]) == (3, False)
    many = [shell] + [empty] * (codex.SEARCHES + 1)
    assert codex.played(many) == (codex.SEARCHES + 2, False)
