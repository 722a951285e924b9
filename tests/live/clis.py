"""Where the real agent CLIs are: the project-local npm cache that ``make clis`` fills.

A live test asks for its CLI by name; when it is not installed (no npm, no registry) the
test is skipped with that reason, which ``make test`` prints, and the replay tests, which
need no CLI, still run.
"""

from __future__ import annotations

import json
import os
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
    "copilot": "@github/copilot",
    "qwen": "@qwen-code/qwen-code",
}
"""The executable each npm package installs."""


def missing(name: str) -> str | None:
    """Why ``name`` cannot run here, or None when ``make clis`` installed it."""
    path = BIN / name
    if path.exists() and os.access(path, os.X_OK):
        return None
    return (
        f"{name} is not installed in {CACHE} (run `make clis`; it needs npm and the npm "
        f"registry for {PACKAGES[name]}@{PINNED[PACKAGES[name]]})"
    )


def requires(name: str) -> pytest.MarkDecorator:
    """Mark a live test module: skipped, with the reason, only where the CLI is missing."""
    reason = missing(name)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def cli_path(name: str) -> Path:
    """The installed executable (a test asking for it is marked with ``requires``)."""
    reason = missing(name)
    if reason is not None:
        raise RuntimeError(reason)
    return BIN / name


def cli_version(name: str) -> str:
    """The pinned version, which is what ``make clis`` installs."""
    return PINNED[PACKAGES[name]]


def path_with_clis(env: dict[str, str] | None = None) -> str:
    """PATH with the CLIs first, so ``caesar run --agent codex`` finds ours."""
    base = (env or os.environ).get("PATH", "")
    return f"{BIN}{os.pathsep}{base}"
