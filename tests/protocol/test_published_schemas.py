"""The published schemas accept what caesar's readers accept, and refuse what they refuse.

Checked with ``jsonschema`` (an implementation independent of pydantic) against every example
of the contract (``tests/protocol/spec``, from the specification), documents made invalid by
hand, the strict variant sent to ``codex --output-schema``, and the documents the reference
implementation wrote when ``tests/fixtures/reference/`` holds recorded ones (skipped
otherwise).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from caesar_core.protocol import (
    EVENT_ADAPTER,
    REPORT_ADAPTER,
    TASK_ADAPTER,
    DocumentKind,
    json_schema,
    parse,
    strict_schema,
)
from tests.protocol.test_models import SPEC, jsonc, spec_events

LOOSE = {name: Draft202012Validator(json_schema(name)) for name in ("task", "report", "event")}
STRICT = Draft202012Validator(strict_schema("report"))
READERS: dict[str, tuple[TypeAdapter[Any], DocumentKind]] = {
    "task": (TASK_ADAPTER, DocumentKind.TASK),
    "report": (REPORT_ADAPTER, DocumentKind.REPORT),
    "event": (EVENT_ADAPTER, DocumentKind.EVENT),
}
RECORDED = Path(__file__).parents[1] / "fixtures" / "reference"


def read_by_caesar(name: str, document: dict[str, Any]) -> bool:
    adapter, kind = READERS[name]
    try:
        parse(adapter, document, kind)
    except Exception:
        return False
    return True


def spec_documents() -> list[tuple[str, dict[str, Any]]]:
    documents: list[tuple[str, dict[str, Any]]] = [
        ("task", jsonc(SPEC / "task.jsonc")),
        ("report", jsonc(SPEC / "report.jsonc")),
        ("report", {"protocol": "caesar.report/v1", "status": "success", "summary": "Handled: x"}),
    ]
    documents += [("event", json.loads(line)) for line in spec_events()]
    return documents


@pytest.mark.parametrize(("name", "document"), spec_documents())
def test_every_spec_example_matches_its_schema(name: str, document: dict[str, Any]) -> None:
    LOOSE[name].validate(document)
    assert read_by_caesar(name, document)


def report() -> dict[str, Any]:
    return copy.deepcopy(jsonc(SPEC / "report.jsonc"))


def invalid_documents() -> list[tuple[str, str, dict[str, Any]]]:
    task, event = jsonc(SPEC / "task.jsonc"), json.loads(spec_events()[0])
    untyped = {k: v for k, v in json.loads(spec_events()[3]).items() if k != "type"}
    return [
        ("report v9", "report", {**report(), "protocol": "caesar.report/v9"}),
        ("task v9", "task", {**task, "protocol": "caesar.task/v9"}),
        ("event v9", "event", {**event, "protocol": "caesar.event/v9"}),
        ("a report named a task", "report", {**report(), "protocol": "caesar.task/v1"}),
        ("event without type", "event", untyped),
        ("event of an unknown type", "event", {**event, "type": "stopped"}),
        ("empty summary", "report", {**report(), "summary": ""}),
        ("no summary", "report", {k: v for k, v in report().items() if k != "summary"}),
        ("unknown status", "report", {**report(), "status": "done"}),
        ("empty objective", "task", {**task, "objective": ""}),
        ("negative seq", "event", {**event, "seq": -1}),
    ]


@pytest.mark.parametrize(
    ("case", "name", "document"), invalid_documents(), ids=[c[0] for c in invalid_documents()]
)
def test_what_the_reader_refuses_the_schema_refuses(
    case: str, name: str, document: dict[str, Any]
) -> None:
    assert not read_by_caesar(name, document), case
    assert not LOOSE[name].is_valid(document), case


def structured(document: dict[str, Any]) -> dict[str, Any]:
    """A report as a structured output emits it: every key, null for what is not given."""
    return parse(REPORT_ADAPTER, document, DocumentKind.REPORT).model_dump(mode="json")


def test_the_strict_report_accepts_the_spec_example_as_a_structured_output() -> None:
    full = structured(report())
    STRICT.validate(full)
    minimal = structured({"protocol": "caesar.report/v1", "status": "success", "summary": "x"})
    STRICT.validate(minimal)
    assert minimal["details"] == "" and minimal["changes"] == [] and minimal["usage"] is None


@pytest.mark.parametrize(
    ("case", "change"),
    [
        ("v9", {"protocol": "caesar.report/v9"}),
        ("empty summary", {"summary": ""}),
        ("null details, a field with a default", {"details": None}),
        ("null changes", {"changes": None}),
        ("an unknown key", {"surprise": 1}),
    ],
)
def test_the_strict_report_refuses(case: str, change: dict[str, Any]) -> None:
    assert not STRICT.is_valid({**structured(report()), **change}), case


def test_the_strict_report_keeps_defaults_and_pins() -> None:
    strict = strict_schema("report")
    props = strict["properties"]
    assert props["protocol"]["const"] == "caesar.report/v1"
    assert props["summary"]["minLength"] == 1
    assert props["details"] == {"default": "", "title": "Details", "type": "string"}
    assert props["changes"]["default"] == [] and props["changes"]["type"] == "array"
    assert any(v.get("type") == "null" for v in props["usage"]["anyOf"])
    line = strict["$defs"]["Finding"]["properties"]["line"]
    assert any(v.get("type") == "null" for v in line["anyOf"])


@pytest.mark.parametrize("name", ["task", "report", "event"])
def test_protocol_is_pinned_in_every_schema(name: str) -> None:
    schema = json_schema(name)
    bodies = [schema] if "properties" in schema else list(schema["$defs"].values())
    pinned = [b["properties"]["protocol"] for b in bodies if "protocol" in b.get("properties", {})]
    assert pinned and all(p["const"] == f"caesar.{name}/v1" for p in pinned)


def test_every_event_variant_requires_its_type() -> None:
    schema = json_schema("event")
    variants = [ref["$ref"].rsplit("/", 1)[-1] for ref in schema["oneOf"]]
    for variant in variants:
        body = schema["$defs"][variant]
        assert body["required"][0] == "type", variant
        assert "default" not in body["properties"]["type"], variant


# -- what the reference implementation wrote ---------------------------------------------


def recorded(name: str) -> list[Path]:
    if not RECORDED.is_dir():
        return []
    return sorted(p for p in RECORDED.rglob(name) if p.is_file() and not p.is_symlink())


def _present(paths: list[Path]) -> None:
    """The recordings are part of the repository (tests/fixtures/reference/README.md)."""
    assert paths, f"no recorded reference fixtures in {RECORDED}"


@pytest.mark.parametrize(("pattern", "name"), [("task.json", "task"), ("report.json", "report")])
def test_the_reference_documents_match_the_schemas(pattern: str, name: str) -> None:
    paths = recorded(pattern)
    _present(paths)
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        LOOSE[name].validate(document)
        assert read_by_caesar(name, document), path


def test_the_reference_event_logs_match_the_schema() -> None:
    paths = recorded("events.jsonl")
    _present(paths)
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                document = json.loads(line)
                LOOSE["event"].validate(document)
                assert read_by_caesar("event", document), (path, line)
