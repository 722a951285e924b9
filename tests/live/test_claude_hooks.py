"""The real Claude Code, gated by ``caesar bridge`` through the hooks ``caesar hooks install``
writes, inside a caesar task: a rule denies one command before it runs, the others go on,
and the turn ends with a receipt in the bridge's spool.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.live.clis import requires
from tests.live.gating import CANARY, assert_no_secret_kept, hooked_project, rule
from tests.live.modelserver import Say, Script, Shell, WriteFile
from tests.live.scenario import SHELL_COMMAND, SHELL_FILE, report, run_live

pytestmark = requires("claude")

RULES = rule("Bash", "*rm -rf*", "no recursive deletes")


def test_a_bridge_rule_denies_a_real_claude_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    hooked_project(repo, "claude-code", RULES)
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
    assert_no_secret_kept(state, run.task_dir)
