"""The real GitHub Copilot CLI (1.0.102), gated by ``caesar bridge`` through the hooks ``caesar
hooks install copilot`` writes, inside a caesar task: a rule denies one command before it
runs, the others go on, and the turn ends with a receipt in the bridge's spool.

What the CLI needs, found by running it: the project's hooks (``.github/hooks/*.json``) run
only in a folder it trusts, else they are skipped without a word; the adapter passes
``--trust-folder`` for a new session. Under PascalCase event names the payloads are
Claude-format, the shell tool is ``Bash``, and no call id is sent.
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

pytestmark = requires("copilot")

RULES = rule("Bash", "*rm -rf*", "no recursive deletes")


def test_a_bridge_rule_denies_a_real_copilot_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    hooked_project(repo, "copilot", RULES)
    state = tmp_path / "state"

    run = run_live(
        "copilot", repo, tmp_path / "home", deletion_script(), env={"CAESAR_STATE_DIR": str(state)}
    )

    assert_denied_then_allowed(run)
    ends = [
        json.loads(line)["data"]
        for line in run.raw_lines()
        if line.startswith('{"type":"tool.execution_complete"')
    ]
    assert [end["success"] for end in ends] == [False, True, True]
    assert "caesar: no recursive deletes" in ends[0]["error"]["message"]
    assert_each_call_once(run)
    receipt = the_receipt(state)
    assert receipt["tool_calls"] == 3
    # The refused call is closed as denied: the next Bash call is not read as "refused but ran".
    assert receipt["certification_strength"] == "project_hook"
    assert receipt["failures"] == 0
    assert_no_secret_kept(state, run.task_dir)
