"""GitHub Copilot CLI against the scripted server: its own-provider mode (BYOK), Chat Completions.

``COPILOT_PROVIDER_BASE_URL`` makes Copilot CLI talk to that provider instead of GitHub's
model routing (no GitHub sign-in then), ``COPILOT_MODEL`` names the model, and
``COPILOT_OFFLINE=true`` skips every other network access (authentication, telemetry, web
tools, the GitHub MCP server, updates). The provider type is ``openai`` with the default wire
API, ``completions``: ``POST <base>/chat/completions``, streamed (``dialects.chat``).

Steps map to Copilot's built-in tools: a shell command is ``bash {command, description}``, a
file is ``create {path (absolute), file_text}``; a ``CallTool`` keeps its name (MCP tools are
offered as ``<server>-<tool>``).
"""

from __future__ import annotations

from pathlib import Path

from tests.live.clis import CACHE
from tests.live.dialects.chat import ChatCompletions, ToolSet

MODEL = "scripted"
TIER = "file"
"""Copilot CLI has no structured-output flag: the report comes back as the file."""
TOOLS = ToolSet(
    shell=lambda command: ("bash", {"command": command, "description": "Run the scripted command"}),
    write=lambda path, content: ("create", {"path": path, "file_text": content}),
)
DIALECTS = [ChatCompletions(TOOLS)]


def environment(server_url: str, home: Path) -> dict[str, str]:
    """Copilot CLI pointed at ``server_url`` with nothing else reached, its state under the
    throwaway ``HOME``.

    The npm package is one executable that unpacks its JavaScript (235 MB) into
    ``$XDG_CACHE_HOME/copilot/pkg`` on its first start: the cache is kept beside the CLIs, so
    that happens once, not in every test's HOME."""
    return {
        "XDG_CACHE_HOME": str(CACHE / "copilot-xdg-cache"),
        "COPILOT_PROVIDER_BASE_URL": f"{server_url}/v1",
        "COPILOT_PROVIDER_API_KEY": "caesar-test-key",
        "COPILOT_MODEL": MODEL,
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
    }
