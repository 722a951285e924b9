"""The one exception family the CLI, the MCP servers and the TUI know how to show."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, one meaning each, so scripts can tell a refusal from a failure."""

    OK = 0
    FAILURE = 1
    """The work ran and did not succeed (an invalid document, a failed task)."""
    USAGE = 2
    """The request itself is wrong: bad arguments, bad configuration, an unknown id."""


class CaesarError(Exception):
    """A refusal a person can act on: what went wrong, and what to do about it.

    Every error that reaches a user carries a ``remedy`` so that no message is a dead end,
    and an exit code so the CLI never has to guess.
    """

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, reason: str, remedy: str = "", *, exit_code: ExitCode | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.remedy = remedy
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return f"{self.reason}\n  remedy: {self.remedy}" if self.remedy else self.reason


class UsageError(CaesarError):
    """The caller asked for something malformed; nothing was touched."""

    exit_code = ExitCode.USAGE
