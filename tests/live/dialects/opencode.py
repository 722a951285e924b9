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
title) and get a short plain answer. The wire format itself is ``dialects.chat``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.live.dialects.chat import REFUSED, ChatCompletions, ToolSet

PROVIDER = "caesar"
MODEL = "scripted"
TIER = "file"
"""opencode has no structured-output flag: the report comes back as the file."""
TOOLS = ToolSet(
    shell=lambda command: ("bash", {"command": command, "description": "Run the scripted command"}),
    write=lambda path, content: ("write", {"filePath": path, "content": content}),
)

DIALECTS = [ChatCompletions(TOOLS)]


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
