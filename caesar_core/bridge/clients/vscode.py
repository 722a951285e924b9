"""``caesar hook vscode``: VS Code agent hooks (Preview), a dialect of Claude Code's.

Differences from Claude Code's format (:mod:`.claude_format`): the common fields are camelCase
(``sessionId``, ``hookEventName``) while the tool fields stay snake_case; tool names are VS Code's
(``runTerminalCommand``, ``editFiles``...), passed to the bridge as they are; matchers are
ignored, so every hook runs for every tool (the mapping never relies on a matcher); only eight
events exist (no PostToolUseFailure, StopFailure or SessionEnd). VS Code also runs the hooks of
``.claude/settings.json``: ``caesar hook claude-code`` recognises its payloads and lands here.

Rendering: PreToolUse as Claude (``ask`` exists; deny > ask > allow; ``continue: false`` for
halt); a blocked prompt is ``continue: false`` with ``stopReason`` (plus ``decision: block``);
Stop's block is written in both documented shapes, top-level and inside
``hookSpecificOutput``, until VS Code settles on one.
"""

from __future__ import annotations

import os

from caesar_core.bridge.clients import claude_format
from caesar_core.bridge.clients.common import STOPPING, Answer, reason_of, text_field
from caesar_core.bridge.clients.driver import Adapter, drive, options
from caesar_core.bridge.clients.flow import Client, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("vscode", "vscode")


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    return claude_format.parse_common(
        event,
        payload,
        session=text_field(payload, "sessionId", "session_id"),
        project=text_field(payload, "cwd"),
    )


def render(
    event: str, step: Step, response: dict[str, Any] | None, payload: Mapping[str, Any]
) -> Answer:
    if response is None:
        return Answer()
    decision = response["decision"]
    reason = reason_of(response)
    if event == "UserPromptSubmit" and decision in ("block", "deny", "error", *STOPPING):
        return Answer(
            {"continue": False, "stopReason": reason, "decision": "block", "reason": reason}
        )
    if event == "Stop" and decision == "block" and payload.get("stop_hook_active") is not True:
        specific = {"hookEventName": "Stop", "decision": "block", "reason": reason}
        return Answer({"decision": "block", "reason": reason, "hookSpecificOutput": specific})
    return claude_format.render(event, step, response, payload)


def fail(event: str | None, reason: str) -> Answer:
    if event == "UserPromptSubmit":
        text = f"caesar: {reason}"
        output = {"continue": False, "stopReason": text, "decision": "block", "reason": text}
        return Answer(output, stderr=text, exit_code=2)
    return claude_format.fail(event, reason)


def event_of(payload: Mapping[str, Any]) -> str:
    return claude_format.event_of(payload)


def run(argv: list[str], payload: dict[str, Any] | None = None) -> int:
    client, _ = options(argv, CLIENT)
    adapter = Adapter(client, event_of, parse, render, fail)
    return drive(adapter, env=dict(os.environ), payload=payload)


def main(argv: list[str]) -> int:
    return run(argv)
