"""Real repositories and the real ``caesar`` executable, as a user would run them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

POLL_S = 0.05
"""How often wait_for looks again: a condition poll with a deadline, never a fixed wait."""
CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit and caesar's directories ignored."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    (root / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def caesar_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without a parent task, plus an isolated config home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    env.update(GIT_ENV)
    env["CAESAR_DEMO_DELAY"] = "0"
    env.setdefault(
        "XDG_CONFIG_HOME", str(Path(os.environ.get("TMPDIR", "/tmp")) / "caesar-no-global")
    )
    env.update(extra or {})
    return env


def caesar(
    cwd: Path | None,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    stdin: str | None = None,
    command: Sequence[str] = (CAESAR,),
) -> subprocess.CompletedProcess[str]:
    """``caesar ARGS`` (or ``command ARGS``) to its end, its output captured."""
    return subprocess.run(
        [*command, *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=caesar_env(env),
        check=False,
    )


def run_json(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    result = caesar(cwd, "run", *args, "--json", env=env)
    assert result.stdout, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    data["_exit"] = result.returncode
    data["_stderr"] = result.stderr
    return data


def context(script: str, **more: object) -> str:
    return json.dumps({"script": script, **more})


def wait_for(condition: Callable[[], object], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``condition`` until it is truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(POLL_S)


def write_config(root: Path, text: str) -> None:
    (root / ".caesar").mkdir(exist_ok=True)
    (root / ".caesar" / "config.toml").write_text(text)
