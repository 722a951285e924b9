"""Helpers for the git layer's tests: real repositories built with the git CLI.

The git CLI is the independent witness here: fixtures are made with it and results are
checked against what it reports, so the tests do not grade pygit2 with pygit2.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@caesar.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@caesar.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

TASK_ID = "t_0123456789abcdef0123456789abcdef"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def make_repo(path: Path, files: dict[str, str | bytes], *, commit: bool = True) -> Path:
    """A repository on branch ``main`` holding ``files``, committed unless told otherwise."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for rel, content in files.items():
        write(path, rel, content)
    if commit:
        commit_all(path, "initial")
    return path


def commit_all(cwd: Path, message: str) -> str:
    git(cwd, "add", "-A")
    git(cwd, "commit", "-q", "--allow-empty", "-m", message)
    return git(cwd, "rev-parse", "HEAD").strip()


def lines(count: int, tag: str = "line") -> str:
    """Text long enough for rename detection to have something to compare."""
    return "".join(f"{tag} {n} of a file that says something\n" for n in range(count))


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (``.git`` and ``.caesar`` aside) with its content."""
    found: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not (folder == str(root) and d in (".git", ".caesar"))]
        for name in names:
            if folder == str(root) and name == ".git":
                continue
            full = Path(folder, name)
            rel = full.relative_to(root).as_posix()
            found[rel] = os.readlink(full).encode() if full.is_symlink() else full.read_bytes()
    return found


def index_state(worktree: Path) -> tuple[bytes, int]:
    """The bytes and mtime of the index git uses for ``worktree``."""
    index = Path(
        git(worktree, "rev-parse", "--path-format=absolute", "--git-path", "index").strip()
    )
    return index.read_bytes(), index.stat().st_mtime_ns
