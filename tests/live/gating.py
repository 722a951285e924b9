"""What the live hook tests share: a project with data to delete, the client's hooks installed
and committed, a rule refusing the deletion, and the check that no secret was kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tomlkit

from tests.live.modelserver import Say, Script, Shell, WriteFile
from tests.live.scenario import SHELL_COMMAND, SHELL_FILE, LiveRun, report
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


def deletion_script() -> Script:
    """The deletion the rule refuses (with the canary in it), a command it allows, the report
    by file."""
    return Script(
        [
            Shell(f"rm -rf keep  # {CANARY}"),
            Shell(SHELL_COMMAND),
            WriteFile("{report_path}", json.dumps(report())),
            Say("Done."),
        ]
    )


def assert_denied_then_allowed(run: LiveRun) -> None:
    """The run ended well, the deletion was refused before it ran and the next command ran."""
    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-30:])
    workspace = Path(run.outcome["workspace"])
    assert (workspace / "keep" / "data.txt").read_text() == "precious\n"  # denied before it ran
    assert (workspace / SHELL_FILE).exists()  # the next command was allowed


def assert_each_call_once(run: LiveRun) -> None:
    """Every call in the events once, start and end: the hooks added no duplicate."""
    calls = [e for e in run.events() if e["type"] == "tool_use"]
    assert len({c["id"] for c in calls}) * 2 == len(calls)


def the_receipt(state: Path) -> dict[str, Any]:
    """The one receipt the turn left in the bridge's local spool."""
    receipts = list((state / "bridge" / "spool").glob("*.json"))
    assert len(receipts) == 1
    receipt: dict[str, Any] = json.loads(receipts[0].read_text())
    assert receipt["delivery"] == "local_spool"
    return receipt


def assert_no_secret_kept(state: Path, task_dir: Path) -> None:
    """The bridge keeps no secret, and the events show the command redacted (raw.log is the
    CLI's own output, kept as it came)."""
    for path in [*state.rglob("*"), task_dir / "events.jsonl"]:
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path
    assert "[REDACTED:aws_access_key]" in (task_dir / "events.jsonl").read_text()
