"""caesar_core.terminal: agent text shown with every control visible, paths quoted like git."""

from __future__ import annotations

import json

import pytest

from caesar_core.terminal import json_safe, quote_path, safe_text

OSC_TITLE = "\x1b]0;pwned\x07"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (OSC_TITLE, "\\x1b]0;pwned\\x07"),
        ("done\rFORGED", "done\\rFORGED"),
        ("ok\x08\x08no", "ok\\x08\\x08no"),
        ("line\nforged", "line\\nforged"),
        ("a\x00b\x7fc", "a\\x00b\\x7fc"),
        ("csi\x9b2J", "csi\\x9b2J"),
        ("abc\u202edcba", "abc\\u202edcba"),
        ("iso\u2066x\u2069", "iso\\u2066x\\u2069"),
        ("sep\u2028x", "sep\\u2028x"),
        ("byte\udcff", "byte\\xff"),
        ("plain é ✓ 日本", "plain é ✓ 日本"),
    ],
)
def test_safe_text_shows_every_control(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown


def test_blocks_keep_their_lines_but_not_their_controls() -> None:
    assert safe_text("one\n\ttwo\r\x1b[2J", lines=True) == "one\n\ttwo\\r\\x1b[2J"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("src/app.py", "src/app.py"),
        ("with space é.txt", "with space é.txt"),
        ("fake\n  a.txt", '"fake\\n  a.txt"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        (f"t{OSC_TITLE}.txt", '"t\\x1b]0;pwned\\x07.txt"'),
    ],
)
def test_quote_path_quotes_only_unusual_paths(raw: str, shown: str) -> None:
    assert quote_path(raw) == shown


def test_json_safe_keeps_the_exact_value() -> None:
    value = {"text": f"{OSC_TITLE}\x85\u202e\udcff\x7f é", "n": 1}
    serialized = json_safe(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(serialized) == value
    assert not any(0x7F <= ord(c) <= 0x9F or c in "\x1b\x07\u202e" for c in serialized)
    assert "é" in serialized
