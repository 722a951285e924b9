"""An agent's stdout nested deeper than any parser should recurse: each translator counts the
line as not understood and goes on, so the pump never dies and the agent never blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.agents.claude import ClaudeTranslator
from caesar_core.agents.codex import CodexTranslator
from caesar_core.agents.gemini import GeminiTranslator
from caesar_core.agents.opencode import OpencodeTranslator
from caesar_core.agents.stream import JsonStreamTranslator

DEEP = '{"type":"x","a":' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize(
    "make", [ClaudeTranslator, CodexTranslator, GeminiTranslator, OpencodeTranslator]
)
def test_a_deep_line_is_skipped_not_fatal(tmp_path: Path, make: type[JsonStreamTranslator]) -> None:
    translator = make(tmp_path)
    assert translator.feed(DEEP) == []
    assert translator.skipped == 1
    # The stream goes on: the next line is read as usual.
    translator.feed('{"type":"unknown-but-fine"}')
    assert translator.skipped in (1, 2)
