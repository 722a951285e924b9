"""The contract's JSON Schemas as published files, read without building a model.

``caesar protocol schema`` runs in scripts and main agents many times a minute, and the
runner hands the strict report schema to codex on every codex task: generating them from the
pydantic models costs more than the rest of those commands together. They are generated once,
by ``python -m caesar_core.protocol.schema``, into this package's ``*.schema.json`` files, and
``tests/protocol/test_published_files.py`` fails when a model changes and they were not
regenerated. This module imports nothing but ``os`` (the answer of ``caesar protocol schema``
is given before click loads, :mod:`caesar_core.cli.entry`: ``pathlib``, ``typing`` and
``json`` would cost more than the interpreter's start).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HERE = os.path.dirname(os.path.realpath(__file__))
"""This package's directory, where the files are."""

DESCRIPTIONS: dict[str, str] = {
    "task": "caesar.task/v1: task.json, written by the orchestrator",
    "report": "caesar.report/v1: report.json, written by the agent",
    "event": "caesar.event/v1: one line of events.jsonl",
    "lifecycle": "caesar.lifecycle/v1: a `caesar bridge` request (by op) or its response",
}
"""Publishable documents by name, as ``caesar protocol schema`` lists them."""


def file_name(name: str, *, strict: bool = False) -> str:
    return f"{name}.strict.schema.json" if strict else f"{name}.schema.json"


def listing() -> str:
    """What ``caesar protocol schema`` prints without a document: a line per document."""
    width = max(map(len, DESCRIPTIONS))
    return "".join(
        f"{name:<{width}}  {description}\n" for name, description in DESCRIPTIONS.items()
    )


def schema_text(name: str, *, strict: bool = False) -> str:
    """The schema of document ``name`` as published: indented JSON ending in a newline."""
    if name not in DESCRIPTIONS:
        raise KeyError(name)
    with open(os.path.join(HERE, file_name(name, strict=strict)), encoding="utf-8") as file:
        return file.read()


def schema(name: str, *, strict: bool = False) -> dict[str, Any]:
    import json

    loaded: dict[str, Any] = json.loads(schema_text(name, strict=strict))
    return loaded
