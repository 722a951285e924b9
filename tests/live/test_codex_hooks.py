"""The real codex CLI (0.171.0), gated by ``caesar bridge`` through the hooks ``caesar hooks
install codex`` writes (``.codex/hooks.json``), inside a caesar task: a rule denies one
command before it runs, the next goes on, and the turn ends with a receipt in the spool.

What codex 0.171.0 needs, found by running it (``codex exec``, as ``caesar run`` starts it):

* hooks are on by default, and ``.codex/hooks.json`` in the ``{"hooks": {...}}`` shape that
  ``hooks install`` writes is read as it is;
* the project layer must be trusted, or ``.codex/`` is ignored ("Untrusted project-local
  configuration is disabled. Run `codex exec --trust` ..."). ``--trust`` records
  ``[projects."<repo>"] trust_level = "trusted"`` in ``$CODEX_HOME/config.toml``; a task's
  worktree counts as its repository (the trust is recorded for the repository's root);
* and every non-managed hook must be trusted by hash (``/hooks`` in the TUI records
  ``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."``), or
  ``--dangerously-bypass-hook-trust`` for one run. An untrusted hook is skipped without a
  word in ``exec``'s output: the command the rule refuses runs (the last test).

codex refuses ``rm -rf``/``rm -f`` itself ("rm -f style commands are not permitted"), before
any hook, so the command refused here is a plain ``rm``: the refusal must be the bridge's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.live.clis import requires
from tests.live.gating import CANARY, assert_denied_then_allowed, hooked_project, rule, the_receipt
from tests.live.modelserver import Say, Script, Shell
from tests.live.scenario import SHELL_COMMAND, report, run_live

pytestmark = requires("codex")

RULES = rule("Bash", "*rm keep*", "keep/ is not to be deleted")
TRUST_PROJECT = "--trust"
TRUST_HOOKS = "--dangerously-bypass-hook-trust"


def _script() -> Script:
    return Script(
        [Shell(f"rm keep/data.txt  # {CANARY}"), Shell(SHELL_COMMAND), Say(json.dumps(report()))]
    )


def test_a_bridge_rule_denies_a_real_codex_command_through_its_hook(
    repo: Path, tmp_path: Path
) -> None:
    hooked_project(repo, "codex", RULES)
    state = tmp_path / "state"
    home = tmp_path / "home"

    run = run_live(
        "codex",
        repo,
        home,
        _script(),
        agent_args=[TRUST_PROJECT, TRUST_HOOKS],
        env={"CAESAR_STATE_DIR": str(state)},
    )

    assert_denied_then_allowed(run)
    assert f'[projects."{repo}"]' in (home / "codex-home" / "config.toml").read_text()
    # What the model was told the refused command returned: the bridge's reason.
    last = run.server.seen("/responses")[-1].body
    outputs = [
        str(item.get("output"))
        for item in last["input"]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert "blocked by PreToolUse hook" in outputs[0]
    assert "keep/ is not to be deleted" in outputs[0]
    # codex makes no item of a refused command: only the allowed one is in the events
    shells = [e for e in run.events() if e["type"] == "tool_use" and e["tool"] == "shell"]
    assert [e["status"] for e in shells] == ["started", "succeeded"]
    assert "shell-made.txt" in shells[0]["input_summary"]
    receipt = the_receipt(state)
    assert receipt["tool_calls"] == 2
    assert receipt["certification_strength"] == "project_hook"  # no call ran ungated
    # The bridge and the events keep no secret. (raw.log does: codex logs the refused command
    # as it came, "Command blocked by PreToolUse hook: ... Command: <raw>", openai/codex#32573.)
    for path in [*state.rglob("*"), run.task_dir / "events.jsonl"]:
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(
    ("agent_args", "why"),
    [
        ([TRUST_PROJECT], "hooks not trusted"),
        ([TRUST_HOOKS], "project not trusted"),
    ],
)
def test_codex_runs_no_project_hooks_without_both_trusts(
    repo: Path, tmp_path: Path, agent_args: list[str], why: str
) -> None:
    """Either trust alone is not enough, and codex says nothing of the skipped hooks in its
    JSON stream: the refused command runs and the bridge never hears of the turn."""
    hooked_project(repo, "codex", RULES)
    state = tmp_path / "state"

    run = run_live(
        "codex",
        repo,
        tmp_path / "home",
        _script(),
        agent_args=agent_args,
        env={"CAESAR_STATE_DIR": str(state)},
    )

    assert run.exit_code == 0, run.stderr
    workspace = Path(run.outcome["workspace"])
    assert (workspace / ".codex" / "hooks.json").is_file()  # installed, and not run
    assert not (workspace / "keep" / "data.txt").exists(), why
    assert not (state / "bridge").exists(), why
    shells = [e for e in run.events() if e["type"] == "tool_use" and e["tool"] == "shell"]
    assert [e["status"] for e in shells] == ["started", "succeeded"] * 2
