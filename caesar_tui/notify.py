"""Desktop notifications through the terminal: the escape sequence, and its way through tmux.

Terminals raise a desktop notification on OSC 9 (iTerm2, WezTerm, kitty, Ghostty, Windows
Terminal) or OSC 777 (VTE terminals such as GNOME Terminal, foot, urxvt). Inside tmux the
sequence is wrapped in tmux's DCS passthrough so it reaches the outer terminal (tmux needs
``set -g allow-passthrough on``). What an agent wrote ends up in the text, so every control
character is removed first: a notification must not become a way to drive the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping

from caesar_core.humanize import clip, one_line
from caesar_core.terminal import safe_text

TEXT_LIMIT = 200
"""Characters of a notification's body; desktops show a line or two."""


def safe(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` on one line, its controls shown escaped (``caesar_core.terminal``), at most
    ``limit`` characters."""
    return clip(safe_text(one_line(text)), limit)


def speaks_osc777(env: Mapping[str, str]) -> bool:
    """Whether the terminal (as its environment tells) wants OSC 777 rather than OSC 9."""
    term = env.get("TERM", "")
    return bool(env.get("VTE_VERSION")) or term.startswith(("rxvt", "foot"))


def notification(title: str, body: str, env: Mapping[str, str]) -> str:
    """The escape sequence asking the terminal for a desktop notification."""
    title, body = safe(title, 60), safe(body)
    if speaks_osc777(env):
        sequence = f"\x1b]777;notify;{title.replace(';', ',')};{body}\x07"
    else:
        # OSC 9 takes one text; starting with a word keeps ConEmu from reading "9;4;..." as
        # a progress report.
        sequence = f"\x1b]9;{title}: {body}\x07"
    return passthrough(sequence, env)


def passthrough(sequence: str, env: Mapping[str, str]) -> str:
    """``sequence`` wrapped for tmux's DCS passthrough when running inside tmux."""
    if not env.get("TMUX"):
        return sequence
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


__all__ = ["TEXT_LIMIT", "notification", "passthrough", "safe", "speaks_osc777"]
