"""caesar_core.terminal: agent text shown with every control visible, paths quoted like git."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caesar_core.terminal import json_safe, json_safe_bytes, quote_path, safe_text

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


UNSAFE_SHOWN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
)


@pytest.mark.parametrize(
    "text", ["plain", "é — “quoted” … 検証 한국어 «ok» ©", "\u200d\u00a0 zero-width joiner, nbsp"]
)
def test_json_lines_without_anything_unsafe_pass_byte_for_byte(text: str) -> None:
    line = (
        '{"b": 1, "text": ' + json.dumps(text, ensure_ascii=False) + ', "at": "x.000Z"}'
    ).encode()
    both = line + b"\n" + line
    assert json_safe_bytes(both) is both


@pytest.mark.parametrize(
    "char", ["\x9b", "\x85", "\u061c", "\u200e", "\u2028", "\u202e", "\u2066", "\x7f"]
)
def test_json_lines_lose_what_a_terminal_acts_on_and_keep_their_values(char: str) -> None:
    line = json.dumps({"text": f"a{char}b", "n": 1}, ensure_ascii=False).encode()
    shown = json_safe_bytes(line + b"\n" + b'{"x":\r1,\t"y":2}')
    first, second = shown.split(b"\n")
    assert json.loads(first) == json.loads(line) and json.loads(second) == {"x": 1, "y": 2}
    assert not UNSAFE_SHOWN.search(shown.decode())


def test_a_surrogate_a_lenient_decoder_took_is_escaped() -> None:
    line = b'{"text":"\xed\xa0\x80"}'
    assert json_safe_bytes(line) == b'{"text":"\\ud800"}'


@given(st.lists(st.dictionaries(st.text(max_size=5), st.text(max_size=10), max_size=3), min_size=1))
def test_json_safe_bytes_never_changes_a_value(documents: list[dict[str, str]]) -> None:
    data = b"\n".join(
        json.dumps(d, ensure_ascii=False).encode("utf-8", "surrogatepass") for d in documents
    )
    shown = json_safe_bytes(data)
    decoded = [json.loads(line) for line in shown.split(b"\n")]
    assert decoded == [
        json.loads(line.decode("utf-8", "surrogatepass")) for line in data.split(b"\n")
    ]
    assert not UNSAFE_SHOWN.search(shown.decode())


def test_what_the_shortcuts_pass_no_pattern_would_change() -> None:
    """``safe_text`` and ``quote_path`` return printable text as it is, ``json_safe`` ASCII
    text without DEL, without compiling a pattern: no character a pattern escapes is
    printable (or, for JSON, ASCII but DEL)."""
    from caesar_core import terminal

    sources = [terminal._UNSAFE, terminal._UNSAFE_IN_LINES, terminal._UNSAFE_IN_PATH]
    everything = "".join(map(chr, range(0x110000)))
    for source in sources:
        for char in re.findall(source, everything):
            assert not char.isprintable() or char in '"\\', hex(ord(char))
    unsafe_in_json = re.findall(terminal._UNSAFE_IN_JSON, everything)
    assert all(not char.isascii() or char == "\x7f" for char in unsafe_in_json)


def test_plain_text_compiles_no_pattern() -> None:
    import subprocess
    import sys

    probe = (
        "from caesar_core import terminal\n"
        "terminal.safe_text('t_1  demo  succeeded  task 0 é ✓')\n"
        "terminal.quote_path('src/a b.py')\n"
        'terminal.json_safe(\'[\\n  {"id": "t_1"}\\n]\')\n'
        "print(len(terminal._COMPILED))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "0\n"
