"""opencode against the scripted server: a custom OpenAI-compatible provider, Chat Completions.

opencode bundles ``@ai-sdk/openai-compatible``, so a provider declared in its config with a
``baseURL`` on 127.0.0.1 needs no download; the SDK then speaks ``POST /v1/chat/completions``
with ``stream: true`` (and ``stream_options.include_usage``) and reads server-sent chunks.
The config is a file under the throwaway HOME's ``XDG_CONFIG_HOME``, not
``OPENCODE_CONFIG_CONTENT``, which the adapter itself sets for read-only tasks and the
channel. Models are priced in the config, so the stream's cost is not zero.

Steps map to opencode's built-in tools: a shell command is ``bash {command, description}``, a
file is ``write {filePath (absolute), content}``, a ``CallTool`` keeps its name (MCP tools are
offered as ``<server>_<tool>``). The final answer carries a short ``reasoning_content``, so
the stream shows thinking. Requests without tools are opencode's side requests (the session
title) and get a short plain answer.
"""

from __future__ import annotations

import json
import time
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
    WriteFile,
    read_brief,
    split_at_brief,
)

PROVIDER = "caesar"
MODEL = "scripted"
REFUSED = "refused"
"""A second model of the provider, which the server refuses with a 400 (a provider error)."""
TIER = "file"
"""opencode has no structured-output flag: the report comes back as the file."""


class ChatCompletions:
    """``POST /v1/chat/completions``, streamed, as ``@ai-sdk/openai-compatible`` asks."""

    name = "openai-chat-completions"

    def handles(self, method: str, path: str) -> bool:
        return method == "POST" and path.partition("?")[0].endswith("/chat/completions")

    def answer(self, seen: Seen, script: Script) -> Reply:
        body: dict[str, Any] = seen.body if isinstance(seen.body, dict) else {}
        messages = body.get("messages") or []
        if not body.get("tools"):
            return _reply(body, content="Scripted task", tool_call=None)
        if body.get("model") == REFUSED:
            error = {"message": "scripted refusal", "type": "invalid_request_error"}
            return JsonReply({"error": error}, status=400)
        brief = read_brief(messages)
        earlier, now = split_at_brief(messages, brief)
        results, before = _tool_results(now), _tool_results(earlier)
        step = script.step(results, brief, before)
        call_id = f"call_{before + results}"  # unique in the session, earlier turns included
        if isinstance(step, Shell):
            arguments = {"command": step.command, "description": "Run the scripted command"}
            return _reply(body, content=None, tool_call=(call_id, "bash", arguments))
        if isinstance(step, WriteFile):
            arguments = {"filePath": brief.absolute(step.path), "content": step.content}
            return _reply(body, content=None, tool_call=(call_id, "write", arguments))
        if isinstance(step, CallTool):
            return _reply(body, content=None, tool_call=(call_id, step.name, step.arguments))
        assert isinstance(step, Say)
        return _reply(body, content=step.text, tool_call=None, reasoning="The work is done.")


def _tool_results(messages: list[Any]) -> int:
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")


def _reply(
    body: dict[str, Any],
    content: str | None,
    tool_call: tuple[str, str, Any] | None,
    reasoning: str = "",
) -> Reply:
    created = int(time.time())
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created}
    base["model"] = body.get("model") or MODEL
    usage = {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
    if not body.get("stream"):
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_call:
            message["tool_calls"] = [_call(*tool_call)]
        finish = "tool_calls" if tool_call else "stop"
        return JsonReply(
            {
                **base,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )
    chunks: list[dict[str, Any]] = [_chunk(base, {"role": "assistant", "content": ""})]
    if reasoning:
        chunks.append(_chunk(base, {"reasoning_content": reasoning}))
    if content is not None:
        chunks.append(_chunk(base, {"content": content}))
    if tool_call:
        call = {"index": 0, **_call(*tool_call)}
        chunks.append(_chunk(base, {"tool_calls": [call]}))
    chunks.append(_chunk(base, {}, "tool_calls" if tool_call else "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**base, "choices": [], "usage": usage})
    events: list[tuple[str | None, Any]] = [(None, chunk) for chunk in chunks]
    events.append((None, "[DONE]"))
    return SseReply(events)


def _call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _chunk(
    base: dict[str, Any], delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


DIALECTS = [ChatCompletions()]


def config(server_url: str) -> dict[str, Any]:
    """The opencode config that makes the scripted server its only model."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "caesar scripted server",
                "options": {"baseURL": f"{server_url}/v1", "apiKey": "test"},
                "models": {
                    name: {
                        "name": name,
                        "tool_call": True,
                        "reasoning": True,
                        "cost": {"input": 3.0, "output": 15.0},
                        "limit": {"context": 128000, "output": 4096},
                    }
                    for name in (MODEL, REFUSED)
                },
            }
        },
        "model": f"{PROVIDER}/{MODEL}",
        "small_model": f"{PROVIDER}/{MODEL}",
    }


def environment(server_url: str, home: Path) -> dict[str, str]:
    """A throwaway HOME whose config points opencode at ``server_url``; nothing phones home."""
    xdg_config = home / ".config"
    settings = xdg_config / "opencode"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "opencode.json").write_text(json.dumps(config(server_url), indent=2))
    # opencode installs @opencode-ai/plugin (for user plugins) into each config directory in
    # the background, from the npm registry, unless node_modules exists and the lockfile
    # already lists it: say it does, so a run downloads nothing (no plugin here needs it).
    (settings / "node_modules").mkdir(exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
    (settings / "package-lock.json").write_text(json.dumps(lock))
    return {
        "XDG_CONFIG_HOME": str(xdg_config),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",
        "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    }
