"""The contract's models: round trips, the spec's own examples, defaults and refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from pydantic import BaseModel, TypeAdapter, ValidationError

from caesar_core.protocol import (
    ANSWER_ADAPTER,
    EVENT_ADAPTER,
    QUESTION_ADAPTER,
    REPORT_ADAPTER,
    TASK_ADAPTER,
    DocumentKind,
    FinishedEvent,
    Report,
    ReportStatus,
    Task,
    ToolUseEvent,
    UnsupportedProtocolError,
    parse,
    strip_nulls,
)
from caesar_core.protocol.versions import SUPPORTED
from tests.protocol import strategies as s

SPEC = Path(__file__).parent / "spec"


def jsonc(path: Path) -> Any:
    """The spec's examples carry ``//`` comments; strip them (never inside strings here)."""
    return json.loads(re.sub(r"\s//[^\n]*", "", path.read_text()))


def spec_events() -> list[bytes]:
    # The spec elides timestamps as "…"; any real instant stands in for them.
    text = (SPEC / "events.jsonl").read_text().replace('"at":"…"', '"at":"2026-08-09T10:00:01Z"')
    return [line.encode() for line in text.splitlines()]


def roundtrip(adapter: TypeAdapter[Any], model: BaseModel, kind: DocumentKind | None) -> None:
    """Written then read back, a document is unchanged; with explicit nulls added, too."""
    again = parse(adapter, model.model_dump_json(exclude_none=True), kind)
    assert again == model
    # Native structured outputs emit every key, with null for "not given".
    with_nulls = parse(adapter, model.model_dump_json(), kind)
    assert with_nulls == model


@given(s.tasks)
def test_task_roundtrip(task: Task) -> None:
    roundtrip(TASK_ADAPTER, task, DocumentKind.TASK)


@given(s.reports)
def test_report_roundtrip(report: Report) -> None:
    roundtrip(REPORT_ADAPTER, report, DocumentKind.REPORT)


@given(s.events)
def test_event_roundtrip(event: BaseModel) -> None:
    roundtrip(EVENT_ADAPTER, event, DocumentKind.EVENT)


@given(s.mailbox_questions, s.mailbox_answers)
def test_mailbox_roundtrip(question: BaseModel, answer: BaseModel) -> None:
    roundtrip(QUESTION_ADAPTER, question, None)
    roundtrip(ANSWER_ADAPTER, answer, None)


def test_spec_task_example_parses() -> None:
    task = parse(TASK_ADAPTER, jsonc(SPEC / "task.jsonc"), DocumentKind.TASK)
    assert task.id == "t_7f3a"
    assert task.channel is None
    assert task.deadline_ms == 600000


def test_spec_report_example_parses() -> None:
    report = parse(REPORT_ADAPTER, jsonc(SPEC / "report.jsonc"), DocumentKind.REPORT)
    assert report.status is ReportStatus.SUCCESS
    assert report.changes[0].path == "src/parser.ts"
    assert report.usage is not None and report.usage.duration_ms == 84000


def test_spec_event_examples_parse() -> None:
    events = [parse(EVENT_ADAPTER, line, DocumentKind.EVENT) for line in spec_events()]
    assert [e.type for e in events] == ["started", "tool_use", "tool_use", "finished"]
    assert isinstance(events[2], ToolUseEvent) and events[2].id == "item_1"


def test_spec_minimal_shell_agent_report_is_valid() -> None:
    """The report the spec's ten-line jq agent writes: three fields and nothing else."""
    report = parse(
        REPORT_ADAPTER,
        b'{"protocol":"caesar.report/v1","status":"success","summary":"Handled: x"}',
        DocumentKind.REPORT,
    )
    assert report.changes == [] and report.usage is None and report.details == ""


@pytest.mark.parametrize("missing", ["protocol", "status", "summary"])
def test_report_requires_its_three_fields(missing: str) -> None:
    doc = {"protocol": "caesar.report/v1", "status": "success", "summary": "ok"}
    del doc[missing]
    with pytest.raises(ValidationError):
        parse(REPORT_ADAPTER, doc, DocumentKind.REPORT)


def test_network_defaults_to_true_when_absent_or_null() -> None:
    doc = jsonc(SPEC / "task.jsonc")
    del doc["network"]
    assert parse(TASK_ADAPTER, doc).network is True
    doc["network"] = None
    assert parse(TASK_ADAPTER, doc).network is True


def test_tool_use_id_defaults_to_empty() -> None:
    line = spec_events()[1].replace(b',"id":"item_1"', b"")
    event = parse(EVENT_ADAPTER, line)
    assert isinstance(event, ToolUseEvent) and event.id == ""
    nulled = parse(EVENT_ADAPTER, spec_events()[1].replace(b'"item_1"', b"null"))
    assert isinstance(nulled, ToolUseEvent) and nulled.id == ""


def test_explicit_nulls_read_as_absent_in_nested_objects() -> None:
    doc = {
        "protocol": "caesar.report/v1",
        "status": "partial",
        "summary": "half",
        "details": None,
        "changes": [{"path": "a.py", "action": None, "summary": None}],
        "usage": None,
        "findings": None,
    }
    report = parse(REPORT_ADAPTER, json.dumps(doc), DocumentKind.REPORT)
    assert report.details == "" and report.findings == [] and report.usage is None
    assert report.changes[0].action == "modified"


def test_null_in_a_required_field_is_still_an_error() -> None:
    doc = {"protocol": "caesar.report/v1", "status": "success", "summary": None}
    with pytest.raises(ValidationError, match="summary"):
        parse(REPORT_ADAPTER, doc, DocumentKind.REPORT)


def test_unknown_fields_survive_a_rewrite() -> None:
    """A newer writer's fields are kept by an older reader that rewrites the document."""
    doc = {"protocol": "caesar.report/v1", "status": "success", "summary": "ok", "v2_only": [1]}
    report = parse(REPORT_ADAPTER, doc)
    assert report.to_json_dict()["v2_only"] == [1]


@pytest.mark.parametrize(
    ("adapter", "kind", "doc"),
    [
        (TASK_ADAPTER, DocumentKind.TASK, lambda: jsonc(SPEC / "task.jsonc")),
        (REPORT_ADAPTER, DocumentKind.REPORT, lambda: jsonc(SPEC / "report.jsonc")),
        (EVENT_ADAPTER, DocumentKind.EVENT, lambda: json.loads(spec_events()[1])),
    ],
)
@pytest.mark.parametrize("as_text", [True, False])
def test_unknown_versions_are_refused_by_name(
    adapter: TypeAdapter[Any], kind: DocumentKind, doc: Any, as_text: bool
) -> None:
    data = doc()
    found = f"caesar.{kind.value}/v9"
    data["protocol"] = found
    raw = json.dumps(data) if as_text else data
    with pytest.raises(UnsupportedProtocolError) as caught:
        parse(adapter, raw, kind)
    assert caught.value.found == found
    assert found in str(caught.value)
    for version in SUPPORTED[kind]:
        assert version in str(caught.value)


def test_unknown_version_wins_over_other_errors() -> None:
    """A v9 event of a type v1 never heard of is refused for its version, not its type."""
    raw = b'{"protocol":"caesar.event/v9","type":"hologram","seq":0}'
    with pytest.raises(UnsupportedProtocolError, match=r"caesar\.event/v9"):
        parse(EVENT_ADAPTER, raw, DocumentKind.EVENT)


def test_a_report_is_not_a_task() -> None:
    report = jsonc(SPEC / "report.jsonc")
    with pytest.raises(UnsupportedProtocolError, match=r"caesar\.report/v1"):
        parse(TASK_ADAPTER, report, DocumentKind.TASK)


def test_finished_status_is_a_report_status() -> None:
    line = spec_events()[3].replace(b'"success"', b'"succeeded"')
    with pytest.raises(ValidationError):
        parse(EVENT_ADAPTER, line)
    assert isinstance(parse(EVENT_ADAPTER, spec_events()[3]), FinishedEvent)


def test_not_json_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse(EVENT_ADAPTER, b"{not json")


def test_strip_nulls_recurses_and_keeps_falsy_values() -> None:
    assert strip_nulls({"a": None, "b": [{"c": None, "d": 0}], "e": False, "f": ""}) == {
        "b": [{"d": 0}],
        "e": False,
        "f": "",
    }
