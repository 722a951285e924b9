"""An agent client's own settings file that caesar edits (``mcp install``, ``hooks install``).

The new content is rendered from the old; a file that cannot be parsed is refused and left
untouched (it may hold a user's only copy of their other settings); the change is shown as a
unified diff and written atomically. Loads neither click nor pydantic.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import atomic_write, dump_json
from caesar_core.safefs import loads

QWEN_SETTINGS_VERSION = 4
"""The settings format (``$version``) Qwen Code 0.24.4 migrates a settings file to, rewriting
it, at its next start when the file has none: written with what caesar adds, so a project's
``.qwen/settings.json`` never shows up changed in a task's diff."""


@dataclass(frozen=True)
class Installation:
    client: str
    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, self.after.encode())


class ClientFileUnreadableError(CaesarError):
    exit_code = ExitCode.USAGE

    def __init__(self, path: Path, detail: str, *, kind: str, command: str) -> None:
        super().__init__(
            f"{path} exists but cannot be read as its client's {kind}: {detail}",
            f"fix the file (or move it aside), then run `{command}` again; nothing was written",
        )


def installation(
    client: str,
    path: Path,
    render: Callable[[str | None], str],
    unreadable: Callable[[Path, str], CaesarError],
) -> Installation:
    """What ``render`` makes of ``path`` (absent: ``None``); nothing is written here.

    ``render`` raises ``ValueError`` or ``TypeError`` for content it cannot read; that
    becomes ``unreadable(path, detail)``."""
    before = path.read_text() if path.exists() else None
    try:
        after = render(before)
    except (ValueError, TypeError) as error:
        raise unreadable(path, str(error)) from None
    return Installation(client, path, before, after)


def json_object(text: str | None) -> dict[str, Any]:
    """A JSON file's top-level object (empty for an absent or blank file)."""
    if text is None or not text.strip():
        return {}
    data = loads(text)  # depth-checked: a file nested 5,000 deep is refused, not a traceback
    if not isinstance(data, dict):
        raise ValueError("the top level is not a JSON object")
    return data


def json_text(data: dict[str, Any]) -> str:
    return dump_json(data).decode()
