"""Real MCP sessions over stdio: the SDK's client starting ``caesar`` as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from tests.runner.conftest import caesar, caesar_env, repo

__all__ = ["repo"]


MODULE = (sys.executable, "-m", "caesar_core")
"""How the tests here start caesar: the installed code, as ``session`` starts its servers."""


def run_caesar(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m caesar_core ARGS`` to its end, its output captured."""
    return caesar(cwd, *args, env=env, timeout=timeout, stdin=stdin, command=MODULE)


@asynccontextmanager
async def session(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A connected client of ``python -m caesar_core ARGS`` (the installed code)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "caesar_core", *args],
        cwd=str(cwd),
        env=caesar_env(env),
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


def result_json(result: CallToolResult) -> Any:
    """A tool's structured content, checked against its text twin (both must agree)."""
    text = "".join(part.text for part in result.content if isinstance(part, TextContent))
    assert not result.is_error, text
    assert result.structured_content is not None
    assert json.loads(text) == result.structured_content
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    return "".join(part.text for part in result.content if isinstance(part, TextContent))
