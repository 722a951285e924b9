"""The real Gemini CLI (0.61.0), gated by ``caesar bridge`` through the hooks ``caesar hooks
install gemini`` writes, inside a caesar task: a rule denies one command before it runs, the
others go on, and the turn ends with a receipt in the bridge's spool.

What the CLI needs, found by running it: the project hooks in ``.gemini/settings.json`` run
headless only in a trusted workspace; ``--skip-trust`` alone lets an untrusted folder run but
ignores its project settings, hooks included, without a word (the refused command simply
ran). The adapter therefore sets ``GEMINI_CLI_TRUST_WORKSPACE=true`` for every run, and the
test passes nothing extra: ``caesar run --agent gemini`` honours the project's hooks.
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

pytestmark = requires("gemini")

RULES = rule("run_shell_command", "*rm -rf*", "no recursive deletes")


def _stream(run_lines: list[str], kind: str) -> list[dict[str, object]]:
    found = []
    for line in run_lines:
        if line.startswith("{"):
            item = json.loads(line)
            if item.get("type") == kind:
                found.append(item)
    return found


def test_a_bridge_rule_denies_a_real_gemini_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    hooked_project(repo, "gemini", RULES)
    state = tmp_path / "state"

    run = run_live(
        "gemini",
        repo,
        tmp_path / "home",
        deletion_script(),
        env={"CAESAR_STATE_DIR": str(state)},
    )

    assert_denied_then_allowed(run)
    assert "project-level hooks have been detected" in "\n".join(run.raw_lines())
    results = _stream(run.raw_lines(), "tool_result")
    assert results[0]["status"] == "error"
    assert "no recursive deletes" in json.dumps(results[0])
    assert [r["status"] for r in results[1:]] == ["success", "success"]
    assert_each_call_once(run)
    receipt = the_receipt(state)
    assert receipt["tool_calls"] == 3
    # The refused call is not taken for one that ran anyway: the gate stayed in the path.
    assert receipt["certification_strength"] == "project_hook"
    assert receipt["failures"] == 0
    assert_no_secret_kept(state, run.task_dir)
