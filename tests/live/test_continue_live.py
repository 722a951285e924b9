"""``caesar continue`` with the real CLIs: the second turn resumes the first turn's session.

The scripted server is the proof: every request of the second turn must carry the first
turn's brief and tool results (``Script.resumed``), or the server refuses it; a restarted
session would send the second brief alone. The second turn's edit lands in the same worktree,
``caesar diff`` shows both turns and ``--since-previous`` the second alone.

Skipped (with the reason) for a CLI that is not installed in ``.cache/clis``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.live.clis import requires
from tests.live.modelserver import ModelServer, Say, Script, Shell, Step, WriteFile, read_brief
from tests.live.scenario import (
    SHELL_FILE,
    TOOL_FILE,
    LiveRun,
    caesar_live,
    dialect_module,
    standard_script,
)
from tests.runner.conftest import caesar

FIRST_TURN_MARK = "made by the shell"
"""In the first turn's shell call (``SHELL_COMMAND``), however a dialect quotes its arguments."""
SECOND_FILE = "second-turn.txt"
SECOND_COMMAND = f"printf 'made in the second turn\\n' > {SECOND_FILE}"
CLIS = [
    pytest.param(cli, marks=requires(cli))
    for cli in ("codex", "claude", "opencode", "gemini", "copilot", "qwen")
]


def second_report() -> dict[str, Any]:
    return {
        "protocol": "caesar.report/v1",
        "task_id": "{task_id}",
        "status": "success",
        "summary": "Answered the review in the same session.",
        "changes": [{"path": SECOND_FILE, "action": "created"}],
        "commands_run": [{"command": SECOND_COMMAND, "exit_code": 0}],
        "next_steps": [],
    }


def second_script(tier: str) -> Script:
    steps: list[Step] = [Shell(SECOND_COMMAND)]
    body = json.dumps(second_report())
    if tier == "schema":
        steps.append(Say(body))
    else:
        steps += [WriteFile("{report_path}", body), Say("Done: the second report is written.")]
    return Script(steps)


def two_turns(cli: str, repo: Path, home: Path) -> tuple[LiveRun, LiveRun, ModelServer]:
    """``caesar run`` then ``caesar continue`` against one server expecting a resumed session."""
    tier = dialect_module(cli).TIER
    script = standard_script(tier)
    script.followups = [second_script(tier)]
    script.resumed = True
    with ModelServer(dialect_module(cli).DIALECTS, script) as server:
        first = caesar_live(
            cli, repo, home, server, ["run", f"do the {cli} scenario", "--agent", cli, "--json"]
        )
        assert first.exit_code == 0, first.stderr + "\n".join(first.raw_lines()[-20:])
        second = caesar_live(
            cli,
            repo,
            home,
            server,
            ["continue", first.outcome["task_id"], "also leave a note", "--json"],
        )
    return first, second, server


def record(repo: Path, task_id: str) -> dict[str, Any]:
    rows = json.loads(caesar(repo, "ps", "--all", "--json").stdout)
    found: dict[str, Any] = next(row for row in rows if row["id"] == task_id)
    return found


@pytest.mark.parametrize("cli", CLIS)
def test_the_second_turn_resumes_the_first_session_in_the_same_worktree(
    cli: str, repo: Path, tmp_path: Path
) -> None:
    first, second, server = two_turns(cli, repo, tmp_path / "home")

    assert second.exit_code == 0, second.stderr + "\n".join(second.raw_lines()[-30:])
    assert server.script.violations == []
    first_id, second_id = first.outcome["task_id"], second.outcome["task_id"]
    later = server.turn_requests(second_id)
    assert later, "the second turn made no model call"
    for seen in later:  # the first turn's brief and its shell call, sent again: resumed
        assert first_id in seen.text and FIRST_TURN_MARK in seen.text

    session = record(repo, first_id)["session_id"]
    assert session
    turn = record(repo, second_id)
    assert (turn["continues"], turn["chain"], turn["turn"]) == (first_id, first_id, 2)
    assert turn["resumed_session"] == session
    assert not [f for f in second.outcome["report"]["findings"] if f["title"] == "Fresh session"]

    workspace = Path(second.outcome["workspace"])
    assert workspace == Path(first.outcome["workspace"])
    assert (workspace / SHELL_FILE).exists() and (workspace / TOOL_FILE).exists()
    assert (workspace / SECOND_FILE).read_text() == "made in the second turn\n"
    assert second.outcome["diff"]["files"] == [SECOND_FILE]  # the turn's own changes

    whole = json.loads(caesar(repo, "diff", second_id, "--json").stdout)
    assert sorted(f["path"] for f in whole["files"]) == sorted([SECOND_FILE, SHELL_FILE, TOOL_FILE])
    alone = json.loads(caesar(repo, "diff", second_id, "--since-previous", "--json").stdout)
    assert [f["path"] for f in alone["files"]] == [SECOND_FILE]


SESSION_STORES = {
    "claude": ".claude/projects",
    "codex": "codex-home/sessions",
    "gemini": ".gemini/tmp",
    "opencode": ".local/share/opencode",
    "copilot": ".copilot/session-state",
    "qwen": ".qwen/projects",
}
"""Where each CLI keeps its sessions under the test's HOME (see its dialect's environment)."""


@pytest.mark.parametrize("cli", [pytest.param(c, marks=requires(c)) for c in SESSION_STORES])
def test_a_session_that_is_gone_starts_the_turn_fresh_and_says_so(
    cli: str, repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    tier = dialect_module(cli).TIER
    script = standard_script(tier)
    script.followups = [second_script(tier)]
    with ModelServer(dialect_module(cli).DIALECTS, script) as server:
        first = caesar_live(
            cli, repo, home, server, ["run", f"do the {cli} scenario", "--agent", cli, "--json"]
        )
        assert first.exit_code == 0, first.stderr
        shutil.rmtree(home / SESSION_STORES[cli])
        second = caesar_live(
            cli, repo, home, server, ["continue", first.outcome["task_id"], "again", "--json"]
        )

    assert second.exit_code == 0, second.stderr + "\n".join(second.raw_lines()[-30:])
    second_id = second.outcome["task_id"]
    fresh = [f for f in second.outcome["report"]["findings"] if f["title"] == "Fresh session"]
    assert len(fresh) == 1 and "could not resume its session" in fresh[0]["detail"]
    later = server.turn_requests(second_id)
    assert later  # restarted, not resumed: the second brief alone, no first-turn call
    assert all(read_brief(seen.body).task_ids == (second_id,) for seen in later)
    assert not any(FIRST_TURN_MARK in seen.text for seen in later)
    assert record(repo, second_id).get("resumed_session") is None
    assert (Path(second.outcome["workspace"]) / SECOND_FILE).exists()
    events = second.events()
    assert any("starting a fresh session" in e.get("message", "") for e in events)
