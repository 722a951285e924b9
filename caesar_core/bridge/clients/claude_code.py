"""``caesar hook claude-code``: Claude Code's hook payloads in, its hook answers out.

The format (events -> ops, decisions -> answers) is :mod:`.claude_format`, which Codex and
VS Code speak too; what is Claude Code's own is where the project is (``CLAUDE_PROJECT_DIR``)
and that VS Code runs this hook too, with its own payloads (handed to :mod:`.vscode`).
"""

from __future__ import annotations

import sys

from caesar_core.bridge.clients.claude_format import event_of, fail, parse_common, render
from caesar_core.bridge.clients.common import PayloadError, read_payload, text_field
from caesar_core.bridge.clients.driver import Adapter, drive, options
from caesar_core.bridge.clients.flow import Client, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLIENT = Client("claude-code", "claude-code")


def parse(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> Step:
    session = text_field(payload, "session_id", "sessionId")
    project = env.get("CLAUDE_PROJECT_DIR") or text_field(payload, "cwd")
    return parse_common(event, payload, session=session, project=project)


def is_vscode(payload: Mapping[str, Any]) -> bool:
    """VS Code reads Claude's settings files and runs our Claude hook with its own payload."""
    return "hookEventName" in payload and "hook_event_name" not in payload


def main(argv: list[str]) -> int:
    client, _ = options(argv, CLIENT)
    try:
        payload = read_payload(sys.stdin)
    except PayloadError as exc:
        return fail(None, str(exc)).emit(sys.stdout, sys.stderr)
    if is_vscode(payload):
        from caesar_core.bridge.clients import vscode  # only for VS Code's payloads

        return vscode.run(argv, payload)
    return drive(Adapter(client, event_of, parse, render, fail), payload=payload)


__all__ = ["CLIENT", "event_of", "fail", "is_vscode", "main", "parse", "render"]
