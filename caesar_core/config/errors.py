"""Configuration errors that point at the line to fix.

A config file is edited by hand, so an error is only useful if it says where: every problem
reads ``<file>:<line>:<col>: <dotted.key>: <problem>``, the shape editors and terminals turn
into a jump to the spot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from caesar_core.errors import CaesarError, ExitCode

DOCUMENTED = (
    "every key and its default is documented in the commented config that `caesar init` "
    "writes to .caesar/config.toml"
)


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong in one configuration file."""

    path: Path | None
    """The file where the offending key was written; None for built-in defaults."""
    line: int
    col: int
    key: str
    """The dotted key as a person reads it: ``policy.max_parallel``, ``agent "jq".args``."""
    message: str
    hint: str = ""
    """What to do about this problem in particular (a likely spelling, the known keys)."""

    def __str__(self) -> str:
        where = f"{display_path(self.path)}:{self.line}:{self.col}"
        key = f"{self.key}: " if self.key else ""
        return f"{where}: {key}{self.message}"


class ConfigError(CaesarError):
    """A configuration file cannot be used as written; nothing was run.

    Configuration is part of the request, so the exit code is the usage one (2), never the
    failure one: a script can tell "fix your config" from "the work failed".
    """

    exit_code = ExitCode.USAGE

    def __init__(self, problems: Sequence[ConfigProblem], remedy: str | None = None) -> None:
        if not problems:
            raise ValueError("a ConfigError needs at least one problem")
        self.problems = list(problems)
        first = self.problems[0]
        files = sorted({display_path(p.path) for p in self.problems})
        hints = list(dict.fromkeys(p.hint for p in self.problems if p.hint))
        default_remedy = f"edit {', '.join(files)}" + (f" ({'; '.join(hints)})" if hints else "")
        super().__init__(
            "\n".join(str(p) for p in self.problems),
            remedy or f"{default_remedy}; {DOCUMENTED}",
        )
        self.path = first.path
        self.line = first.line
        self.col = first.col
        self.key = first.key


def display_path(path: Path | None) -> str:
    """``path`` relative to the working directory when under it (what editors resolve)."""
    if path is None:
        return "<caesar defaults>"
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # not under the cwd, or the cwd is gone
        return str(path)
