"""What the live hook tests share: a project with data to delete, the client's hooks installed
and committed, a rule refusing the deletion, and the check that no secret was kept.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit

from tests.runner.conftest import caesar, git

CANARY = "AKIA" + "QWERTYUIOPASDFGH"
"""A cloud key in the command: the bridge may keep a redacted summary, never the key."""


def rule(tool: str, match: str, reason: str) -> str:
    """A project configuration with one ``[[bridge.rule]]`` denying what matches."""
    entry = {"tool": tool, "match": match, "decision": "deny", "reason": reason}
    return tomlkit.dumps({"bridge": {"rule": [entry]}})


def hooked_project(repo: Path, client: str, rules: str) -> None:
    """Data to delete, the installed hooks committed (the task's worktree is made from HEAD),
    and the rule in the project's configuration."""
    (repo / "keep").mkdir()
    (repo / "keep" / "data.txt").write_text("precious\n")
    installed = caesar(repo, "hooks", "install", client, "--root", str(repo))
    assert installed.returncode == 0, installed.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks and data")
    (repo / ".caesar").mkdir(exist_ok=True)
    (repo / ".caesar" / "config.toml").write_text(rules)


def assert_no_secret_kept(state: Path, task_dir: Path) -> None:
    """The bridge keeps no secret, and the events show the command redacted (raw.log is the
    CLI's own output, kept as it came)."""
    for path in [*state.rglob("*"), task_dir / "events.jsonl"]:
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path
    assert "[REDACTED:aws_access_key]" in (task_dir / "events.jsonl").read_text()
