"""What a terminal would receive from ``caesar``: its output as bytes, nothing translated.

``subprocess``'s text mode turns a CR into a newline, which would hide the very character
these tests look for; here both streams are decoded from bytes (bad UTF-8 kept escaped).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.runner.conftest import CAESAR, caesar_env

ALLOWED = {"\n"}
"""The only control character caesar itself writes to a terminal: the end of a line."""


@dataclass(frozen=True)
class Screen:
    code: int
    out: str
    err: str

    @property
    def both(self) -> str:
        return self.out + self.err


def on_screen(cwd: Path, *args: str, timeout: float = 120) -> Screen:
    done = subprocess.run(
        [CAESAR, *args],
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        env=caesar_env(),
        check=False,
    )
    return Screen(done.returncode, _decode(done.stdout), _decode(done.stderr))


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def unsafe(text: str) -> list[str]:
    """Every character of ``text`` a terminal would act on rather than show."""
    return [
        char
        for char in text
        if char not in ALLOWED
        and (
            ord(char) < 0x20
            or 0x7F <= ord(char) <= 0x9F
            or char in "\u061c\u200e\u200f\u2028\u2029"
            or 0x202A <= ord(char) <= 0x202E
            or 0x2066 <= ord(char) <= 0x2069
            or 0xD800 <= ord(char) <= 0xDFFF
        )
    ]


def assert_safe(screen: Screen) -> None:
    assert "Traceback" not in screen.err, screen.err
    assert unsafe(screen.out) == [], repr(screen.out)
    assert unsafe(screen.err) == [], repr(screen.err)
