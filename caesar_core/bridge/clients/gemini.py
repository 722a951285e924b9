"""``caesar hook gemini``: Gemini CLI hooks in, Gemini's answers out.

Events -> ops: ``BeforeAgent`` begin (its ``prompt`` is scanned); ``BeforeTool`` pre-tool;
``AfterTool`` post-tool (status ``error`` when ``tool_response.error`` is set); ``AfterAgent``
finalize (``prompt_response`` goes to the task's log); ``SessionEnd`` with a turn still open
abort; ``AfterModel`` telemetry, only on a response's last chunk (the one with a
``finishReason``: the hook fires per streamed chunk), tokens from ``usageMetadata`` as
``provider_reported`` and no cost. ``SessionStart``, ``Notification`` (log only) and the rest
make no op. The seed schema's client enum has no Gemini: it is declared ``unknown``, with
``client_version: "gemini-cli"`` and adapter ``caesar-hook-gemini/<version>``.

Decisions: ``decision: "deny"`` with ``reason`` (no ``ask`` is documented, so require_approval is
a deny), plus ``continue: false`` and ``stopReason`` for halt and quarantine; otherwise ``{}``
(Gemini wants nothing but JSON on stdout). Failing closed is exit 2 with the reason on stderr.

A refused call is closed at once: Gemini runs no ``AfterTool`` for a call its ``BeforeTool``
hook refused (0.61.0 returns before executing it), and its payloads carry no call id, so the
bridge pairs post-tools by tool name, oldest first. Left pending, the refused call would pair
with the next call of the same tool, and that call's success would read as "refused but ran"
(the receipt downgraded to ``observed_only``). The hook therefore sends the bridge a
``post-tool`` with status ``denied`` right after the refusal (``flow.close_refused``). Seen with
the real Gemini CLI 0.61.0 (``tests/live/test_gemini_hooks.py``). Two calls of one tool in
flight at once, one refused, can still be paired crosswise: without ids nothing tells them
apart.
"""

from __future__ import annotations

import os

from caesar_core.bridge.clients.common import (
    STOPPING,
    Answer,
    PayloadError,
    int_field,
    reason_of,
    text_field,
)
from caesar_core.bridge.clients.driver import Adapter, closing_refusals, drive, options
from caesar_core.bridge.clients.flow import Client, Step, session_ended, turn_finished

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("gemini", "unknown", client_version="gemini-cli")
BLOCKABLE = frozenset({"BeforeAgent", "BeforeTool"})


def event_of(payload: Mapping[str, Any]) -> str:
    event = text_field(payload, "hook_event_name")
    if event is None:
        raise PayloadError("the hook payload names no event (hook_event_name)")
    return event


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    session = text_field(payload, "session_id") or env.get("GEMINI_SESSION_ID") or None
    project = env.get("GEMINI_PROJECT_DIR") or text_field(payload, "cwd")
    tool_use_id = text_field(payload, "tool_use_id", "tool_call_id", "call_id")
    if event == "BeforeAgent":
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            raise PayloadError("BeforeAgent carries no prompt")
        return Step("begin", session=session, project=project, prompt=prompt)
    if event in ("BeforeTool", "AfterTool"):
        tool = text_field(payload, "tool_name")
        if tool is None:
            raise PayloadError(f"{event} names no tool (tool_name)")
        step = Step(
            "pre-tool" if event == "BeforeTool" else "post-tool",
            session=session,
            project=project,
            tool=tool,
            tool_input=payload.get("tool_input", {}),
            tool_use_id=tool_use_id,
        )
        if event == "AfterTool":
            response = payload.get("tool_response")
            failed = isinstance(response, dict) and bool(response.get("error"))
            step.status = "error" if failed else "success"
            step.result = response
        return step
    if event == "AfterAgent":
        return turn_finished(session, project, payload.get("prompt_response"))
    if event == "SessionEnd":
        return session_ended(session, project, text_field(payload, "reason"))
    if event == "AfterModel":
        return _telemetry(payload, session, project)
    if event == "Notification":
        message = text_field(payload, "message") or ""
        kind = text_field(payload, "notification_type") or "notification"
        return Step(None, session=session, project=project, progress=f"{kind}: {message}")
    return Step(None, session=session, project=project)


def _telemetry(payload: Mapping[str, Any], session: str | None, project: str | None) -> Step:
    response = payload.get("llm_response")
    if not isinstance(response, dict):
        return Step(None, session=session, project=project)
    candidates = response.get("candidates")
    last = (
        isinstance(candidates, list)
        and bool(candidates)
        and isinstance(candidates[0], dict)
        and bool(candidates[0].get("finishReason"))
    )
    usage = response.get("usageMetadata")
    if not last or not isinstance(usage, dict):
        return Step(None, session=session, project=project)
    request = payload.get("llm_request")
    model = text_field(request, "model") if isinstance(request, dict) else None
    telemetry = {
        "model": model,
        "input_tokens": int_field(usage, "promptTokenCount"),
        "output_tokens": int_field(usage, "candidatesTokenCount"),
        "cache_tokens": int_field(usage, "cachedContentTokenCount"),
        "cost_amount": None,
        "cost_currency": None,
        "cost_source": "provider_reported",
    }
    return Step("telemetry", session=session, project=project, telemetry=telemetry)


def render(
    event: str, step: Step, response: dict[str, Any] | None, payload: Mapping[str, Any]
) -> Answer:
    if response is None:
        return Answer({})
    decision = response["decision"]
    reason = reason_of(response)
    if decision in STOPPING:
        return Answer(
            {"decision": "deny", "reason": reason, "continue": False, "stopReason": reason}
        )
    if event in BLOCKABLE:
        if decision == "allow":
            return Answer({})
        return Answer({"decision": "deny", "reason": reason})
    if decision == "error":
        return Answer({}, stderr=f"{reason} (event {event} not blocked)")
    if decision in ("block", "deny"):
        if event == "AfterAgent" and payload.get("stop_hook_active") is True:
            return Answer({}, stderr=f"{reason} (not blocking again: stop_hook_active)")
        if event in ("AfterTool", "AfterAgent"):
            return Answer({"decision": "deny", "reason": reason})
    return Answer({})


def fail(event: str | None, reason: str) -> Answer:
    text = f"caesar: {reason}"
    if event is None or event in BLOCKABLE:
        return Answer(stderr=text, exit_code=2)
    return Answer({}, stderr=f"{text} (event {event} not blocked)")


def main(argv: list[str]) -> int:
    client, _ = options(argv, CLIENT)
    env = dict(os.environ)
    answer = closing_refusals(render, "BeforeTool", env)
    return drive(Adapter(client, event_of, parse, answer, fail), env=env)
