"""JSON Schemas generated from the models: the contract is written once, as code."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, NoDefault
from pydantic_core import core_schema

from caesar_core.protocol.event import EVENT_ADAPTER
from caesar_core.protocol.lifecycle import LIFECYCLE_ADAPTER
from caesar_core.protocol.report import REPORT_ADAPTER
from caesar_core.protocol.task import TASK_ADAPTER

JsonSchema = dict[str, Any]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

DOCUMENTS: dict[str, tuple[TypeAdapter[Any], str]] = {
    "task": (TASK_ADAPTER, "caesar.task/v1: task.json, written by the orchestrator"),
    "report": (REPORT_ADAPTER, "caesar.report/v1: report.json, written by the agent"),
    "event": (EVENT_ADAPTER, "caesar.event/v1: one line of events.jsonl"),
    "lifecycle": (
        LIFECYCLE_ADAPTER,
        "caesar.lifecycle/v1: a `caesar bridge` request (by op) or its response",
    ),
}
"""Publishable documents by name; ``caesar protocol schema`` lists these."""

# Keywords structured outputs reject; everything else (defaults, minLength) is kept, as the
# reference implementation keeps it, so the strict schema refuses what the reader refuses.
_UNSUPPORTED_STRICT_KEYWORDS = ("discriminator",)


class _Generator(GenerateJsonSchema):
    """pydantic's generator, with the default of an empty-collection field written out.

    ``changes: list[Change] = Field(default_factory=list)`` would otherwise publish no
    default at all, and a reader of the schema could not tell it from a merely optional field.
    """

    _EMPTY: tuple[type, ...] = (list, dict, tuple)

    def get_default_value(self, schema: core_schema.WithDefaultSchema) -> Any:
        factory = schema.get("default_factory")
        if factory in self._EMPTY and not schema.get("default_factory_takes_data"):
            return factory()
        return schema.get("default", NoDefault)


def json_schema(name: str) -> JsonSchema:
    """The schema of document ``name`` as validated on read (draft 2020-12)."""
    adapter, description = DOCUMENTS[name]
    schema = adapter.json_schema(mode="validation", schema_generator=_Generator)
    schema.setdefault("description", description)
    return {"$schema": DRAFT, **schema}


def strict_schema(name: str) -> JsonSchema:
    """The variant for native structured outputs (codex ``--output-schema``).

    Every object closes (``additionalProperties: false``) and lists all its properties as
    required, since those providers refuse a schema that does not. A field with a default
    (``details: ""``, ``changes: []``) stays non-null with its default: repeating a default is
    never an invention. A field that was merely optional (``usage``, a finding's ``line``)
    becomes ``anyOf [T, null]``, so the model emits ``null`` for "not given", which
    :func:`~caesar_core.protocol.parse.parse` reads back as absent. ``protocol`` stays pinned
    and ``summary`` non-empty, as on read.
    """
    schema = copy.deepcopy(json_schema(name))
    _close(schema)
    return schema


def _close(node: Any) -> None:
    """Apply the strict rules to a schema node and every subschema below it."""
    if not isinstance(node, dict):
        return
    for keyword in _UNSUPPORTED_STRICT_KEYWORDS:
        node.pop(keyword, None)
    properties = node.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", []))
        for key, prop in properties.items():
            if key not in required and isinstance(prop, dict) and not _has_default(prop):
                properties[key] = _nullable(prop)
        node["type"] = "object"
        node["additionalProperties"] = False
        node["required"] = list(properties)
    for child in _subschemas(node):
        _close(child)


def _subschemas(node: dict[str, Any]) -> list[Any]:
    children: list[Any] = []
    for keyword in ("properties", "$defs", "definitions"):
        mapping = node.get(keyword)
        if isinstance(mapping, dict):
            children.extend(mapping.values())
    for keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
        items = node.get(keyword)
        if isinstance(items, list):
            children.extend(items)
    for keyword in ("items", "additionalProperties", "not"):
        if isinstance(node.get(keyword), dict):
            children.append(node[keyword])
    return children


def _has_default(prop: JsonSchema) -> bool:
    """A default other than null: the field has a value when absent, so it is never null."""
    return prop.get("default") is not None


def _nullable(prop: JsonSchema) -> JsonSchema:
    """``prop`` widened to accept null, unless it already does."""
    variants = prop.get("anyOf")
    if isinstance(variants, list) and any(v.get("type") == "null" for v in variants):
        return prop
    if prop.get("type") == "null":
        return prop
    meta: dict[str, Any] = {k: prop.pop(k) for k in ("title", "description") if k in prop}
    return {**meta, "anyOf": [prop, {"type": "null"}]}
