"""``caesar bridge``: the lifecycle contract for agents driven through their hooks.

An agent's client (Claude Code, Codex, Gemini CLI, VS Code) calls the bridge on each step of a
turn: begin, pre-tool, post-tool, telemetry, finalize, abort. The bridge admits prompts, gates
tool calls by policy, records evidence that holds no raw data, and finalizes a trace with a
receipt; it never calls a model. :func:`caesar_core.bridge.core.handle` is the whole of it.

This package is on the hot path (once per tool call): its modules import the stdlib only,
never click, pydantic, textual, rich, pygit2 or mcp; only begin loads the configuration
(pydantic) and only ``caesar hook`` with a task directory writes events through pydantic.
"""
