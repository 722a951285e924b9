"""Claude Code adapter (stub; being written)."""

from __future__ import annotations

from pathlib import Path

from caesar_core.agents.base import Capabilities, Invocation, Launch, ReportTier, default_tier
from caesar_core.agents.stream import JsonStreamTranslator
from caesar_core.protocol.event import EventPayload


class ClaudeTranslator(JsonStreamTranslator):
    agent = "claude"

    def handle(self, obj: dict[str, object]) -> list[EventPayload]:
        return self.unknown()


class ClaudeAdapter:
    id = "claude"
    display_name = "Claude Code"
    bin = "claude"
    min_version: str | None = None
    capabilities = Capabilities(json_events=True)

    def launch(self, invocation: Invocation) -> Launch:
        return Launch([self.bin, invocation.prompt], Path(invocation.task.workspace))

    def translator(self, invocation: Invocation) -> ClaudeTranslator:
        return ClaudeTranslator(invocation.task.workspace)

    def preferred_tier(self, channel: bool) -> ReportTier:
        return default_tier(self.capabilities, channel)
