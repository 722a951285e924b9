"""Published schemas agree with the models, and the strict variant obeys the strict rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from caesar_core.protocol import DOCUMENTS, Report, json_schema, strict_schema
from tests.protocol import strategies as s

VALIDATORS = {name: Draft202012Validator(json_schema(name)) for name in DOCUMENTS}
STRICT_REPORT = Draft202012Validator(strict_schema("report"))


@pytest.mark.parametrize("name", list(DOCUMENTS))
@pytest.mark.parametrize("strict", [False, True])
def test_schemas_are_valid_draft_2020_12(name: str, strict: bool) -> None:
    Draft202012Validator.check_schema(strict_schema(name) if strict else json_schema(name))


@given(s.tasks)
def test_every_task_matches_the_published_schema(task: BaseModel) -> None:
    VALIDATORS["task"].validate(task.to_json_dict())  # type: ignore[attr-defined]


@given(s.reports)
def test_every_report_matches_the_published_schema(report: BaseModel) -> None:
    VALIDATORS["report"].validate(report.to_json_dict())  # type: ignore[attr-defined]


@given(s.events)
def test_every_event_matches_the_published_schema(event: BaseModel) -> None:
    VALIDATORS["event"].validate(event.to_json_dict())  # type: ignore[attr-defined]


@given(s.reports)
def test_strict_schema_accepts_what_a_structured_output_emits(report: Report) -> None:
    """Every key present, ``null`` for what is not given: the shape codex must produce."""
    STRICT_REPORT.validate(report.model_dump(mode="json"))


@given(s.reports)
def test_strict_schema_rejects_missing_keys_and_extra_keys(report: Report) -> None:
    full = report.model_dump(mode="json")
    missing = {k: v for k, v in full.items() if k != "details"}
    assert not STRICT_REPORT.is_valid(missing)
    assert not STRICT_REPORT.is_valid({**full, "surprise": 1})


def objects(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if "properties" in node:
            yield path, node
        for key, value in node.items():
            yield from objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from objects(value, f"{path}/{index}")


def nullable(prop: dict[str, Any]) -> bool:
    if prop.get("type") == "null":
        return True
    return any(v.get("type") == "null" for v in prop.get("anyOf", []))


def test_strict_rules_hold_at_every_depth() -> None:
    loose = json_schema("report")
    strict = strict_schema("report")
    loose_objects = dict(objects(loose))
    strict_objects = list(objects(strict))
    assert len(strict_objects) == 7  # the report and its six kinds of sub-object
    for path, node in strict_objects:
        assert node["additionalProperties"] is False, path
        assert node["required"] == list(node["properties"]), path
        optional = set(node["properties"]) - set(loose_objects[path].get("required", []))
        for key in optional:
            prop = node["properties"][key]
            # A field with a default keeps it and stays non-null; a merely optional one is null.
            assert nullable(prop) is (prop.get("default") is None), f"{path}.{key}"
    assert "'discriminator'" not in repr(strict)


def test_loose_schema_keeps_the_minimal_report_minimal() -> None:
    assert json_schema("report")["required"] == ["protocol", "status", "summary"]
    assert VALIDATORS["report"].is_valid(
        {"protocol": "caesar.report/v1", "status": "success", "summary": "ok"}
    )
