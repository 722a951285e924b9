"""The real Claude Code, gated by ``caesar bridge`` through the hooks ``caesar hooks install``
writes, inside a caesar task: a rule denies one command before it runs, the others go on,
and the turn ends with a receipt in the bridge's spool.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.live.modelserver import Say, Script, Shell, WriteFile
from tests.live.scenario import SHELL_COMMAND, SHELL_FILE, report, run_live
from tests.runner.conftest import caesar, git

CANARY = "AKIA" + "QWERTYUIOPASDFGH"
"""A cloud key in the command: the bridge may keep a redacted summary, never the key."""
RULES = """
[[bridge.rule]]
tool = "Bash"
match = "*rm -rf*"
decision = "deny"
reason = "no recursive deletes"
"""


def test_a_bridge_rule_denies_a_real_claude_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "keep").mkdir()
    (repo / "keep" / "data.txt").write_text("precious\n")
    installed = caesar(repo, "hooks", "install", "claude-code", "--root", str(repo))
    assert installed.returncode == 0, installed.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks and data")
    (repo / ".caesar").mkdir(exist_ok=True)
    (repo / ".caesar" / "config.toml").write_text(RULES)
    state = tmp_path / "state"
    script = Script(
        [
            Shell(f"rm -rf keep  # {CANARY}"),
            Shell(SHELL_COMMAND),
            WriteFile("{report_path}", json.dumps(report())),
            Say("Done."),
        ]
    )

    run = run_live("claude", repo, tmp_path / "home", script, env={"CAESAR_STATE_DIR": str(state)})

    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-30:])
    workspace = Path(run.outcome["workspace"])
    assert (workspace / "keep" / "data.txt").read_text() == "precious\n"  # denied before it ran
    assert (workspace / SHELL_FILE).exists()  # the next command was allowed
    results = [
        block
        for line in run.raw_lines()
        if line.startswith('{"type":"user"')
        for block in json.loads(line)["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert "no recursive deletes" in json.dumps(results[0])
    calls = [e for e in run.events() if e["type"] == "tool_use"]
    assert len({c["id"] for c in calls}) * 2 == len(calls)  # each call once: no hook duplicates
    receipts = list((state / "bridge" / "spool").glob("*.json"))
    assert len(receipts) == 1
    receipt = json.loads(receipts[0].read_text())
    assert receipt["tool_calls"] >= 3
    assert receipt["delivery"] == "local_spool"
    # the bridge keeps no secret, and the events show the command redacted (raw.log is the
    # CLI's own output, kept as it came)
    for path in [*state.rglob("*"), run.task_dir / "events.jsonl"]:
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path
    assert "[REDACTED:aws_access_key]" in (run.task_dir / "events.jsonl").read_text()
