"""Client hook adapters: ``caesar hook claude-code|codex|gemini|vscode|copilot|qwen``.

Each module reads its client's native hook payload on stdin, turns it into one lifecycle
request (:mod:`caesar_core.bridge.clients.flow`), calls the bridge in-process and answers in the
client's own format. They run once per tool call, so they import neither click nor pydantic
(pydantic only when a task's event log must be appended to).
"""
