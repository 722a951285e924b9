"""Where the real agent CLIs are: the project-local npm cache that ``make clis`` fills.

A live test asks for its CLI by name; when it is not installed (no npm, no registry) the
test is skipped with that reason, which ``make test`` prints, and the replay tests, which
need no CLI, still run.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
CACHE = PROJECT / ".cache" / "clis"
BIN = CACHE / "node_modules" / ".bin"
PINNED: dict[str, str] = json.loads((PROJECT / "tests" / "clis" / "package.json").read_text())[
    "dependencies"
]
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "opencode": "opencode-ai",
}
"""The executable each npm package installs."""


def cli_path(name: str) -> Path:
    """The installed executable, or a skip that says why it is not there."""
    path = BIN / name
    if not (path.exists() and os.access(path, os.X_OK)):
        pytest.skip(
            f"{name} is not installed in {CACHE} (run `make clis`; it needs npm and the npm "
            f"registry for {PACKAGES[name]}@{PINNED[PACKAGES[name]]})"
        )
    return path


def cli_version(name: str) -> str:
    """The pinned version, which is what ``make clis`` installs."""
    return PINNED[PACKAGES[name]]


def path_with_clis(env: dict[str, str] | None = None) -> str:
    """PATH with the CLIs first, so ``caesar run --agent codex`` finds ours."""
    base = (env or os.environ).get("PATH", "")
    return f"{BIN}{os.pathsep}{base}"


def installed_version(name: str) -> str:
    done = subprocess.run(
        [str(cli_path(name)), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    return done.stdout.strip()
