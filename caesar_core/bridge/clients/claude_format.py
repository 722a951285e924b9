"""The Claude Code hook format, which Codex hooks and VS Code agent hooks speak too.

The mapping of its events to ops and the rendering of decisions live here; :mod:`.claude_code`,
:mod:`.codex` and :mod:`.vscode` each adapt them to their client's differences (so none of
them imports another).

Events -> ops: ``UserPromptSubmit`` begin (the prompt is scanned); ``PreToolUse`` pre-tool;
``PostToolUse``/``PostToolUseFailure`` post-tool (an interrupt also aborts the turn); ``Stop``
finalize; ``StopFailure`` and ``SessionEnd`` with a turn still open abort. ``SessionStart``,
``PermissionRequest`` (the pre-tool already decided; Claude's own prompt follows),
``SubagentStop`` and ``Notification`` make no op (a notification feeds the task's log).

Decisions: allow -> nothing (Claude's own permissions still apply), or ``allow`` when a person
approved the call through caesar (no second prompt); deny/block/error -> ``permissionDecision:
deny`` with the reason (shown to Claude); require_approval -> ``ask``; halt/quarantine -> deny
plus ``continue: false`` and ``stopReason``. Prompt, post-tool and Stop blocks are top-level
``decision: "block"``. A payload that cannot be understood at PreToolUse (or no event at all)
fails closed: deny JSON and exit 2.
"""

from __future__ import annotations

from caesar_core.bridge.clients.common import (
    STOPPING,
    Answer,
    PayloadError,
    int_field,
    reason_of,
    text_field,
)
from caesar_core.bridge.clients.flow import Step, session_ended, turn_finished

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PRE_TOOL_EVENTS = frozenset({"PreToolUse"})
PROMPT_EVENTS = frozenset({"UserPromptSubmit"})


def approved_by_person(response: Mapping[str, Any]) -> bool:
    """An allow that a person gave through caesar (so Claude should not ask again)."""
    decided_by = response.get("decided_by")
    return isinstance(decided_by, str) and decided_by != "timeout"


# -- payload -> step ------------------------------------------------------------------------


def event_of(payload: Mapping[str, Any]) -> str:
    event = text_field(payload, "hook_event_name", "hookEventName")
    if event is None:
        raise PayloadError("the hook payload names no event (hook_event_name)")
    return event


def tool_of(payload: Mapping[str, Any]) -> str:
    tool = text_field(payload, "tool_name", "toolName")
    if tool is None:
        raise PayloadError("the tool event names no tool (tool_name)")
    return tool


def parse_common(
    event: str, payload: Mapping[str, Any], *, session: str | None, project: str | None
) -> Step:
    """The Claude-format events shared by Claude Code, Codex and VS Code."""
    tool_use_id = text_field(payload, "tool_use_id", "call_id")
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        if not isinstance(prompt, str):
            raise PayloadError("UserPromptSubmit carries no prompt")
        turn = text_field(payload, "prompt_id", "turn_id")
        return Step("begin", session=session, project=project, prompt=prompt, turn=turn)
    if event == "PreToolUse":
        return Step(
            "pre-tool",
            session=session,
            project=project,
            tool=tool_of(payload),
            tool_input=payload.get("tool_input", {}),
            tool_use_id=tool_use_id,
        )
    if event in ("PostToolUse", "PostToolUseFailure"):
        failed = event == "PostToolUseFailure"
        return Step(
            "post-tool",
            session=session,
            project=project,
            tool=tool_of(payload),
            tool_input=payload.get("tool_input", {}),
            tool_use_id=tool_use_id,
            status="error" if failed else "success",
            duration_ms=int_field(payload, "duration_ms"),
            result=payload.get("error") if failed else payload.get("tool_response"),
            interrupted=failed and payload.get("is_interrupt") is True,
        )
    if event == "Stop":
        return turn_finished(session, project, payload.get("last_assistant_message"))
    if event == "StopFailure":
        error = text_field(payload, "error") or "unknown"
        return Step("abort", session=session, project=project, reason=f"stop_failure: {error}")
    if event == "SessionEnd":
        return session_ended(session, project, text_field(payload, "reason"))
    if event == "Notification":
        title = text_field(payload, "title", "notification_type") or "notification"
        message = text_field(payload, "message") or ""
        return Step(None, session=session, project=project, progress=f"{title}: {message}")
    return Step(None, session=session, project=project)


# -- response -> answer ---------------------------------------------------------------------


def pre_tool_answer(
    response: Mapping[str, Any], *, event: str = "PreToolUse", can_ask: bool = True
) -> Answer:
    decision = response["decision"]
    reason = reason_of(response)
    specific: dict[str, Any] = {"hookEventName": event}
    context = response.get("context")
    if decision == "allow":
        if approved_by_person(response):
            specific.update(permissionDecision="allow", permissionDecisionReason=reason)
        if isinstance(context, str) and context:
            specific["additionalContext"] = context
        return Answer({"hookSpecificOutput": specific} if len(specific) > 1 else None)
    if decision == "require_approval" and can_ask:
        specific.update(permissionDecision="ask", permissionDecisionReason=reason)
        return Answer({"hookSpecificOutput": specific})
    specific.update(permissionDecision="deny", permissionDecisionReason=reason)
    output: dict[str, Any] = {"hookSpecificOutput": specific}
    if decision in STOPPING:
        output.update({"continue": False, "stopReason": reason})
    return Answer(output)


def block_answer(response: Mapping[str, Any], event: str) -> Answer:
    """For events decided by a top-level ``decision: "block"`` (prompt, post-tool, Stop)."""
    decision = response["decision"]
    reason = reason_of(response)
    if decision in STOPPING:
        return Answer(
            {"continue": False, "stopReason": reason, "decision": "block", "reason": reason}
        )
    if decision in ("block", "deny"):
        output: dict[str, Any] = {"decision": "block", "reason": reason}
        if event in PROMPT_EVENTS:
            output["hookSpecificOutput"] = {"hookEventName": event, "suppressOriginalPrompt": True}
        return Answer(output)
    return Answer()


def render(
    event: str, step: Step, response: dict[str, Any] | None, payload: Mapping[str, Any]
) -> Answer:
    if response is None:
        return Answer()
    decision = response["decision"]
    if event in PRE_TOOL_EVENTS:
        return pre_tool_answer(response, event=event)
    if event in PROMPT_EVENTS:
        if decision == "error":  # the prompt could not be scanned: it does not go through
            return block_answer({**response, "decision": "block"}, event)
        answer = block_answer(response, event)
        context = response.get("context")
        if answer.stdout is None and isinstance(context, str) and context:
            answer.stdout = {
                "hookSpecificOutput": {"hookEventName": event, "additionalContext": context}
            }
        return answer
    if decision == "error":
        return Answer(stderr=f"{reason_of(response)} (event {event} not blocked)")
    if event == "Stop" and payload.get("stop_hook_active") is True and decision == "block":
        # Claude is already continuing because of a Stop hook: blocking again could loop.
        return Answer(stderr=f"{reason_of(response)} (not blocking again: stop_hook_active)")
    if event in ("PostToolUse", "PostToolUseFailure", "Stop"):
        return block_answer(response, event)
    return Answer()


def fail(event: str | None, reason: str) -> Answer:
    text = f"caesar: {reason}"
    if event is None or event in PRE_TOOL_EVENTS:
        specific = {
            "hookEventName": event or "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": text,
        }
        return Answer({"hookSpecificOutput": specific}, stderr=text, exit_code=2)
    if event in PROMPT_EVENTS:
        output = {
            "decision": "block",
            "reason": text,
            "hookSpecificOutput": {"hookEventName": event, "suppressOriginalPrompt": True},
        }
        return Answer(output, stderr=text, exit_code=2)
    return Answer(stderr=f"{text} (event {event} not blocked)")
