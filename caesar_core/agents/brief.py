"""The brief: the prompt an agent receives, rendered from its task.

The task file is the contract, but most agent CLIs take a prompt, not a file; the brief says
the same things in the form a model reads best. It ends with the one part the agent must not
get wrong, how to hand its report back, which depends on the tier caesar chose for it (the
MCP return channel, native structured output, or the report file).

A follow-up turn (``task.followup``) opens with what it continues instead: the previous
objective, what the reviewer asks now, their open comments with the code, the hunks they
rejected with why, and the output of the checks that failed (``review.followup`` renders
those, escaped and fenced: they quote the agent's own work).

The text is a pure function of its inputs (no timestamps, no randomness), so a task rendered
twice gets the same prompt, and the brief can be snapshot-tested and reproduced from
``task.json`` alone.
"""

from __future__ import annotations

import json
from typing import Literal, assert_never

from caesar_core.protocol.task import FollowUp, Mode, Task
from caesar_core.protocol.taskdir import ENV_REPORT_PATH
from caesar_core.protocol.versions import CURRENT, DocumentKind
from caesar_core.report.example import EXAMPLE_FIELDS

Tier = Literal["channel", "schema", "file"]
"""How the report comes back (the same values as ``caesar_core.agents.base.ReportTier``)."""

READ_ONLY = "Modify nothing: do not create, edit or delete files."
NO_NETWORK = "No network: do not install packages, clone repositories or fetch URLs."


def render_brief(
    task: Task,
    *,
    tier: Tier,
    channel_server: str = "caesar",
    system_prompt: str = "",
    resumed: bool = False,
) -> str:
    """The whole prompt for ``task``: objective, context, constraints, criteria, reporting.

    ``system_prompt`` (an agent profile's standing instructions) comes first, so the task's
    own sections, read last, take precedence. ``channel_server`` is the name the agent sees
    the task's MCP server under. ``resumed`` says a follow-up turn goes on in the agent's
    own session (it remembers the earlier turns); else it starts fresh and is told so.
    """
    sections: list[str] = []
    if system_prompt.strip():
        sections.append(system_prompt.strip())
    if task.followup is not None:
        sections += _followup(task, task.followup, resumed)
    else:
        sections.append(f"# Objective\n\n{task.objective.strip()}")
    if task.context.strip():
        sections.append(f"## Context\n\n{task.context.strip()}")
    sections.append(_bullets("## Constraints", _constraints(task)))
    criteria = [item for item in task.acceptance_criteria if item.strip()]
    if criteria:
        sections.append(_bullets("## Acceptance criteria", criteria))
    sections.append(_reporting(task, tier, channel_server))
    return "\n\n".join(sections) + "\n"


def _followup(task: Task, followup: FollowUp, resumed: bool) -> list[str]:
    """The opening of a follow-up turn: what it continues, then the review, item by item
    (``review.followup``)."""
    # A follow-up turn only: a first turn's brief does not load the review's formatting.
    from caesar_core.review.followup import (
        checks_section,
        clean,
        comments_section,
        rejected_section,
    )

    if resumed:
        lead = (
            "This goes on in your previous session. The workspace holds the work of the earlier "
            "turns as the reviewer left it (what they rejected is no longer there). Answer the "
            "review below, then report again: this turn has its own task id and report path "
            "(see Reporting)."
        )
    else:
        lead = (
            "Your earlier session could not be resumed: you start without its memory. The "
            "workspace already holds the work of the earlier turns as the reviewer left it "
            "(what they rejected is no longer there): read it before you change anything. "
            "Answer the review below, then report (see Reporting)."
        )
    sections = [f"# Follow-up: turn {followup.turn} of task {followup.first_turn}\n\n{lead}"]
    if followup.turn > 2 and followup.first_objective != followup.previous_objective:
        sections.append(f"## The task (turn 1)\n\n{clean(followup.first_objective)}")
    sections += [
        f"## Previous objective\n\n{clean(followup.previous_objective)}",
        f"## What to do now\n\n{clean(task.objective)}",
        comments_section(followup.comments),
        rejected_section(followup.rejected_hunks),
        checks_section(followup.failed_checks),
    ]
    if followup.omitted:
        sections.append(
            f"({followup.omitted} more review item(s) left out to keep this short; the whole "
            "work is in the workspace.)"
        )
    return [section for section in sections if section]


def _constraints(task: Task) -> list[str]:
    """The task's own constraints, then the ones caesar asserts, each said once."""
    items = [item for item in task.constraints if item.strip()]
    if task.mode is Mode.READ_ONLY:
        items.append(READ_ONLY)
    if not task.network:
        items.append(NO_NETWORK)
    items.append(f"Stay inside the workspace: {task.workspace}.")
    return list(dict.fromkeys(items))


def _bullets(title: str, items: list[str]) -> str:
    """A markdown list; an item's own line breaks stay inside it, indented."""
    return title + "\n\n" + "\n".join("- " + item.strip().replace("\n", "\n  ") for item in items)


def _reporting(task: Task, tier: Tier, channel_server: str) -> str:
    file_exception = (
        " Writing this file is allowed even though the task is read-only."
        if task.mode is Mode.READ_ONLY
        else ""
    )
    if tier == "channel":
        how = (
            f"When you are done, call the `submit_report` tool of the MCP server named "
            f"`{channel_server}` with your report; it is checked on the spot, and a refusal "
            "tells you what to fix. While you work you may call `report_progress` to say "
            "where you are, and `ask_orchestrator` when a decision is outside your scope. "
            "If the tool is unavailable, write the report as JSON to "
            f"`{task.report_path}` (also in ${ENV_REPORT_PATH}) instead.{file_exception}"
        )
    elif tier == "schema":
        how = (
            "Your final answer must be the report object only, as JSON: nothing before or "
            "after it, no prose, no code fence. Fields you have nothing for may be null."
        )
    elif tier == "file":
        how = (
            f"As your LAST action, write the report as JSON to `{task.report_path}` (the "
            f"same path is in ${ENV_REPORT_PATH}). Write it whole, once the work is over; "
            f"it is read when you exit.{file_exception}"
        )
    else:
        assert_never(tier)
    return (
        f"## Reporting\n\n{how}\n\n"
        f"Required fields: `protocol` (exactly `{CURRENT[DocumentKind.REPORT]}`), `status` and "
        f"`summary`; set `task_id` to `{task.id}`. Everything else is optional: leave out "
        "what you have nothing for.\n\n"
        "`status` is one of:\n\n"
        "- `success`: the acceptance criteria are met;\n"
        "- `partial`: part of the work is done; say what remains in `next_steps`;\n"
        "- `failed`: you did not succeed and see no way out;\n"
        "- `blocked`: a decision outside your scope is needed; ask it in `questions`.\n\n"
        "`changes[].action` is `created`, `modified`, `deleted` or `renamed`; "
        "`findings[].severity` is `info`, `low`, `medium`, `high` or `critical`.\n\n"
        f"Example:\n\n```json\n{example_json()}\n```"
    )


def example_json() -> str:
    """The example report as shown: one top-level field per line, each value compact.

    Only the fields the example sets are shown (no empty defaults), which keeps the brief
    short while still showing the shape of every main field.
    """
    lines = [
        f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
        for key, value in EXAMPLE_FIELDS.items()
    ]
    return "{\n" + ",\n".join(lines) + "\n}"
