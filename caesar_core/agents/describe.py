"""An agent's capabilities in words: short marks for a table, a sentence each for
``doctor --verbose``; and the listing of a project's agents (``agents list``, ``doctor``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def agent_rows(root: Path) -> list[dict[str, Any]]:
    """``listing.agent_rows`` of the project's effective configuration."""
    from caesar_core.agents.listing import agent_rows as rows
    from caesar_core.config import load_config

    return rows(load_config(root))


def short_capabilities(caps: dict[str, Any]) -> str:
    marks = [
        ("events", caps["json_events"]),
        ("schema", caps["output_schema"]),
        ("final-file", caps["final_message_file"]),
        ("read-only", caps["native_read_only"]),
        ("model", caps["model"]),
        ("resume", caps["resume"]),
    ]
    shown = [name for name, on in marks if on] + [f"net:{caps['network']}"]
    if caps["mcp"] != "none":
        shown.append(f"mcp:{caps['mcp']}")
    return " ".join(shown)


_NETWORK = {
    "toggle": "caesar can cut its network for a task (network off)",
    "write-only": "its network is open only for write tasks (read-only ones are cut)",
    "open": "its network stays open: caesar cannot cut it",
    "unknown": "whether caesar can cut its network is not known",
}
_MCP = {
    "flag": "a task's MCP return channel is passed on its command line",
    "environment": "a task's MCP return channel is passed in its environment",
    "settings": "a task's MCP return channel goes in a settings file laid down for the run",
    "none": "it cannot be given a task's MCP return channel",
}


def spelled_capabilities(caps: dict[str, Any]) -> list[str]:
    """What an agent can do, a sentence each (``doctor --verbose``)."""
    said = [
        (caps["json_events"], "streams JSON events: its tool calls and messages are shown live"),
        (caps["output_schema"], "returns its report as native structured output (a schema)"),
        (caps["final_message_file"], "writes its final message to a file caesar reads"),
        (caps["native_read_only"], "enforces read-only tasks itself"),
        (caps["model"], "can be told which model to use"),
        (caps["resume"], "resumes its own session in a follow-up turn (caesar continue)"),
    ]
    lines = [text for on, text in said if on]
    lines.append(_NETWORK.get(caps["network"], caps["network"]))
    lines.append(_MCP.get(caps["mcp"], caps["mcp"]))
    return lines
