"""JSON Schemas generated from the models: the contract is written once, as code."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import TypeAdapter

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

# Keywords OpenAI-style structured outputs reject or ignore; a strict schema leaves them out.
_UNSUPPORTED_STRICT_KEYWORDS = ("default", "minLength", "maxLength", "discriminator")


def json_schema(name: str) -> JsonSchema:
    """The schema of document ``name`` as validated on read (draft 2020-12)."""
    adapter, description = DOCUMENTS[name]
    schema = adapter.json_schema(mode="validation")
    schema.setdefault("description", description)
    return {"$schema": DRAFT, **schema}


def strict_schema(name: str) -> JsonSchema:
    """The variant for native structured outputs (codex ``--output-schema``).

    Every object closes (``additionalProperties: false``) and lists all its properties as
    required; every field that was optional becomes ``anyOf [T, null]``, so the model emits
    ``null`` for "not given", which :func:`~caesar_core.protocol.parse.parse`
    reads back as absent.
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
            if key not in required and isinstance(prop, dict):
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


def _nullable(prop: JsonSchema) -> JsonSchema:
    """``prop`` widened to accept null, unless it already does."""
    variants = prop.get("anyOf")
    if isinstance(variants, list) and any(v.get("type") == "null" for v in variants):
        return prop
    if prop.get("type") == "null":
        return prop
    meta: dict[str, Any] = {k: prop.pop(k) for k in ("title", "description") if k in prop}
    return {**meta, "anyOf": [prop, {"type": "null"}]}
