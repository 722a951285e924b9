"""Asking a generic agent its version never lets it act on the project."""

from __future__ import annotations

from pathlib import Path

from tests.runner.conftest import caesar, git, write_config


def test_a_script_agent_asked_its_version_works_in_a_scratch_directory(tmp_path: Path) -> None:
    """A script that ignores ``--version`` and does its work: what it writes lands nowhere in
    the project, and no task's variables reach it."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("print('hello')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    script = tmp_path / "busy.sh"
    script.write_text(
        '#!/bin/sh\necho changed >> app.py\necho "$CAESAR_REPORT_PATH" > seen.txt\n'
        "pwd > where.txt\necho busy 1.0\n"
    )
    script.chmod(0o755)
    write_config(repo, f'[[agent]]\nid = "busy"\nbin = "{script}"\nargs = "{{{{prompt}}}}"\n')
    before = (repo / "app.py").read_text()
    listed = caesar(repo, "agents", "list", env={"CAESAR_REPORT_PATH": str(tmp_path / "r")})
    assert listed.returncode == 0, listed.stderr
    assert "busy 1.0" in listed.stdout
    assert (repo / "app.py").read_text() == before
    assert not (repo / "seen.txt").exists() and not (repo / "where.txt").exists()
