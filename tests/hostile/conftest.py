"""Agents as an attacker writes them: ten-line shell scripts declared as ``[[agent]]`` and run
through the real ``caesar`` executable. Each test states what must hold afterwards: the outside
target byte-identical, the command back within a bound, the other tasks unaffected, the
outcome shown caesar's own, no raw secret in any file."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from tests.runner.conftest import caesar, git, repo, run_json, write_config

__all__ = ["caesar", "digest", "git", "hostile_agent", "outside", "repo", "run_json"]

BOUND_S = 60
"""A command facing a hostile task returns within this many seconds or the test fails."""


def hostile_agent(root: Path, name: str, body: str) -> None:
    """Declare a shell agent ``name`` running ``body`` (a ``sh`` script, dedented); give a run
    its deadline with ``--timeout``."""
    path = root.parent / f"{name}.sh"
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body).lstrip("\n"))
    path.chmod(0o755)
    config = root / ".caesar" / "config.toml"
    previous = config.read_text() if config.exists() else ""
    write_config(
        root,
        previous + f'[[agent]]\nid = "{name}"\nbin = "{path}"\nargs = "{{{{prompt}}}}"\n',
    )


def digest(path: Path) -> str:
    """What a file outside the project holds, to show it is byte-identical afterwards."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the project that no agent may make caesar write or show."""
    target = tmp_path / "outside" / "bashrc"
    target.parent.mkdir()
    target.write_text("# the user's own file\nexport SECRET=do-not-leak\n")
    return target


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A task directory for the safe-file tests: caesar's, trusted as a path."""
    task = tmp_path / "task"
    task.mkdir()
    return task


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the task directory that nothing may read or write through a link."""
    target = tmp_path / "outside"
    target.write_text("secret")
    return target
