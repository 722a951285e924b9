"""Per-task configuration files an agent CLI reads, laid down for one run only.

Some CLIs take their MCP servers only from a file (opencode reads ``opencode.json`` in its
workspace). The file may be the user's own: what was there is kept aside and put back after
the run, byte for byte, or the file is removed when there was none, so the task's diff
never shows caesar's plumbing and the user's configuration is never lost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

from caesar_core.fs import atomic_write


@contextlib.contextmanager
def injected(files: Mapping[Path, str]) -> Iterator[None]:
    originals: dict[Path, bytes | None] = {}
    try:
        for path, text in files.items():
            originals[path] = path.read_bytes() if path.is_file() else None
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text.encode())
        yield
    finally:
        for path, before in originals.items():
            if before is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, before)
