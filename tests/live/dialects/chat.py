"""The OpenAI Chat Completions API, streamed, as the CLIs that speak it ask for it.

``POST <base>/chat/completions`` with ``stream: true`` (and ``stream_options.include_usage``),
answered with server-sent chunks; the conversation is in ``messages``, so the step to play is
the number of ``tool`` messages after the latest brief. What differs between CLIs is only the
name and arguments of their shell and file tools (a ``ToolSet``), and which requests are their
side requests (a session title, a memory pass): those get a short plain answer.

A step's call id is ``call_<n>``, ``n`` counting the session's tool results, earlier turns
included, so ids stay unique in a resumed session. The final answer carries a short
``reasoning_content``, so a stream that shows thinking shows it. A request for the model
``refused`` is answered with a 400, the provider refusing the turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
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
    WriteFile,
    read_brief,
    split_at_brief,
)

REFUSED = "refused"
"""A model the server refuses with a 400 (a provider error)."""
REASONING = "The work is done."


@dataclass(frozen=True)
class ToolSet:
    """How one CLI's model calls its shell and its file-writing tool: (name, arguments)."""

    shell: Callable[[str], tuple[str, dict[str, Any]]]
    write: Callable[[str, str], tuple[str, dict[str, Any]]]
    """Called with the absolute path and the content."""


def plain_side(body: dict[str, Any]) -> bool:
    """The usual side request: one that offers no tools."""
    return not body.get("tools")


class ChatCompletions:
    """``POST …/chat/completions`` playing the script with ``tools``; ``side`` tells a CLI's
    side requests apart from its agent loop."""

    name = "openai-chat-completions"

    def __init__(self, tools: ToolSet, side: Callable[[dict[str, Any]], bool] = plain_side) -> None:
        self.tools = tools
        self.side = side

    def handles(self, method: str, path: str) -> bool:
        return method == "POST" and path.partition("?")[0].endswith("/chat/completions")

    def answer(self, seen: Seen, script: Script) -> Reply:
        body: dict[str, Any] = seen.body if isinstance(seen.body, dict) else {}
        messages = body.get("messages") or []
        if self.side(body):
            return reply(body, content="Scripted task", tool_call=None)
        if body.get("model") == REFUSED:
            error = {"message": "scripted refusal", "type": "invalid_request_error"}
            return JsonReply({"error": error}, status=400)
        brief = read_brief(messages)
        earlier, now = split_at_brief(messages, brief)
        results, before = tool_results(now), tool_results(earlier)
        step = script.step(results, brief, before)
        call_id = f"call_{before + results}"  # unique in the session, earlier turns included
        if isinstance(step, Say):
            return reply(body, content=step.text, tool_call=None, reasoning=REASONING)
        name, arguments = self._call(step, brief)
        return reply(body, content=None, tool_call=(call_id, name, arguments))

    def _call(self, step: Shell | WriteFile | CallTool, brief: Brief) -> tuple[str, Any]:
        if isinstance(step, Shell):
            return self.tools.shell(step.command)
        if isinstance(step, WriteFile):
            return self.tools.write(brief.absolute(step.path), step.content)
        return step.name, step.arguments


def tool_results(messages: list[Any]) -> int:
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")


def reply(
    body: dict[str, Any],
    content: str | None,
    tool_call: tuple[str, str, Any] | None,
    reasoning: str = "",
) -> Reply:
    """One assistant turn: streamed chunks (role, reasoning, text, the call, the finish, the
    usage when asked), or one JSON completion when the request did not stream."""
    created = int(time.time())
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created}
    base["model"] = body.get("model") or "scripted"
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
