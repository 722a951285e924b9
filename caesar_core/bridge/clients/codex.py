"""``caesar hook codex``: Codex's Claude-compatible hooks, and its legacy ``notify`` program.

Hooks: the events and payloads of Claude Code (:mod:`.claude_format`), plus ``turn_id``, and
``PostToolUse`` also after a Bash command that exited non-zero, which becomes status
``error``. What Codex cannot express changes the rendering:

* PreToolUse cannot ``ask`` (an ``ask`` is a *failed hook* and the tool runs), so
  require_approval is a deny that says so. It cannot halt either (``continue`` there is a failed
  hook too): halt and quarantine are denies, and the next PostToolUse or Stop carries
  ``continue: false``.
* Stop's stdout must be JSON: ``{}`` when there is nothing to say.
* Failing closed is exit 2 with the reason on stderr (PreToolUse, UserPromptSubmit).

Notify: ``notify = ["caesar", "hook", "codex"]`` makes Codex append one JSON argument,
``agent-turn-complete``, after each turn, with stdin and stdout closed. The turn is then only
seen whole: begin (its input messages are the prompt) and finalize at once, as observed_only.
"""

from __future__ import annotations

import sys

from caesar_core.bridge.clients import claude_format
from caesar_core.bridge.clients.common import (
    STOPPING,
    Answer,
    PayloadError,
    parse_payload,
    reason_of,
    text_field,
)
from caesar_core.bridge.clients.driver import Adapter, drive, options
from caesar_core.bridge.clients.flow import Client, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("codex", "codex")
NOTIFY_CLIENT = Client("codex", "codex", integration_mode="observed_only")
_EXIT_CODE = r"\A\s*(?:Exit code|exit_code|Process exited with code):?\s*(-?\d+)"
"""How a shell result says its exit status (post-tool only: ``re`` stays off PreToolUse)."""


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    step = claude_format.parse_common(
        event,
        payload,
        session=text_field(payload, "session_id"),
        project=text_field(payload, "cwd"),
    )
    if (
        step.op == "post-tool"
        and step.status == "success"
        and _failed(payload.get("tool_response"))
    ):
        step.status = "error"
    return step


def _failed(response: object) -> bool:
    """A Bash result that says it exited non-zero (Codex runs PostToolUse for those too)."""
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode"):
            code = response.get(key)
            if isinstance(code, int) and not isinstance(code, bool):
                return code != 0
        return response.get("success") is False
    if isinstance(response, str):
        import re

        found = re.match(_EXIT_CODE, response)
        return found is not None and int(found.group(1)) != 0
    return False


def render(
    event: str, step: Step, response: dict[str, Any] | None, payload: Mapping[str, Any]
) -> Answer:
    if event == "PreToolUse" and response is not None:
        decision = response["decision"]
        if decision == "allow":
            return claude_format.pre_tool_answer(response)
        reason = reason_of(response)
        if decision == "require_approval":
            reason += " (approval needed, and Codex hooks cannot ask: denied)"
        elif decision in STOPPING:
            reason += f" ({decision}: every further call is denied)"
        return Answer(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            }
        )
    answer = claude_format.render(event, step, response, payload)
    if event == "Stop" and answer.stdout is None:
        answer.stdout = {}
    return answer


def fail(event: str | None, reason: str) -> Answer:
    text = f"caesar: {reason}"
    if event is None or event in ("PreToolUse", "UserPromptSubmit"):
        return Answer(stderr=text, exit_code=2)
    if event == "Stop":
        return Answer({}, stderr=f"{text} (event Stop not blocked)")
    return Answer(stderr=f"{text} (event {event} not blocked)")


# -- legacy notify --------------------------------------------------------------------------


def notify_step(payload: Mapping[str, Any]) -> Step:
    if payload.get("type") != "agent-turn-complete":
        raise PayloadError(f"notify payload of type {payload.get('type')!r} is not handled")
    messages = payload.get("input-messages")
    prompt = (
        "\n".join(item for item in messages if isinstance(item, str))
        if isinstance(messages, list)
        else ""
    )
    last = payload.get("last-assistant-message")
    return Step(
        "finalize",
        session=text_field(payload, "thread-id"),
        project=text_field(payload, "cwd"),
        turn=text_field(payload, "turn-id"),
        prompt=prompt,
        stop_reason="completed",
        message=last if isinstance(last, str) else None,
    )


def notify(argv_json: str, client: Client) -> int:
    """Fire-and-forget: Codex ignores the outcome, so failures are only reported on stderr."""

    def event_of(payload: dict[str, Any]) -> str:
        return "agent-turn-complete"

    def parse_notify(event: str, payload: dict[str, Any], env: Mapping[str, str]) -> Step:
        return notify_step(payload)

    def quiet(event: str, step: Step, response: dict[str, Any] | None, _: Any) -> Answer:
        if response is not None and response["decision"] == "error":
            return Answer(stderr=reason_of(response))
        return Answer()

    def warn(event: str | None, reason: str) -> Answer:
        return Answer(stderr=f"caesar: {reason}")

    adapter = Adapter(client, event_of, parse_notify, quiet, warn)
    try:
        payload = parse_payload(argv_json)
    except PayloadError as exc:
        return warn(None, str(exc)).emit(sys.stdout, sys.stderr)
    return drive(adapter, payload=payload)


def main(argv: list[str]) -> int:
    client, rest = options(argv, CLIENT)
    if rest and rest[-1].lstrip().startswith("{"):
        declared = any(arg.startswith("--integration-mode") for arg in argv)
        return notify(rest[-1], client if declared else NOTIFY_CLIENT)
    return drive(Adapter(client, claude_format.event_of, parse, render, fail))
