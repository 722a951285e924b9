"""What ``caesar diff`` and ``caesar logs`` load, by import lists (never timings): each command
loads what it uses and nothing of the commands, layers or screens it has no use for."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.cli.test_logs_passthrough import line, task_with_log
from tests.runner.conftest import caesar_env, context, git, run_json

NO_SCREEN_NO_SDK = {"mcp", "textual", "rich", "watchfiles", "distributed"}

NOT_FOR_A_DIFF = NO_SCREEN_NO_SDK | {
    "caesar_core.git.apply",
    "caesar_core.git.checkout",
    "caesar_core.git.select",
    "caesar_core.git.worktree",
    "caesar_core.git.writeout",
    "caesar_core.runner.worktrees",
    "caesar_core.runner.turns",
    "caesar_core.runner.engine",
    "caesar_core.runner.sweep",
    "caesar_core.agents",
    "caesar_core.config",
    "caesar_core.events",
    "caesar_core.protocol.documents",
    "caesar_core.protocol.event",
    "caesar_core.protocol.mailbox",
}
"""What ``caesar diff`` has no use for: the merge and checkout machinery, the runner, the
agents, the event log, the documents it does not read, the MCP SDK and the screen."""

NOT_FOR_LOGS = NO_SCREEN_NO_SDK | {
    "pygit2",
    "caesar_core.git",
    "caesar_core.runner.sweep",
    "caesar_core.events.fold",
    "caesar_core.events.activity",
}
"""What ``caesar logs --json`` of an ended task has no use for: git, the sweep, the fold of
events into activity."""


def command_modules(args: list[str], cwd: Path) -> set[str]:
    """Every module ``caesar ARGS`` loads, run in a fresh interpreter in ``cwd`` (its output
    discarded)."""
    probe = (
        "import json, os, sys\n"
        "from caesar_core.cli.main import cli\n"
        "sys.stdout = open(os.devnull, 'w')\n"
        "try:\n"
        f"    cli.main(args={args!r}, prog_name='caesar', standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout = sys.__stdout__\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=cwd,
        env=caesar_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_diff_loads_the_reconciliation_and_nothing_it_does_not_use(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    task = run_json(root, "note it", "--agent", "demo", "--context", context("work"))
    assert task["_exit"] == 0, task["_stderr"]
    loaded = command_modules(["diff", str(task["task_id"]), "--json"], root)
    assert {"caesar_core.git.viagit", "caesar_core.runner.taskdiff"} <= loaded
    assert not loaded & NOT_FOR_A_DIFF
    if shutil.which("git"):  # the git program answers: libgit2 is not even loaded
        assert not loaded & {"pygit2", "caesar_core.git.diff"}
    turn = command_modules(["diff", str(task["task_id"]), "--since-previous", "--json"], root)
    assert "caesar_core.runner.turns" in turn


def test_logs_passes_a_log_on_without_git_the_fold_or_the_screen(tmp_path: Path) -> None:
    task_id, _ = task_with_log(tmp_path, [line(0, '"type":"message","text":"hi"')])
    loaded = command_modules(["logs", task_id, "--json", "--root", str(tmp_path)], tmp_path)
    assert "caesar_core.events.tail" in loaded
    assert not loaded & NOT_FOR_LOGS


def test_the_git_package_offers_its_names_without_loading_pygit2() -> None:
    """``caesar_core.git`` loads what it names on first use (``caesar_core.lazy``): importing it
    loads no pygit2, and every name of its ``__all__`` still resolves."""
    probe = (
        "import sys\nimport caesar_core.git as g\nassert 'pygit2' not in sys.modules\n"
        "for name in g.__all__:\n    getattr(g, name)\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=60)
