"""Text an agent controls, made safe to print: no control character reaches a terminal as itself.

Agents write event text, report summaries and findings, file names, ``--version`` output. Printed
raw, ``ESC ] 0;title BEL`` retitles the window, ``ESC [ 2J`` clears it, CR and backspace
overwrite what caesar printed, a newline in a file name forges a line of caesar's own output,
and bidi overrides make text read in another order than it runs. One scheme everywhere: such a
character is shown as a C-style escape -- ``\\n`` ``\\r`` ``\\t`` by name, ``\\xNN`` for the other
C0 controls, DEL, C1 controls and bytes that were not UTF-8 (surrogate escapes), ``\\uNNNN`` for
bidi controls and the line and paragraph separators. Paths are also quoted the way git quotes an
unusual path: in double quotes, with ``"`` and ``\\`` escaped.

JSON output keeps its exact values: :func:`json_safe` only rewrites such characters as JSON's own
``\\uNNNN`` escapes, which decode to the same string.

Standard library only: the git layer and the bridge's neighbours may import it.
"""

from __future__ import annotations

import re

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_INVISIBLE = "\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = f"[\t\n{_CONTROLS}{_INVISIBLE}]"
_UNSAFE_IN_LINES = f"[{_CONTROLS}{_INVISIBLE}]"
"""Blocks of text (a report's details, raw output) keep their newlines and tabs."""
_UNSAFE_IN_PATH = f'[\t\n"\\\\{_CONTROLS}{_INVISIBLE}]'
_UNSAFE_IN_JSON = f"[\x7f-\x9f{_INVISIBLE}]"
"""What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal would act on."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
_COMPILED: dict[str, re.Pattern[str]] = {}


def _pattern(source: str) -> re.Pattern[str]:
    """One of the patterns above, compiled on first use: each costs half a millisecond (a
    class of characters beyond Latin-1), and most processes need one or none. Every unsafe
    character is one ``str.isprintable`` refuses (a control, a format character, a separator,
    a surrogate), and every one :data:`_UNSAFE_IN_JSON` names is DEL or beyond ASCII: text
    that is printable (ASCII without DEL, for JSON) is answered without any pattern."""
    compiled = _COMPILED.get(source)
    if compiled is None:
        compiled = _COMPILED[source] = re.compile(source)
    return compiled


def escape_char(char: str) -> str:
    """The visible form of one unsafe character."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _escape(match: re.Match[str]) -> str:
    return escape_char(match.group())


def safe_text(text: str, *, lines: bool = False) -> str:
    """``text`` with every control, bidi and separator character shown as an escape.

    ``lines`` keeps newlines and tabs, for blocks shown as they were written.
    """
    if text.isprintable():
        return text
    pattern = _pattern(_UNSAFE_IN_LINES if lines else _UNSAFE)
    return pattern.sub(_escape, text) if pattern.search(text) else text


def quote_path(path: str) -> str:
    """``path`` as it is when ordinary, else in double quotes with C escapes (as git does).

    ``fake\\n  a.txt`` is shown ``"fake\\n  a.txt"``: never as a second line naming ``a.txt``.
    """
    if path.isprintable() and '"' not in path and "\\" not in path:
        return path
    pattern = _pattern(_UNSAFE_IN_PATH)
    if not pattern.search(path):
        return path
    return '"' + pattern.sub(_escape, path) + '"'


_C0_BYTES = bytes([*range(0x0A), *range(0x0B, 0x20), 0x7F])
"""The C0 controls but the newline, and DEL: in valid JSON only a CR or a tab, between tokens."""
_UNSAFE_AFTER_LEAD: dict[int, re.Pattern[bytes]] = {
    0xC2: re.compile(rb"\xc2[\x80-\x9f]"),  # C1 controls
    0xD8: re.compile(rb"\xd8\x9c"),  # U+061C
    0xE2: re.compile(rb"\xe2(?:\x80[\x8e\x8f\xa8-\xae]|\x81[\xa6-\xa9])"),  # bidi, separators
    0xED: re.compile(rb"\xed[\xa0-\xbf]"),  # surrogates (a lenient JSON decoder takes them)
}
"""The UTF-8 of what :data:`_UNSAFE_IN_JSON` names, by lead byte: each pattern starts with a
literal, so its search runs at memchr speed."""
_HARMLESS_BYTES = bytes(b for b in range(256) if b not in _C0_BYTES and b not in _UNSAFE_AFTER_LEAD)


def json_safe_bytes(lines: bytes) -> bytes:
    """Valid JSON lines (joined by ``\\n``) as they are, byte for byte, unless a terminal would
    act on some of their characters: then those are rewritten as JSON escapes (a CR or a tab
    between tokens as a space), and the documents still decode to exactly the same values.

    The common case copies nothing and costs a few passes at memory speed: the bytes that
    cannot start anything unsafe are deleted (``bytes.translate``); what is left, if anything,
    says which sequences to look for.
    """
    suspects = lines.translate(None, _HARMLESS_BYTES)
    if not suspects:
        return lines
    unsafe = bool(suspects.translate(None, bytes(_UNSAFE_AFTER_LEAD))) or any(
        _UNSAFE_AFTER_LEAD[lead].search(lines) for lead in set(suspects)
    )
    if not unsafe:
        return lines
    text = lines.decode("utf-8", errors="surrogatepass")
    text = text.replace("\r", " ").replace("\t", " ")  # raw, they can only be whitespace
    return json_safe(text).encode("utf-8")


def json_safe(serialized: str) -> str:
    """Serialized JSON with the characters a terminal acts on written as ``\\uNNNN``.

    They can only occur inside strings, so the document decodes to exactly the same value.
    """
    if serialized.isascii() and "\x7f" not in serialized:
        return serialized
    pattern = _pattern(_UNSAFE_IN_JSON)
    if not pattern.search(serialized):
        return serialized
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", serialized)
