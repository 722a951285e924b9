"""``caesar.lifecycle/v1``: the bridge's requests and response, field for field with the seed.

The seed (``caesar_core/bridge/lifecycle.schema.json``, a copy of
``agentic-lifecycle.schema.json``) is the contract clients were written against; these models
restate it so ``caesar protocol schema lifecycle`` can publish it in our dialect and the rest of
caesar can read bridge documents with types. The bridge's hot path does not use them (pydantic
costs ~85 ms to import, per tool call): it validates with code generated from the seed by
``fastjsonschema``, :func:`validator_source`; a test holds both to the same verdicts.

One optional field is ours: ``tool_use_id`` on pre-tool and post-tool, the client's call id
that pairs the two. The seed allows extra properties, so a seed-only client stays valid.

Regenerate the validator after changing the seed copy::

    .venv/bin/python -m caesar_core.protocol.lifecycle > caesar_core/bridge/_validate.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from caesar_core.protocol._base import ProtocolModel

SCHEMA_VERSION = "caesar.lifecycle/v1"
SEED_PATH = Path(__file__).resolve().parent.parent / "bridge" / "lifecycle.schema.json"

Count = Annotated[int, Field(ge=0)]
Client = Literal["claude-code", "codex", "vscode", "unknown"]
IntegrationMode = Literal["casan_owned", "managed_hook", "project_hook", "observed_only"]
ToolStatus = Literal["success", "error", "denied", "timeout"]
CostSource = Literal[
    "provider_reported", "sdk_result_message", "statusline_estimate", "session_delta", "unavailable"
]
StopReason = Literal["completed", "user_interrupt", "error", "max_turns", "timeout"]
Decision = Literal[
    "allow",
    "block",
    "deny",
    "require_approval",
    "halt",
    "quarantine",
    "recorded",
    "certified",
    "non_certified",
    "error",
]
TelemetryQuality = Literal["complete", "partial", "insufficient"]


class LifecycleModel(ProtocolModel):
    """Strict types (JSON Schema does not coerce ``"5"`` to 5, neither do we); extras kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)


class ClientContext(LifecycleModel):
    client: Client
    client_version: str | None = None
    adapter_version: str | None = None
    project: str | None = None
    """Project root as the client sees it; the bridge canonicalizes it."""
    session: str | None = None
    """Client-native session id: hashed by the bridge, never stored raw."""
    actor: str | None = None
    integration_mode: IntegrationMode | None = None
    """Declared; the bridge may downgrade it, never upgrade it."""


class BeginRequest(ClientContext):
    op: Literal["begin"]
    prompt: str
    """Scanned, then discarded: only a salted hash and the verdict are kept."""
    turn: str | None = None


class PreToolRequest(LifecycleModel):
    op: Literal["pre-tool"]
    admission_id: str
    tool: str
    tool_input: Any = None
    project: str | None = None
    tool_use_id: str | None = None
    """Ours: the client's call id, to pair with the post-tool."""


class PostToolRequest(LifecycleModel):
    op: Literal["post-tool"]
    admission_id: str
    tool: str
    status: ToolStatus | None = None
    duration_ms: Count | None = None
    result: Any = None
    tool_use_id: str | None = None


class TelemetryRequest(LifecycleModel):
    op: Literal["telemetry"]
    admission_id: str
    model: str | None = None
    runtime_ms: Count | None = None
    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cache_tokens: Count | None = None
    cost_amount: Annotated[float, Field(ge=0)] | None = None
    cost_currency: str | None = None
    cost_source: CostSource | None = None


class FinalizeRequest(LifecycleModel):
    op: Literal["finalize"]
    admission_id: str
    stop_reason: StopReason | None = None
    assistant_summary: str | None = None
    changed_files: list[str] | None = None


class AbortRequest(LifecycleModel):
    op: Literal["abort"]
    admission_id: str | None = None
    reason: str | None = None


LifecycleRequest = Annotated[
    BeginRequest
    | PreToolRequest
    | PostToolRequest
    | TelemetryRequest
    | FinalizeRequest
    | AbortRequest,
    Field(discriminator="op"),
]


class Receipt(LifecycleModel):
    """Non-sensitive pointer to a finished trace, written to the spool."""

    schema_version: Literal[1] | None = None
    trace_id: str | None = None
    project_id: str | None = None
    decision: str | None = None
    certified: bool | None = None
    certification_strength: IntegrationMode | None = None
    telemetry_quality: str | None = None
    telemetry_warnings: list[str] | None = None
    duration_ms: float | None = None
    tool_calls: int | None = None
    failures: int | None = None
    finalized_at: str | None = None
    report_url: str | None = None
    trace_path: str | None = None
    delivery: Literal["local_spool", "async_delivery_started"] | None = None


class BridgeResponse(LifecycleModel):
    op: str
    schema_version: str
    decision: Decision
    admission_id: str | None = None
    trace_id: str | None = None
    integration_mode: str | None = None
    certification_strength: IntegrationMode | None = None
    telemetry_quality: TelemetryQuality | None = None
    reason: str | None = None
    warnings: list[str] | None = None
    report_url: str | None = None
    receipt: Receipt | None = None
    context: str | None = None
    decided_by: str | None = None
    """Ours, on a pre-tool that was held for approval: who decided (``cli``, ``watch``…) or
    ``timeout``, so an adapter can tell a person's allow from a timeout's."""


REQUEST_ADAPTER: TypeAdapter[LifecycleRequest] = TypeAdapter(LifecycleRequest)
RESPONSE_ADAPTER: TypeAdapter[BridgeResponse] = TypeAdapter(BridgeResponse)
LIFECYCLE_ADAPTER: TypeAdapter[Any] = TypeAdapter(LifecycleRequest | BridgeResponse)
"""A message on the bridge's wire: a request (by ``op``) or a response."""


# -- the hot path's validator ------------------------------------------------------------------

_HEADER = '''\
"""GENERATED from lifecycle.schema.json by fastjsonschema; do not edit.

Regenerate: .venv/bin/python -m caesar_core.protocol.lifecycle > caesar_core/bridge/_validate.py
(tests/bridge/test_contract.py fails while this file is out of date). The import of
fastjsonschema is replaced by two small exception classes: importing the package costs ~15 ms
per tool call, and json.loads never produces a Decimal, so decimal is not imported either.
"""
# mypy: ignore-errors
# ruff: noqa
'''

_EXCEPTIONS = '''\
class JsonSchemaValueException(ValueError):
    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message: str = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule


class JsonSchemaValuesException(JsonSchemaValueException):
    pass


class Decimal:
    """Never instantiated: stands in for decimal.Decimal in isinstance checks."""
'''


def validator_source() -> str:
    """The source of ``caesar_core/bridge/_validate.py`` for the current seed copy."""
    import fastjsonschema

    schema = json.loads(SEED_PATH.read_text())
    code = fastjsonschema.compile_to_code(schema)
    code = code.replace("from decimal import Decimal\n", "")
    code = code.replace(
        "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n",
        _EXCEPTIONS,
    )
    entry = "validate_https___casan_local_schemas_agentic_lifecycle_schema_json"
    typed = (
        "\n\ndef validate(data: object) -> object:\n"
        '    """The request, unchanged, or JsonSchemaValueException naming the first problem."""\n'
        f"    return {entry}(data)\n"
    )
    return f"{_HEADER}{code}{typed}"


if __name__ == "__main__":
    print(validator_source(), end="")
