"""GENERATED from lifecycle.schema.json by fastjsonschema; do not edit.

Regenerate: .venv/bin/python -m caesar_core.protocol.lifecycle > caesar_core/bridge/_validate.py
(tests/bridge/test_contract.py fails while this file is out of date). The import of
fastjsonschema is replaced by two small exception classes: importing the package costs ~15 ms
per tool call, and json.loads never produces a Decimal, so decimal is not imported either.
"""
# mypy: ignore-errors
# ruff: noqa
VERSION = "2.22.3"
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


NoneType = type(None)

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', '$id': 'https://casan.local/schemas/agentic-lifecycle.schema.json', 'title': 'CASAN Agentic Lifecycle Contract', 'description': 'Plan-20 client-agnostic lifecycle contract for the CASAN agentic bridge. Each request is a single JSON object read on stdin; each response is a single JSON object written on stdout. Client adapters (Claude Code, Codex, VS Code) translate their native hook payloads into these shapes and render bridge responses back into client-native JSON. The bridge NEVER calls a model — it only admits, gates, records evidence, and finalizes traces (single-model invariant, Plan-20 §3.1).', 'type': 'object', 'required': ['op'], 'properties': {'op': {'type': 'string', 'enum': ['begin', 'pre-tool', 'post-tool', 'telemetry', 'finalize', 'abort'], 'description': 'Lifecycle operation to perform.'}}, 'allOf': [{'if': {'properties': {'op': {'const': 'begin'}}}, 'then': {'allOf': [{'$ref': '#/definitions/clientContext'}], 'required': ['op', 'client', 'prompt'], 'properties': {'op': {'const': 'begin'}, 'prompt': {'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, 'turn': {'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}}}}, {'if': {'properties': {'op': {'const': 'pre-tool'}}}, 'then': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'pre-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, 'tool_input': {'description': 'Tool input payload. Scanned/redacted; only a hash + redacted summary are persisted.'}, 'project': {'type': ['string', 'null']}}}}, {'if': {'properties': {'op': {'const': 'post-tool'}}}, 'then': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'post-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string'}, 'status': {'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, 'duration_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'result': {'description': 'Tool result. Never stored raw — hashed + redacted.'}}}}, {'if': {'properties': {'op': {'const': 'telemetry'}}}, 'then': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'telemetry'}, 'admission_id': {'type': 'string'}, 'model': {'type': ['string', 'null']}, 'runtime_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'input_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'output_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cache_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cost_amount': {'type': ['number', 'null'], 'minimum': 0}, 'cost_currency': {'type': ['string', 'null']}, 'cost_source': {'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}}}}, {'if': {'properties': {'op': {'const': 'finalize'}}}, 'then': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'finalize'}, 'admission_id': {'type': 'string'}, 'stop_reason': {'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, 'assistant_summary': {'type': ['string', 'null']}, 'changed_files': {'type': ['array', 'null'], 'items': {'type': 'string'}}}}}, {'if': {'properties': {'op': {'const': 'abort'}}}, 'then': {'required': ['op'], 'properties': {'op': {'const': 'abort'}, 'admission_id': {'type': ['string', 'null']}, 'reason': {'type': ['string', 'null']}}}}], 'definitions': {'clientContext': {'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}, 'beginRequest': {'allOf': [{'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}], 'required': ['op', 'client', 'prompt'], 'properties': {'op': {'const': 'begin'}, 'prompt': {'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, 'turn': {'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}}}, 'preToolRequest': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'pre-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, 'tool_input': {'description': 'Tool input payload. Scanned/redacted; only a hash + redacted summary are persisted.'}, 'project': {'type': ['string', 'null']}}}, 'postToolRequest': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'post-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string'}, 'status': {'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, 'duration_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'result': {'description': 'Tool result. Never stored raw — hashed + redacted.'}}}, 'telemetryRequest': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'telemetry'}, 'admission_id': {'type': 'string'}, 'model': {'type': ['string', 'null']}, 'runtime_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'input_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'output_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cache_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cost_amount': {'type': ['number', 'null'], 'minimum': 0}, 'cost_currency': {'type': ['string', 'null']}, 'cost_source': {'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}}}, 'finalizeRequest': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'finalize'}, 'admission_id': {'type': 'string'}, 'stop_reason': {'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, 'assistant_summary': {'type': ['string', 'null']}, 'changed_files': {'type': ['array', 'null'], 'items': {'type': 'string'}}}}, 'abortRequest': {'required': ['op'], 'properties': {'op': {'const': 'abort'}, 'admission_id': {'type': ['string', 'null']}, 'reason': {'type': ['string', 'null']}}}, 'bridgeResponse': {'type': 'object', 'required': ['op', 'decision', 'schema_version'], 'properties': {'op': {'type': 'string'}, 'schema_version': {'type': 'string'}, 'decision': {'type': 'string', 'enum': ['allow', 'block', 'deny', 'require_approval', 'halt', 'quarantine', 'recorded', 'certified', 'non_certified', 'error']}, 'admission_id': {'type': ['string', 'null']}, 'trace_id': {'type': ['string', 'null']}, 'integration_mode': {'type': ['string', 'null']}, 'certification_strength': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None]}, 'telemetry_quality': {'type': ['string', 'null'], 'enum': ['complete', 'partial', 'insufficient', None]}, 'reason': {'type': ['string', 'null']}, 'warnings': {'type': 'array', 'items': {'type': 'string'}}, 'report_url': {'type': ['string', 'null'], 'format': 'uri'}, 'receipt': {'type': 'object', 'description': 'Non-sensitive materialized pointer for CLI and dashboard discovery.', 'properties': {'schema_version': {'const': 1}, 'trace_id': {'type': ['string', 'null']}, 'project_id': {'type': ['string', 'null']}, 'decision': {'type': 'string'}, 'certified': {'type': 'boolean'}, 'certification_strength': {'type': ['string', 'null']}, 'telemetry_quality': {'type': ['string', 'null']}, 'telemetry_warnings': {'type': 'array', 'items': {'type': 'string'}}, 'duration_ms': {'type': ['number', 'null']}, 'tool_calls': {'type': 'integer'}, 'failures': {'type': 'integer'}, 'finalized_at': {'type': ['string', 'null']}, 'report_url': {'type': ['string', 'null']}, 'trace_path': {'type': 'string'}, 'delivery': {'type': 'string', 'enum': ['local_spool', 'async_delivery_started']}}}, 'context': {'type': ['string', 'null'], 'description': 'Optional additional context the adapter may inject into the turn (e.g. certification banner).'}}}}}, rule='type')
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'begin'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: begin", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'begin'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_beginrequest(data, custom_formats, (name_prefix or "data") + "")
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'pre-tool'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: pre-tool", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'pre-tool'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_pretoolrequest(data, custom_formats, (name_prefix or "data") + "")
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'post-tool'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: post-tool", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'post-tool'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_posttoolrequest(data, custom_formats, (name_prefix or "data") + "")
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'telemetry'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: telemetry", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'telemetry'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_telemetryrequest(data, custom_formats, (name_prefix or "data") + "")
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'finalize'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: finalize", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'finalize'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_finalizerequest(data, custom_formats, (name_prefix or "data") + "")
    try:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "op" in data_keys:
                data_keys.remove("op")
                data__op = data["op"]
                if not (isinstance(data__op, str) and data__op == 'abort'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: abort", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'abort'}, rule='const')
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_abortrequest(data, custom_formats, (name_prefix or "data") + "")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', '$id': 'https://casan.local/schemas/agentic-lifecycle.schema.json', 'title': 'CASAN Agentic Lifecycle Contract', 'description': 'Plan-20 client-agnostic lifecycle contract for the CASAN agentic bridge. Each request is a single JSON object read on stdin; each response is a single JSON object written on stdout. Client adapters (Claude Code, Codex, VS Code) translate their native hook payloads into these shapes and render bridge responses back into client-native JSON. The bridge NEVER calls a model — it only admits, gates, records evidence, and finalizes traces (single-model invariant, Plan-20 §3.1).', 'type': 'object', 'required': ['op'], 'properties': {'op': {'type': 'string', 'enum': ['begin', 'pre-tool', 'post-tool', 'telemetry', 'finalize', 'abort'], 'description': 'Lifecycle operation to perform.'}}, 'allOf': [{'if': {'properties': {'op': {'const': 'begin'}}}, 'then': {'allOf': [{'$ref': '#/definitions/clientContext'}], 'required': ['op', 'client', 'prompt'], 'properties': {'op': {'const': 'begin'}, 'prompt': {'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, 'turn': {'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}}}}, {'if': {'properties': {'op': {'const': 'pre-tool'}}}, 'then': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'pre-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, 'tool_input': {'description': 'Tool input payload. Scanned/redacted; only a hash + redacted summary are persisted.'}, 'project': {'type': ['string', 'null']}}}}, {'if': {'properties': {'op': {'const': 'post-tool'}}}, 'then': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'post-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string'}, 'status': {'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, 'duration_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'result': {'description': 'Tool result. Never stored raw — hashed + redacted.'}}}}, {'if': {'properties': {'op': {'const': 'telemetry'}}}, 'then': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'telemetry'}, 'admission_id': {'type': 'string'}, 'model': {'type': ['string', 'null']}, 'runtime_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'input_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'output_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cache_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cost_amount': {'type': ['number', 'null'], 'minimum': 0}, 'cost_currency': {'type': ['string', 'null']}, 'cost_source': {'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}}}}, {'if': {'properties': {'op': {'const': 'finalize'}}}, 'then': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'finalize'}, 'admission_id': {'type': 'string'}, 'stop_reason': {'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, 'assistant_summary': {'type': ['string', 'null']}, 'changed_files': {'type': ['array', 'null'], 'items': {'type': 'string'}}}}}, {'if': {'properties': {'op': {'const': 'abort'}}}, 'then': {'required': ['op'], 'properties': {'op': {'const': 'abort'}, 'admission_id': {'type': ['string', 'null']}, 'reason': {'type': ['string', 'null']}}}}], 'definitions': {'clientContext': {'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}, 'beginRequest': {'allOf': [{'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}], 'required': ['op', 'client', 'prompt'], 'properties': {'op': {'const': 'begin'}, 'prompt': {'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, 'turn': {'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}}}, 'preToolRequest': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'pre-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, 'tool_input': {'description': 'Tool input payload. Scanned/redacted; only a hash + redacted summary are persisted.'}, 'project': {'type': ['string', 'null']}}}, 'postToolRequest': {'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'post-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string'}, 'status': {'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, 'duration_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'result': {'description': 'Tool result. Never stored raw — hashed + redacted.'}}}, 'telemetryRequest': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'telemetry'}, 'admission_id': {'type': 'string'}, 'model': {'type': ['string', 'null']}, 'runtime_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'input_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'output_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cache_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cost_amount': {'type': ['number', 'null'], 'minimum': 0}, 'cost_currency': {'type': ['string', 'null']}, 'cost_source': {'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}}}, 'finalizeRequest': {'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'finalize'}, 'admission_id': {'type': 'string'}, 'stop_reason': {'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, 'assistant_summary': {'type': ['string', 'null']}, 'changed_files': {'type': ['array', 'null'], 'items': {'type': 'string'}}}}, 'abortRequest': {'required': ['op'], 'properties': {'op': {'const': 'abort'}, 'admission_id': {'type': ['string', 'null']}, 'reason': {'type': ['string', 'null']}}}, 'bridgeResponse': {'type': 'object', 'required': ['op', 'decision', 'schema_version'], 'properties': {'op': {'type': 'string'}, 'schema_version': {'type': 'string'}, 'decision': {'type': 'string', 'enum': ['allow', 'block', 'deny', 'require_approval', 'halt', 'quarantine', 'recorded', 'certified', 'non_certified', 'error']}, 'admission_id': {'type': ['string', 'null']}, 'trace_id': {'type': ['string', 'null']}, 'integration_mode': {'type': ['string', 'null']}, 'certification_strength': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None]}, 'telemetry_quality': {'type': ['string', 'null'], 'enum': ['complete', 'partial', 'insufficient', None]}, 'reason': {'type': ['string', 'null']}, 'warnings': {'type': 'array', 'items': {'type': 'string'}}, 'report_url': {'type': ['string', 'null'], 'format': 'uri'}, 'receipt': {'type': 'object', 'description': 'Non-sensitive materialized pointer for CLI and dashboard discovery.', 'properties': {'schema_version': {'const': 1}, 'trace_id': {'type': ['string', 'null']}, 'project_id': {'type': ['string', 'null']}, 'decision': {'type': 'string'}, 'certified': {'type': 'boolean'}, 'certification_strength': {'type': ['string', 'null']}, 'telemetry_quality': {'type': ['string', 'null']}, 'telemetry_warnings': {'type': 'array', 'items': {'type': 'string'}}, 'duration_ms': {'type': ['number', 'null']}, 'tool_calls': {'type': 'integer'}, 'failures': {'type': 'integer'}, 'finalized_at': {'type': ['string', 'null']}, 'report_url': {'type': ['string', 'null']}, 'trace_path': {'type': 'string'}, 'delivery': {'type': 'string', 'enum': ['local_spool', 'async_delivery_started']}}}, 'context': {'type': ['string', 'null'], 'description': 'Optional additional context the adapter may inject into the turn (e.g. certification banner).'}}}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not isinstance(data__op, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be string", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'type': 'string', 'enum': ['begin', 'pre-tool', 'post-tool', 'telemetry', 'finalize', 'abort'], 'description': 'Lifecycle operation to perform.'}, rule='type')
            if not (isinstance(data__op, str) and data__op == 'begin' or isinstance(data__op, str) and data__op == 'pre-tool' or isinstance(data__op, str) and data__op == 'post-tool' or isinstance(data__op, str) and data__op == 'telemetry' or isinstance(data__op, str) and data__op == 'finalize' or isinstance(data__op, str) and data__op == 'abort'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be one of ['begin', 'pre-tool', 'post-tool', 'telemetry', 'finalize', 'abort']", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'type': 'string', 'enum': ['begin', 'pre-tool', 'post-tool', 'telemetry', 'finalize', 'abort'], 'description': 'Lifecycle operation to perform.'}, rule='enum')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_abortrequest(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['op'], 'properties': {'op': {'const': 'abort'}, 'admission_id': {'type': ['string', 'null']}, 'reason': {'type': ['string', 'null']}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'abort'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: abort", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'abort'}, rule='const')
        if "admission_id" in data_keys:
            data_keys.remove("admission_id")
            data__admissionid = data["admission_id"]
            if not isinstance(data__admissionid, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".admission_id must be string or null", value=data__admissionid, name="" + (name_prefix or "data") + ".admission_id", definition={'type': ['string', 'null']}, rule='type')
        if "reason" in data_keys:
            data_keys.remove("reason")
            data__reason = data["reason"]
            if not isinstance(data__reason, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".reason must be string or null", value=data__reason, name="" + (name_prefix or "data") + ".reason", definition={'type': ['string', 'null']}, rule='type')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_finalizerequest(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op', 'admission_id']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'finalize'}, 'admission_id': {'type': 'string'}, 'stop_reason': {'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, 'assistant_summary': {'type': ['string', 'null']}, 'changed_files': {'type': ['array', 'null'], 'items': {'type': 'string'}}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'finalize'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: finalize", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'finalize'}, rule='const')
        if "admission_id" in data_keys:
            data_keys.remove("admission_id")
            data__admissionid = data["admission_id"]
            if not isinstance(data__admissionid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".admission_id must be string", value=data__admissionid, name="" + (name_prefix or "data") + ".admission_id", definition={'type': 'string'}, rule='type')
        if "stop_reason" in data_keys:
            data_keys.remove("stop_reason")
            data__stopreason = data["stop_reason"]
            if not isinstance(data__stopreason, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stop_reason must be string or null", value=data__stopreason, name="" + (name_prefix or "data") + ".stop_reason", definition={'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, rule='type')
            if not (isinstance(data__stopreason, str) and data__stopreason == 'completed' or isinstance(data__stopreason, str) and data__stopreason == 'user_interrupt' or isinstance(data__stopreason, str) and data__stopreason == 'error' or isinstance(data__stopreason, str) and data__stopreason == 'max_turns' or isinstance(data__stopreason, str) and data__stopreason == 'timeout' or data__stopreason is None):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".stop_reason must be one of ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]", value=data__stopreason, name="" + (name_prefix or "data") + ".stop_reason", definition={'type': ['string', 'null'], 'enum': ['completed', 'user_interrupt', 'error', 'max_turns', 'timeout', None]}, rule='enum')
        if "assistant_summary" in data_keys:
            data_keys.remove("assistant_summary")
            data__assistantsummary = data["assistant_summary"]
            if not isinstance(data__assistantsummary, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".assistant_summary must be string or null", value=data__assistantsummary, name="" + (name_prefix or "data") + ".assistant_summary", definition={'type': ['string', 'null']}, rule='type')
        if "changed_files" in data_keys:
            data_keys.remove("changed_files")
            data__changedfiles = data["changed_files"]
            if not isinstance(data__changedfiles, (list, tuple, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".changed_files must be array or null", value=data__changedfiles, name="" + (name_prefix or "data") + ".changed_files", definition={'type': ['array', 'null'], 'items': {'type': 'string'}}, rule='type')
            data__changedfiles_is_list = isinstance(data__changedfiles, (list, tuple))
            if data__changedfiles_is_list:
                data__changedfiles_len = len(data__changedfiles)
                for data__changedfiles_x, data__changedfiles_item in enumerate(data__changedfiles):
                    if not isinstance(data__changedfiles_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".changed_files[{data__changedfiles_x}]".format(**locals()) + " must be string", value=data__changedfiles_item, name="" + (name_prefix or "data") + ".changed_files[{data__changedfiles_x}]".format(**locals()) + "", definition={'type': 'string'}, rule='type')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_telemetryrequest(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op', 'admission_id']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['op', 'admission_id'], 'properties': {'op': {'const': 'telemetry'}, 'admission_id': {'type': 'string'}, 'model': {'type': ['string', 'null']}, 'runtime_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'input_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'output_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cache_tokens': {'type': ['integer', 'null'], 'minimum': 0}, 'cost_amount': {'type': ['number', 'null'], 'minimum': 0}, 'cost_currency': {'type': ['string', 'null']}, 'cost_source': {'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'telemetry'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: telemetry", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'telemetry'}, rule='const')
        if "admission_id" in data_keys:
            data_keys.remove("admission_id")
            data__admissionid = data["admission_id"]
            if not isinstance(data__admissionid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".admission_id must be string", value=data__admissionid, name="" + (name_prefix or "data") + ".admission_id", definition={'type': 'string'}, rule='type')
        if "model" in data_keys:
            data_keys.remove("model")
            data__model = data["model"]
            if not isinstance(data__model, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".model must be string or null", value=data__model, name="" + (name_prefix or "data") + ".model", definition={'type': ['string', 'null']}, rule='type')
        if "runtime_ms" in data_keys:
            data_keys.remove("runtime_ms")
            data__runtimems = data["runtime_ms"]
            if not isinstance(data__runtimems, (int, NoneType)) and not (isinstance(data__runtimems, float) and data__runtimems.is_integer()) or isinstance(data__runtimems, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".runtime_ms must be integer or null", value=data__runtimems, name="" + (name_prefix or "data") + ".runtime_ms", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__runtimems, (int, float, Decimal)) and not isinstance(data__runtimems, bool):
                if data__runtimems < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".runtime_ms must be bigger than or equal to 0", value=data__runtimems, name="" + (name_prefix or "data") + ".runtime_ms", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='minimum')
        if "input_tokens" in data_keys:
            data_keys.remove("input_tokens")
            data__inputtokens = data["input_tokens"]
            if not isinstance(data__inputtokens, (int, NoneType)) and not (isinstance(data__inputtokens, float) and data__inputtokens.is_integer()) or isinstance(data__inputtokens, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".input_tokens must be integer or null", value=data__inputtokens, name="" + (name_prefix or "data") + ".input_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__inputtokens, (int, float, Decimal)) and not isinstance(data__inputtokens, bool):
                if data__inputtokens < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".input_tokens must be bigger than or equal to 0", value=data__inputtokens, name="" + (name_prefix or "data") + ".input_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='minimum')
        if "output_tokens" in data_keys:
            data_keys.remove("output_tokens")
            data__outputtokens = data["output_tokens"]
            if not isinstance(data__outputtokens, (int, NoneType)) and not (isinstance(data__outputtokens, float) and data__outputtokens.is_integer()) or isinstance(data__outputtokens, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".output_tokens must be integer or null", value=data__outputtokens, name="" + (name_prefix or "data") + ".output_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__outputtokens, (int, float, Decimal)) and not isinstance(data__outputtokens, bool):
                if data__outputtokens < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".output_tokens must be bigger than or equal to 0", value=data__outputtokens, name="" + (name_prefix or "data") + ".output_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='minimum')
        if "cache_tokens" in data_keys:
            data_keys.remove("cache_tokens")
            data__cachetokens = data["cache_tokens"]
            if not isinstance(data__cachetokens, (int, NoneType)) and not (isinstance(data__cachetokens, float) and data__cachetokens.is_integer()) or isinstance(data__cachetokens, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cache_tokens must be integer or null", value=data__cachetokens, name="" + (name_prefix or "data") + ".cache_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__cachetokens, (int, float, Decimal)) and not isinstance(data__cachetokens, bool):
                if data__cachetokens < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cache_tokens must be bigger than or equal to 0", value=data__cachetokens, name="" + (name_prefix or "data") + ".cache_tokens", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='minimum')
        if "cost_amount" in data_keys:
            data_keys.remove("cost_amount")
            data__costamount = data["cost_amount"]
            if not isinstance(data__costamount, (int, float, Decimal, NoneType)) or isinstance(data__costamount, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cost_amount must be number or null", value=data__costamount, name="" + (name_prefix or "data") + ".cost_amount", definition={'type': ['number', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__costamount, (int, float, Decimal)) and not isinstance(data__costamount, bool):
                if data__costamount < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cost_amount must be bigger than or equal to 0", value=data__costamount, name="" + (name_prefix or "data") + ".cost_amount", definition={'type': ['number', 'null'], 'minimum': 0}, rule='minimum')
        if "cost_currency" in data_keys:
            data_keys.remove("cost_currency")
            data__costcurrency = data["cost_currency"]
            if not isinstance(data__costcurrency, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cost_currency must be string or null", value=data__costcurrency, name="" + (name_prefix or "data") + ".cost_currency", definition={'type': ['string', 'null']}, rule='type')
        if "cost_source" in data_keys:
            data_keys.remove("cost_source")
            data__costsource = data["cost_source"]
            if not isinstance(data__costsource, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cost_source must be string or null", value=data__costsource, name="" + (name_prefix or "data") + ".cost_source", definition={'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}, rule='type')
            if not (isinstance(data__costsource, str) and data__costsource == 'provider_reported' or isinstance(data__costsource, str) and data__costsource == 'sdk_result_message' or isinstance(data__costsource, str) and data__costsource == 'statusline_estimate' or isinstance(data__costsource, str) and data__costsource == 'session_delta' or isinstance(data__costsource, str) and data__costsource == 'unavailable' or data__costsource is None):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cost_source must be one of ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]", value=data__costsource, name="" + (name_prefix or "data") + ".cost_source", definition={'type': ['string', 'null'], 'description': 'Provenance of cost/token numbers, e.g. provider_reported, statusline_estimate, session_delta, unavailable. Numbers WITHOUT an accurate source MUST be null with a warning (Plan-20 §5).', 'enum': ['provider_reported', 'sdk_result_message', 'statusline_estimate', 'session_delta', 'unavailable', None]}, rule='enum')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_posttoolrequest(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op', 'admission_id', 'tool']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'post-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string'}, 'status': {'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, 'duration_ms': {'type': ['integer', 'null'], 'minimum': 0}, 'result': {'description': 'Tool result. Never stored raw — hashed + redacted.'}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'post-tool'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: post-tool", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'post-tool'}, rule='const')
        if "admission_id" in data_keys:
            data_keys.remove("admission_id")
            data__admissionid = data["admission_id"]
            if not isinstance(data__admissionid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".admission_id must be string", value=data__admissionid, name="" + (name_prefix or "data") + ".admission_id", definition={'type': 'string'}, rule='type')
        if "tool" in data_keys:
            data_keys.remove("tool")
            data__tool = data["tool"]
            if not isinstance(data__tool, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".tool must be string", value=data__tool, name="" + (name_prefix or "data") + ".tool", definition={'type': 'string'}, rule='type')
        if "status" in data_keys:
            data_keys.remove("status")
            data__status = data["status"]
            if not isinstance(data__status, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".status must be string or null", value=data__status, name="" + (name_prefix or "data") + ".status", definition={'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, rule='type')
            if not (isinstance(data__status, str) and data__status == 'success' or isinstance(data__status, str) and data__status == 'error' or isinstance(data__status, str) and data__status == 'denied' or isinstance(data__status, str) and data__status == 'timeout' or data__status is None):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".status must be one of ['success', 'error', 'denied', 'timeout', None]", value=data__status, name="" + (name_prefix or "data") + ".status", definition={'type': ['string', 'null'], 'enum': ['success', 'error', 'denied', 'timeout', None]}, rule='enum')
        if "duration_ms" in data_keys:
            data_keys.remove("duration_ms")
            data__durationms = data["duration_ms"]
            if not isinstance(data__durationms, (int, NoneType)) and not (isinstance(data__durationms, float) and data__durationms.is_integer()) or isinstance(data__durationms, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".duration_ms must be integer or null", value=data__durationms, name="" + (name_prefix or "data") + ".duration_ms", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='type')
            if isinstance(data__durationms, (int, float, Decimal)) and not isinstance(data__durationms, bool):
                if data__durationms < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".duration_ms must be bigger than or equal to 0", value=data__durationms, name="" + (name_prefix or "data") + ".duration_ms", definition={'type': ['integer', 'null'], 'minimum': 0}, rule='minimum')
        if "result" in data_keys:
            data_keys.remove("result")
            data__result = data["result"]
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_pretoolrequest(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op', 'admission_id', 'tool']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'required': ['op', 'admission_id', 'tool'], 'properties': {'op': {'const': 'pre-tool'}, 'admission_id': {'type': 'string'}, 'tool': {'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, 'tool_input': {'description': 'Tool input payload. Scanned/redacted; only a hash + redacted summary are persisted.'}, 'project': {'type': ['string', 'null']}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'pre-tool'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: pre-tool", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'pre-tool'}, rule='const')
        if "admission_id" in data_keys:
            data_keys.remove("admission_id")
            data__admissionid = data["admission_id"]
            if not isinstance(data__admissionid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".admission_id must be string", value=data__admissionid, name="" + (name_prefix or "data") + ".admission_id", definition={'type': 'string'}, rule='type')
        if "tool" in data_keys:
            data_keys.remove("tool")
            data__tool = data["tool"]
            if not isinstance(data__tool, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".tool must be string", value=data__tool, name="" + (name_prefix or "data") + ".tool", definition={'type': 'string', 'description': 'Client-native tool name, e.g. Bash, Edit, Write, WebFetch.'}, rule='type')
        if "tool_input" in data_keys:
            data_keys.remove("tool_input")
            data__toolinput = data["tool_input"]
        if "project" in data_keys:
            data_keys.remove("project")
            data__project = data["project"]
            if not isinstance(data__project, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".project must be string or null", value=data__project, name="" + (name_prefix or "data") + ".project", definition={'type': ['string', 'null']}, rule='type')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_beginrequest(data, custom_formats={}, name_prefix=None):
    validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_clientcontext(data, custom_formats, (name_prefix or "data") + "")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['op', 'client', 'prompt']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'allOf': [{'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}], 'required': ['op', 'client', 'prompt'], 'properties': {'op': {'const': 'begin'}, 'prompt': {'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, 'turn': {'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}}}, rule='required')
        data_keys = set(data.keys())
        if "op" in data_keys:
            data_keys.remove("op")
            data__op = data["op"]
            if not (isinstance(data__op, str) and data__op == 'begin'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".op must be same as const definition: begin", value=data__op, name="" + (name_prefix or "data") + ".op", definition={'const': 'begin'}, rule='const')
        if "prompt" in data_keys:
            data_keys.remove("prompt")
            data__prompt = data["prompt"]
            if not isinstance(data__prompt, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".prompt must be string", value=data__prompt, name="" + (name_prefix or "data") + ".prompt", definition={'type': 'string', 'description': 'Raw user prompt. Scanned by H4 then discarded — only a salted hash is persisted.'}, rule='type')
        if "turn" in data_keys:
            data_keys.remove("turn")
            data__turn = data["turn"]
            if not isinstance(data__turn, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".turn must be string or null", value=data__turn, name="" + (name_prefix or "data") + ".turn", definition={'type': ['string', 'null'], 'description': 'Optional client-native turn correlation id; hashed, not stored raw.'}, rule='type')
    return data

def validate_https___casan_local_schemas_agentic_lifecycle_schema_json__definitions_clientcontext(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['client']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'required': ['client'], 'properties': {'client': {'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, 'client_version': {'type': ['string', 'null']}, 'adapter_version': {'type': ['string', 'null']}, 'project': {'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, 'session': {'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, 'actor': {'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, 'integration_mode': {'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}}}, rule='required')
        data_keys = set(data.keys())
        if "client" in data_keys:
            data_keys.remove("client")
            data__client = data["client"]
            if not isinstance(data__client, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".client must be string", value=data__client, name="" + (name_prefix or "data") + ".client", definition={'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, rule='type')
            if not (isinstance(data__client, str) and data__client == 'claude-code' or isinstance(data__client, str) and data__client == 'codex' or isinstance(data__client, str) and data__client == 'vscode' or isinstance(data__client, str) and data__client == 'unknown'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".client must be one of ['claude-code', 'codex', 'vscode', 'unknown']", value=data__client, name="" + (name_prefix or "data") + ".client", definition={'type': 'string', 'enum': ['claude-code', 'codex', 'vscode', 'unknown'], 'description': 'Agentic client family.'}, rule='enum')
        if "client_version" in data_keys:
            data_keys.remove("client_version")
            data__clientversion = data["client_version"]
            if not isinstance(data__clientversion, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".client_version must be string or null", value=data__clientversion, name="" + (name_prefix or "data") + ".client_version", definition={'type': ['string', 'null']}, rule='type')
        if "adapter_version" in data_keys:
            data_keys.remove("adapter_version")
            data__adapterversion = data["adapter_version"]
            if not isinstance(data__adapterversion, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".adapter_version must be string or null", value=data__adapterversion, name="" + (name_prefix or "data") + ".adapter_version", definition={'type': ['string', 'null']}, rule='type')
        if "project" in data_keys:
            data_keys.remove("project")
            data__project = data["project"]
            if not isinstance(data__project, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".project must be string or null", value=data__project, name="" + (name_prefix or "data") + ".project", definition={'type': ['string', 'null'], 'description': 'Project root as the client sees it; canonicalized by the bridge.'}, rule='type')
        if "session" in data_keys:
            data_keys.remove("session")
            data__session = data["session"]
            if not isinstance(data__session, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".session must be string or null", value=data__session, name="" + (name_prefix or "data") + ".session", definition={'type': ['string', 'null'], 'description': 'Client-native session id. Hashed by the bridge, never stored raw.'}, rule='type')
        if "actor" in data_keys:
            data_keys.remove("actor")
            data__actor = data["actor"]
            if not isinstance(data__actor, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".actor must be string or null", value=data__actor, name="" + (name_prefix or "data") + ".actor", definition={'type': ['string', 'null'], 'description': 'Stable actor identity asserted by the authenticated runtime boundary.'}, rule='type')
        if "integration_mode" in data_keys:
            data_keys.remove("integration_mode")
            data__integrationmode = data["integration_mode"]
            if not isinstance(data__integrationmode, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".integration_mode must be string or null", value=data__integrationmode, name="" + (name_prefix or "data") + ".integration_mode", definition={'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}, rule='type')
            if not (isinstance(data__integrationmode, str) and data__integrationmode == 'casan_owned' or isinstance(data__integrationmode, str) and data__integrationmode == 'managed_hook' or isinstance(data__integrationmode, str) and data__integrationmode == 'project_hook' or isinstance(data__integrationmode, str) and data__integrationmode == 'observed_only' or data__integrationmode is None):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".integration_mode must be one of ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None]", value=data__integrationmode, name="" + (name_prefix or "data") + ".integration_mode", definition={'type': ['string', 'null'], 'enum': ['casan_owned', 'managed_hook', 'project_hook', 'observed_only', None], 'description': 'Declared integration mode; the bridge may DOWNGRADE (never upgrade) it based on enforcement mode and coverage.'}, rule='enum')
    return data

def validate(data: object) -> object:
    """The request, unchanged, or JsonSchemaValueException naming the first problem."""
    return validate_https___casan_local_schemas_agentic_lifecycle_schema_json(data)
