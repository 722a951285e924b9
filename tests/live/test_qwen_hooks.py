"""The real Qwen Code (0.24.4), gated by ``caesar bridge`` through the hooks ``caesar
hooks install qwen`` writes, inside a caesar task: a rule denies one command before it
runs, the others go on, and the turn ends with a receipt in the bridge's spool.

What the CLI needs, found by running it: nothing more (it runs a project's hooks headless).
Its payloads are Claude Code's, with call ids; after every batch of calls it runs
``UserPromptSubmit`` again with an empty prompt, which must not begin a new admission (the
receipt counts the whole turn's calls).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.live.clis import requires
from tests.live.gating import (
    assert_denied_then_allowed,
    assert_each_call_once,
    assert_no_secret_kept,
    deletion_script,
    hooked_project,
    rule,
    the_receipt,
)
from tests.live.scenario import run_live

pytestmark = requires("qwen")

RULES = rule("run_shell_command", "*rm -rf*", "no recursive deletes")


def test_a_bridge_rule_denies_a_real_qwen_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    hooked_project(repo, "qwen", RULES)
    state = tmp_path / "state"

    run = run_live(
        "qwen", repo, tmp_path / "home", deletion_script(), env={"CAESAR_STATE_DIR": str(state)}
    )

    assert_denied_then_allowed(run)
    results = [
        block
        for line in run.raw_lines()
        if line.startswith('{"type":"user"')
        for block in json.loads(line)["message"]["content"]
        if block.get("type") == "tool_result"
    ]
    assert [r["is_error"] for r in results] == [True, False, False]
    assert "caesar: no recursive deletes" in json.dumps(results[0])
    assert_each_call_once(run)
    receipt = the_receipt(state)
    assert receipt["tool_calls"] == 3
    # One admission for the turn, the refused call closed as denied.
    assert receipt["certification_strength"] == "project_hook"
    assert receipt["failures"] == 0
    assert_no_secret_kept(state, run.task_dir)
