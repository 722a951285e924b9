"""Gemini CLI's provider: the Gemini API (``generativelanguage``), streamed as server-sent events.

Gemini CLI talks to ``$GOOGLE_GEMINI_BASE_URL/v1beta/models/<model>:<method>`` through
``@google/genai``. The agent loop uses ``:streamGenerateContent?alt=sse``; the conversation so
far is in ``contents``, so the step to play is the number of ``functionResponse`` parts in it.
Besides the loop it makes side calls to ``:generateContent``: with the default model ``auto``
a routing classifier asks for a JSON complexity score (``responseJsonSchema``), and other
helpers (next-speaker checks, summaries) ask for JSON the same way. Those get an object that
fits the schema they send; a side call with neither schema nor tools gets plain text. A side
call answered badly is retried with backoff for a minute or more, which is why they are
answered and not refused. A request with another API key than ``test-key`` gets the
API's own refusal (400, ``API_KEY_INVALID``), for the test of a failed run. Answers start
with a thought part, as Gemini 3 models stream them; the CLI's stream-json does not print
thoughts at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.live.modelserver import (
    CallTool,
    JsonReply,
    Reply,
    Say,
    Script,
    Seen,
    Shell,
    SseReply,
    Step,
    WriteFile,
    read_brief,
    split_at_brief,
)

TIER = "file"
"""Gemini CLI has no structured-output flag; the report is the file the brief names."""

THOUGHT = "**Planning the step**\n\nThe script says what comes next."
"""A thought summary, as Gemini 3 models stream before they answer (``thought: true``)."""
SHELL_TOOL = "run_shell_command"
WRITE_TOOL = "write_file"

API_KEY = "test-key"
"""The key the server accepts; any other is refused as the real API refuses it."""

_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^:/?]+):(\w+)")


class GeminiApi:
    name = "gemini-api"

    def handles(self, method: str, path: str) -> bool:
        return _PATH.match(path) is not None

    def answer(self, seen: Seen, script: Script) -> Reply:
        match = _PATH.match(seen.path)
        assert match is not None
        model, method = match.group(1), match.group(2)
        body = seen.body if isinstance(seen.body, dict) else {}
        if seen.headers.get("x-goog-api-key") != API_KEY:
            return JsonReply(_key_invalid(), 400)
        if method == "countTokens":
            return JsonReply({"totalTokens": _tokens(body.get("contents"))})
        stream = method == "streamGenerateContent"
        tools = _tool_names(body)
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if schema:
            parts = [{"text": json.dumps(_fill(schema))}]
            return _reply(body, model, parts, stream)
        if not tools:
            return _reply(body, model, [{"text": "caesar task"}], stream)
        brief = read_brief(body)
        earlier, now = split_at_brief(body.get("contents") or [], brief)
        step = script.step(_tool_results(now), brief, _tool_results(earlier))
        return _reply(body, model, _parts(step, brief), stream)


def _key_invalid() -> dict[str, Any]:
    reason = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
    message = "API key not valid. Please pass a valid API key."
    return {
        "error": {
            "code": 400,
            "message": message,
            "status": "INVALID_ARGUMENT",
            "details": [{**reason, "domain": "googleapis.com"}],
        }
    }


def _tool_names(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        for declaration in (tool or {}).get("functionDeclarations") or []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                names.append(declaration["name"])
    return names


def _tool_results(contents: list[Any]) -> int:
    count = 0
    for content in contents:
        for part in (content or {}).get("parts") or []:
            if isinstance(part, dict) and "functionResponse" in part:
                count += 1
    return count


def _parts(step: Step, brief: Any) -> list[dict[str, Any]]:
    if isinstance(step, Shell):
        args = {"command": step.command, "description": "Run the scripted command"}
        return [{"functionCall": {"name": SHELL_TOOL, "args": args}}]
    if isinstance(step, WriteFile):
        args = {"file_path": brief.absolute(step.path), "content": step.content}
        return [{"functionCall": {"name": WRITE_TOOL, "args": args}}]
    if isinstance(step, CallTool):
        return [{"functionCall": {"name": step.name, "args": step.arguments}}]
    assert isinstance(step, Say)
    return [{"text": step.text}]


def _fill(schema: Any) -> Any:
    """A value that satisfies ``schema`` (OpenAPI-style types, upper or lower case).

    An enum takes ``user`` when it offers it: the next-speaker check asks whether the model
    or the user speaks next, and "user" ends the turn instead of looping."""
    if not isinstance(schema, dict):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return "user" if "user" in enum else enum[0]
    kind = str(schema.get("type") or "object").lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _fill(value) for key, value in properties.items()}
    if kind == "array":
        return []
    if kind == "integer":
        return 10
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return False
    return "Scripted answer."


def _tokens(value: Any) -> int:
    return max(1, len(json.dumps(value or [])) // 4)


def _reply(body: dict[str, Any], model: str, parts: list[dict[str, Any]], stream: bool) -> Reply:
    """One model turn: a text answer streams in two chunks, a function call in one."""
    prompt = _tokens(body.get("contents"))
    output = _tokens(parts)
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
    }

    def chunk(chunk_parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": chunk_parts}, "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model}

    if not stream:
        return JsonReply(chunk(parts, True))
    chunks = [chunk([{"text": THOUGHT, "thought": True}], False)]
    text = parts[0].get("text") if len(parts) == 1 else None
    if isinstance(text, str) and len(text) > 1:
        half = len(text) // 2
        chunks += [chunk([{"text": text[:half]}], False), chunk([{"text": text[half:]}], True)]
    else:
        chunks.append(chunk(parts, True))
    return SseReply([(None, c) for c in chunks])


DIALECTS = [GeminiApi()]


def environment(server_url: str, home: Path) -> dict[str, str]:
    """Gemini CLI pointed at ``server_url`` with an API key, and nothing phoning home.

    ``GOOGLE_GEMINI_BASE_URL`` alone would select the ``gateway`` auth type; the settings
    file pins ``gemini-api-key`` so ``GEMINI_API_KEY`` is used without a prompt."""
    config = home / ".gemini"
    config.mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "ide": {"enabled": False},
    }
    (config / "settings.json").write_text(json.dumps(settings, indent=2))
    return {
        "GOOGLE_GEMINI_BASE_URL": server_url,
        "GEMINI_API_KEY": API_KEY,
        "GEMINI_TELEMETRY_ENABLED": "false",
        "NO_BROWSER": "true",
    }
