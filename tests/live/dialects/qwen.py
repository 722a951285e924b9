"""Qwen Code against the scripted server: its OpenAI-compatible provider, Chat Completions.

Qwen Code's ``openai`` auth type reads ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and
``OPENAI_MODEL`` and speaks ``POST <base>/chat/completions``, streamed (``dialects.chat``).

Steps map to its built-in tools (Gemini CLI's, which it forked): a shell command is
``run_shell_command {command, description}``, a file is ``write_file {file_path (absolute),
content}``; a ``CallTool`` keeps its name (MCP tools are offered as ``mcp__<server>__<tool>``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.live.dialects.chat import ChatCompletions, ToolSet

MODEL = "scripted"
TIER = "file"
TOOLS = ToolSet(
    shell=lambda command: (
        "run_shell_command",
        {"command": command, "description": "Run the scripted command"},
    ),
    write=lambda path, content: ("write_file", {"file_path": path, "content": content}),
)
MAIN_AGENT = "You are Qwen Code"


def side(body: dict[str, Any]) -> bool:
    """A side request: no tools, or a helper agent's (whose system prompt is not the main
    agent's: the memory pass after a turn offers tools too)."""
    if not body.get("tools"):
        return True
    messages = body.get("messages") or []
    system = messages[0] if messages and isinstance(messages[0], dict) else {}
    content = system.get("content") if system.get("role") == "system" else None
    text = content if isinstance(content, str) else json.dumps(content)
    return MAIN_AGENT not in text[:200]


DIALECTS = [ChatCompletions(TOOLS, side)]


def environment(server_url: str, home: Path) -> dict[str, str]:
    """Qwen Code pointed at ``server_url``; its user settings under the throwaway ``HOME``
    turn off what would phone home or run helper passes."""
    config = home / ".qwen"
    config.mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "openai"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "disableAutoUpdate": True},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    }
    (config / "settings.json").write_text(json.dumps(settings, indent=2))
    return {
        "OPENAI_BASE_URL": f"{server_url}/v1",
        "OPENAI_API_KEY": "caesar-test-key",
        "OPENAI_MODEL": MODEL,
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }
