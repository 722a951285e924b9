"""Claude Code's provider: the Anthropic Messages API, streamed as server-sent events.

Claude Code 2.1.332 posts every model call to ``/v1/messages?beta=true`` with
``stream: true``, its tools in ``tools`` and the conversation so far in ``messages``: the
step to play is the number of ``tool_result`` blocks there. With nonessential traffic
disabled it made no other request in our runs; a side call without tools (a title, a topic)
would get plain text, and token counting (``/v1/messages/count_tokens``) and the model list
are answered in case a version asks.

Each tool step is preceded by a short thinking block, so the capture shows how claude
prints thinking; ``Say`` ends the turn (``end_turn``), a tool call asks for its result
(``tool_use``).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from tests.live.modelserver import (
    Brief,
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
"""caesar's claude adapter reports through the file (no native schema; channel on request)."""

MODEL = "claude-sonnet-4-5"
SHELL_TOOL = "Bash"
WRITE_TOOL = "Write"

Block = dict[str, Any]


class AnthropicMessages:
    name = "anthropic-messages"

    def handles(self, method: str, path: str) -> bool:
        return path.startswith("/v1/")

    def answer(self, seen: Seen, script: Script) -> Reply:
        path = seen.path.split("?", 1)[0]
        body: dict[str, Any] = seen.body if isinstance(seen.body, dict) else {}
        if path == "/v1/messages/count_tokens":
            return JsonReply({"input_tokens": _tokens(body)})
        if path == "/v1/models" or path.startswith("/v1/models/"):
            entry = {"type": "model", "id": MODEL, "display_name": "Scripted"}
            return JsonReply({"data": [entry], "has_more": False})
        if path != "/v1/messages" or seen.method != "POST":
            return JsonReply({"type": "error", "error": {"type": "not_found_error"}}, 404)
        model = str(body.get("model") or MODEL)
        offered = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if not offered:
            return _reply(body, model, [_text("caesar task")], "end_turn")
        brief = read_brief(body)
        earlier, now = split_at_brief(body.get("messages") or [], brief)
        step = script.step(_tool_results(now), brief, _tool_results(earlier))
        if isinstance(step, Say):
            return _reply(body, model, [_text(step.text)], "end_turn")
        name, arguments = _call(step, brief)
        if name not in offered:
            known = sorted(str(tool) for tool in offered)
            return JsonReply(_error(f"claude did not offer the tool {name}: {known}"), 400)
        thought = {"type": "thinking", "thinking": f"Next: {name}.", "signature": "c2ln"}
        return _reply(body, model, [thought, _tool_use(name, arguments)], "tool_use")


def _tool_results(messages: list[Any]) -> int:
    count = 0
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            count += sum(
                1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
            )
    return count


def _call(step: Step, brief: Brief) -> tuple[str, dict[str, Any]]:
    if isinstance(step, Shell):
        return SHELL_TOOL, {"command": step.command, "description": "Run the scripted command"}
    if isinstance(step, WriteFile):
        return WRITE_TOOL, {"file_path": brief.absolute(step.path), "content": step.content}
    assert isinstance(step, CallTool)
    return step.name, step.arguments


def _text(text: str) -> Block:
    return {"type": "text", "text": text}


def _tool_use(name: str, arguments: dict[str, Any]) -> Block:
    return {
        "type": "tool_use",
        "id": f"toolu_{uuid.uuid4().hex[:24]}",
        "name": name,
        "input": arguments,
    }


def _error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _tokens(value: object) -> int:
    return max(1, len(json.dumps(value)) // 4)


def _reply(body: dict[str, Any], model: str, blocks: list[Block], stop: str) -> Reply:
    """One assistant message, as the Messages API streams it (or whole, if not streamed)."""
    usage_in = _tokens(body.get("messages") or [])
    usage_out = sum(_tokens(block) for block in blocks)
    message: dict[str, Any] = {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage_in, "output_tokens": 1},
    }
    if not body.get("stream"):
        usage = {"input_tokens": usage_in, "output_tokens": usage_out}
        return JsonReply({**message, "content": blocks, "stop_reason": stop, "usage": usage})
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    for index, block in enumerate(blocks):
        start, deltas = _streamed(block)
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage_out},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return SseReply(events)


def _streamed(block: Block) -> tuple[Block, list[Block]]:
    """A content block's opening (empty) and the deltas that fill it."""
    if block["type"] == "text":
        return _text(""), [{"type": "text_delta", "text": block["text"]}]
    if block["type"] == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}, [
            {"type": "thinking_delta", "thinking": block["thinking"]},
            {"type": "signature_delta", "signature": block["signature"]},
        ]
    partial = json.dumps(block["input"])
    return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": partial}]


DIALECTS = [AnthropicMessages()]


def environment(server_url: str, home: Path) -> dict[str, str]:
    """Claude Code pointed at ``server_url``, with its config in ``home`` and nothing else
    phoning home. ``-p`` mode skips onboarding and the trust dialog; the API key is used
    as is (``apiKeySource: ANTHROPIC_API_KEY``) without an approval prompt."""
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": server_url,
        "ANTHROPIC_API_KEY": "test-key",
        "CLAUDE_CONFIG_DIR": str(config),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
