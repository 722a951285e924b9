"""The brief: sections from the task, and reporting instructions that match the tier."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given

from caesar_core.agents.brief import NO_NETWORK, READ_ONLY, Tier, example_json, render_brief
from caesar_core.protocol import (
    REPORT_ADAPTER,
    TASK_V1,
    DocumentKind,
    Isolation,
    Mode,
    ReportStatus,
    Task,
    parse,
)
from caesar_core.report import EXAMPLE_REPORT
from caesar_core.report.example import EXAMPLE_FIELDS
from tests.protocol import strategies as s

TIERS: tuple[Tier, ...] = ("channel", "schema", "file")
REPORT_PATH = "/repo/.caesar/tasks/t_1/report.json"


def make_task(**overrides: Any) -> Task:
    fields: dict[str, Any] = {
        "protocol": TASK_V1,
        "id": "t_1",
        "created_at": datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        "agent": "codex",
        "objective": "Fix the parser crash on empty input.",
        "mode": Mode.WRITE,
        "isolation": Isolation.WORKTREE,
        "workspace": "/repo/.caesar/worktrees/t_1",
        "deadline_ms": 600_000,
        "report_path": REPORT_PATH,
        "events_path": "/repo/.caesar/tasks/t_1/events.jsonl",
    }
    return Task(**{**fields, **overrides})


def section(brief: str, title: str) -> str:
    """The body of one markdown section, up to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\n\n(.*?)(?=^#+ |\Z)", brief, re.M | re.S)
    assert match is not None, f"no section {title!r}"
    return match.group(1).strip()


def test_sections_come_in_order_with_the_task_contents() -> None:
    task = make_task(
        context="The crash is in src/parser.py.",
        constraints=["Do not touch the public API"],
        acceptance_criteria=["pytest passes", "no new warnings"],
    )
    brief = render_brief(task, tier="file", system_prompt="You are a careful engineer.\n")
    headings = re.findall(r"^#+ (.+)$", brief, re.M)
    assert headings == ["Objective", "Context", "Constraints", "Acceptance criteria", "Reporting"]
    assert brief.startswith("You are a careful engineer.\n\n# Objective\n\n")
    assert section(brief, "Objective") == task.objective
    assert section(brief, "Context") == task.context
    assert section(brief, "Acceptance criteria") == "- pytest passes\n- no new warnings"
    assert section(brief, "Constraints").splitlines() == [
        "- Do not touch the public API",
        f"- Stay inside the workspace: {task.workspace}.",
    ]


def test_empty_sections_are_left_out() -> None:
    brief = render_brief(make_task(), tier="file")
    assert brief.startswith("# Objective\n\n")
    assert "## Context" not in brief
    assert "## Acceptance criteria" not in brief
    assert "## Constraints" in brief


def test_read_only_and_no_network_are_said() -> None:
    brief = render_brief(make_task(mode=Mode.READ_ONLY, network=False), tier="schema")
    constraints = section(brief, "Constraints")
    assert f"- {READ_ONLY}" in constraints
    assert f"- {NO_NETWORK}" in constraints
    assert READ_ONLY == "Modify nothing: do not create, edit or delete files."
    assert NO_NETWORK == "No network: do not install packages, clone repositories or fetch URLs."


def test_write_mode_with_network_says_neither() -> None:
    brief = render_brief(make_task(mode=Mode.WRITE, network=True), tier="file")
    assert READ_ONLY not in brief
    assert NO_NETWORK not in brief


def test_the_channel_tier_names_the_tools_and_the_fallback() -> None:
    reporting = section(
        render_brief(make_task(), tier="channel", channel_server="sup"), "Reporting"
    )
    assert "`submit_report` tool of the MCP server named `sup`" in reporting
    assert "`report_progress`" in reporting
    assert "`ask_orchestrator`" in reporting
    assert f"If the tool is unavailable, write the report as JSON to `{REPORT_PATH}`" in reporting


def test_the_schema_tier_asks_for_the_report_as_the_final_answer() -> None:
    reporting = section(render_brief(make_task(), tier="schema"), "Reporting")
    assert "final answer must be the report object only, as JSON" in reporting
    assert "submit_report" not in reporting
    assert REPORT_PATH not in reporting


def test_the_file_tier_gives_the_exact_path_and_the_variable() -> None:
    reporting = section(render_brief(make_task(), tier="file"), "Reporting")
    assert f"As your LAST action, write the report as JSON to `{REPORT_PATH}`" in reporting
    assert "$CAESAR_REPORT_PATH" in reporting
    assert "submit_report" not in reporting


def test_a_read_only_task_may_still_write_its_report_file() -> None:
    for tier in ("channel", "file"):
        reporting = section(render_brief(make_task(mode=Mode.READ_ONLY), tier=tier), "Reporting")
        assert "allowed even though the task is read-only" in reporting
    assert "read-only" not in render_brief(make_task(), tier="file")


def test_the_example_fields_are_the_example_report_as_json() -> None:
    """The brief shows the plain fields (no validator built before the agent starts); the
    report the extractor knows is made from them: both say the same, in the same order."""
    dumped = EXAMPLE_REPORT.model_dump(mode="json", exclude_unset=True)
    assert dumped == EXAMPLE_FIELDS
    assert list(dumped) == list(EXAMPLE_FIELDS)
    assert json.loads(example_json()) == EXAMPLE_FIELDS


@pytest.mark.parametrize("tier", TIERS)
def test_every_tier_shows_a_valid_example_and_the_required_fields(tier: Tier) -> None:
    reporting = section(render_brief(make_task(), tier=tier), "Reporting")
    match = re.search(r"```json\n(.*?)\n```", reporting, re.S)
    assert match is not None
    example = parse(REPORT_ADAPTER, match.group(1), DocumentKind.REPORT)
    assert example == parse(REPORT_ADAPTER, EXAMPLE_REPORT.to_json_bytes(), DocumentKind.REPORT)
    assert "Required fields: `protocol` (exactly `caesar.report/v1`), `status` and `summary`" in (
        reporting
    )
    assert "`task_id` to `t_1`" in reporting
    for status in ReportStatus:
        assert f"- `{status.value}`:" in reporting


def test_the_example_shows_the_main_fields_compactly() -> None:
    shown = json.loads(example_json())
    for key in ("protocol", "status", "summary", "changes", "commands_run", "findings"):
        assert key in shown
    assert "artifacts" not in shown
    assert len(example_json().splitlines()) == len(shown) + 2


@given(task=s.tasks)
def test_the_brief_is_a_pure_function_of_the_task(task: Task) -> None:
    for tier in TIERS:
        brief = render_brief(task, tier=tier)
        assert brief == render_brief(task.model_copy(deep=True), tier=tier)
        assert brief.endswith("```\n")
        assert "- Stay inside the workspace: " in brief
        assert (READ_ONLY in brief) == (task.mode is Mode.READ_ONLY)
        assert (NO_NETWORK in brief) == (not task.network)
