"""The README's table of what each agent shows live is measured from the captures."""

from __future__ import annotations

from pathlib import Path

from tests.agents.stream_table import BEGIN, END, ORDER, captures, measure, table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_capture_pairs_its_tool_calls_and_is_fully_understood() -> None:
    found = captures()
    assert {p.stem.split("-")[0] for p in found} == set(ORDER)
    for capture in found:
        shown = measure(capture)
        assert shown.paired, capture.name
        assert shown.files >= 1, capture.name
        assert shown.messages >= 1, capture.name
        # Copilot CLI's stream has no token counts: its adapter reads them from the file
        # --usage-output-file writes (tests/agents/test_copilot_translator.py, live tests).
        assert shown.tokens == (shown.agent != "copilot"), capture.name
        assert shown.skipped == 0, capture.name


def test_the_readme_shows_the_measured_table() -> None:
    text = README.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == table(), "run: python -m tests.agents.stream_table"
