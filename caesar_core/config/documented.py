"""The documented configuration as each layer's file: ``caesar init`` and ``init --global``.

The text is ``defaults.DEFAULT_PROJECT_CONFIG`` (every key at its default, commented out);
the global layer's copy says that it is the global file.
"""

from __future__ import annotations

from caesar_core.config.defaults import DEFAULT_PROJECT_CONFIG

_PROJECT_IS_THIS = "(this file, meant to be committed)"
_GLOBAL_LINE_END = "(default ~/.config/caesar/config.toml)"


def global_config() -> str:
    """The file ``caesar init --global`` writes."""
    text = DEFAULT_PROJECT_CONFIG
    if _PROJECT_IS_THIS in text and _GLOBAL_LINE_END in text:
        text = text.replace(_PROJECT_IS_THIS, "(meant to be committed)", 1)
        return text.replace(_GLOBAL_LINE_END, _GLOBAL_LINE_END + ": this file", 1)
    return "## The global layer of caesar's configuration.\n" + text
