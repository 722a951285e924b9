"""One live run: a scripted model server, a real agent CLI, ``caesar run`` in a real repository.

Every CLI plays the same scenario, written here once: a shell command that creates a file,
a file written with the CLI's own file tool, then the report by the tier the adapter chose.
Each CLI's module in ``tests/live/dialects`` says only how its provider speaks and how to
point the CLI at the server (``DIALECTS``, ``environment``).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.live.clis import CACHE, cli_path, path_with_clis
from tests.live.modelserver import ModelServer, Say, Script, Shell, Step, WriteFile
from tests.runner.conftest import caesar

SHELL_FILE = "shell-made.txt"
SHELL_COMMAND = f"printf 'made by the shell\\n' > {SHELL_FILE}"
TOOL_FILE = "notes.md"
TOOL_CONTENT = "# Notes\n\nWritten with the agent's file tool.\n"
CAPTURE_WORKSPACE = "/capture/workspace"
"""Captures are stored with the run's real workspace path replaced by this one."""
CAPTURE_TASK_DIR = "/capture/task"
CAPTURE_ROOT = "/capture"
"""And the task directory, then the temporary directory the repository was made in."""
CAPTURE_CACHE = "/capture/cache"
"""And the CLIs' cache (``.cache/clis``, where a CLI may unpack itself)."""


def report(summary: str = "Created two files as asked.") -> dict[str, Any]:
    return {
        "protocol": "caesar.report/v1",
        "task_id": "{task_id}",
        "status": "success",
        "summary": summary,
        "changes": [
            {"path": SHELL_FILE, "action": "created"},
            {"path": TOOL_FILE, "action": "created"},
        ],
        "commands_run": [{"command": SHELL_COMMAND, "exit_code": 0}],
        "next_steps": [],
    }


def channel_report(summary: str = "Reported through the channel.") -> dict[str, Any]:
    """The report as ``submit_report`` arguments (the channel fills protocol and task id)."""
    fields = report(summary)
    del fields["protocol"], fields["task_id"]
    fields["changes"] = [{"path": SHELL_FILE, "action": "created"}]
    return fields


def assert_reported_through_channel(run: LiveRun, progress: Sequence[str] = ()) -> None:
    """The run ended well, its report came through ``submit_report``, the task named its
    channel, ``progress`` are the channel's progress events, every call succeeded, and the
    scenario's shell step ran in the workspace."""
    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    assert run.outcome["report_source"] == "channel"
    assert run.outcome["report"]["summary"] == "Reported through the channel."
    task = json.loads((run.task_dir / "task.json").read_text())
    assert task["channel"]["server_name"] == "caesar"
    events = run.events()
    assert [e["message"] for e in events if e["type"] == "progress"] == list(progress)
    ends = [e for e in events if e["type"] == "tool_use" and e["status"] != "started"]
    assert all(e["status"] == "succeeded" for e in ends), ends
    assert (Path(run.outcome["workspace"]) / SHELL_FILE).exists()


def standard_script(tier: str) -> Script:
    """The scenario for ``tier``: schema ends with the report as the final message, file
    writes it to ``$CAESAR_REPORT_PATH`` with the file tool and then says so."""
    steps: list[Step] = [Shell(SHELL_COMMAND), WriteFile(TOOL_FILE, TOOL_CONTENT)]
    body = json.dumps(report())
    if tier == "schema":
        steps.append(Say(body))
    else:
        steps += [WriteFile("{report_path}", body), Say("Done: the report is written.")]
    return Script(steps)


def dialect_module(cli: str) -> ModuleType:
    return importlib.import_module(f"tests.live.dialects.{cli}")


@dataclass
class LiveRun:
    cli: str
    outcome: dict[str, Any]
    exit_code: int
    stderr: str
    task_dir: Path
    server: ModelServer

    def events(self) -> list[dict[str, Any]]:
        lines = (self.task_dir / "events.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def raw_lines(self) -> list[str]:
        return (self.task_dir / "raw.log").read_text(errors="replace").splitlines()


def run_live(
    cli: str,
    repo: Path,
    home: Path,
    script: Script,
    *,
    args: Sequence[str] = (),
    agent_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 240,
) -> LiveRun:
    """``caesar run --agent CLI`` against a fresh server playing ``script``."""
    with ModelServer(dialect_module(cli).DIALECTS, script) as server:
        argv = ["run", f"do the {cli} scenario", "--agent", cli, "--json", *args]
        if agent_args:
            argv += ["--", *agent_args]
        return caesar_live(cli, repo, home, server, argv, env=env, timeout=timeout)


def caesar_live(
    cli: str,
    repo: Path,
    home: Path,
    server: ModelServer,
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 240,
) -> LiveRun:
    """``caesar ARGV`` (``run``, ``continue``, with ``--json``) with ``cli`` pointed at
    ``server``."""
    cli_path(cli)
    home.mkdir(parents=True, exist_ok=True)
    run_env = {
        "PATH": path_with_clis(),
        "HOME": str(home),
        **dialect_module(cli).environment(server.url, home),
        **(env or {}),
    }
    done = caesar(repo, *argv, env=run_env, timeout=timeout)
    assert done.stdout, f"caesar printed nothing; stderr:\n{done.stderr}"
    outcome = json.loads(done.stdout)
    task_dir = Path(outcome["task_dir"])
    return LiveRun(cli, outcome, done.returncode, done.stderr, task_dir, server)


def capture_lines(run: LiveRun) -> list[str]:
    """The JSON lines of a run's output with its workspace path made stable, for a capture."""
    workspace = run.outcome.get("workspace") or ""
    lines = []
    for line in run.raw_lines():
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            json.loads(text)
        except ValueError:
            continue
        for spelling in {workspace, os.path.realpath(workspace)} - {""}:
            text = text.replace(spelling, CAPTURE_WORKSPACE)
        text = text.replace(str(run.task_dir), CAPTURE_TASK_DIR)
        text = text.replace(str(CACHE), CAPTURE_CACHE)
        text = text.replace(str(run.task_dir.parents[3]), CAPTURE_ROOT)
        lines.append(text)
    return lines
