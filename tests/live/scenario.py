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
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.live.clis import CACHE, cli_path, path_with_clis
from tests.live.modelserver import ModelServer, Say, Script, Shell, Step, WriteFile
from tests.runner.conftest import caesar, git

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
READ_ONLY_SUMMARY = "Looked, changed nothing."


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


def read_only_script() -> Script:
    """The scenario's steps for a read-only task, which the CLI itself must refuse but for the
    report (claiming no change) that follows them."""
    body = json.dumps({**report(READ_ONLY_SUMMARY), "changes": [], "commands_run": []})
    return Script(
        [
            Shell(f"printf x > {SHELL_FILE}"),
            WriteFile(TOOL_FILE, TOOL_CONTENT),
            WriteFile("{report_path}", body),
            Say("Done: the report is written."),
        ]
    )


def assert_did_the_work(run: LiveRun) -> None:
    """The write run ended well and both of the scenario's files are in its workspace."""
    assert run.exit_code == 0, run.stderr + "\n".join(run.raw_lines()[-20:])
    workspace = Path(run.outcome["workspace"])
    assert (workspace / SHELL_FILE).read_text() == "made by the shell\n"
    assert (workspace / TOOL_FILE).read_text() == TOOL_CONTENT


def assert_held_read_only(run: LiveRun) -> None:
    """Neither the shell step nor the workspace write of ``read_only_script`` went through."""
    workspace = Path(run.outcome["workspace"])
    assert not (workspace / SHELL_FILE).exists()
    assert not (workspace / TOOL_FILE).exists()
    assert git(workspace, "status", "--porcelain") == ""
    assert not [e for e in run.events() if e["type"] == "file_changed"]


def tool_ends(run: LiveRun) -> list[dict[str, Any]]:
    """The closing edges of the run's calls, in order, once every call that started ended."""
    calls = [e for e in run.events() if e["type"] == "tool_use"]
    starts = Counter(e["id"] for e in calls if e["status"] == "started")
    ends = [e for e in calls if e["status"] != "started"]
    assert starts and starts == Counter(e["id"] for e in ends), calls
    return ends


def diff_paths(repo: Path, run: LiveRun) -> set[str]:
    """The files ``caesar diff`` lists for the run's task."""
    diff = caesar(repo, "diff", run.outcome["task_id"], "--json")
    assert diff.returncode == 0, diff.stderr
    return {f["path"] for f in json.loads(diff.stdout)["files"]}


def assert_refused_model(run: LiveRun, reason: str) -> None:
    """A run with ``--model refused``, which the scripted OpenAI-style provider refuses: the
    task failed with the provider's ``reason``, no call was made, caesar wrote the report."""
    assert run.outcome["status"] == "failed", run.outcome
    errors = [e for e in run.events() if e["type"] == "error"]
    assert (errors[0]["message"], errors[0]["fatal"]) == (reason, True)
    assert not [e for e in run.events() if e["type"] == "tool_use"]
    assert run.outcome["report_source"] == "synthesized"
    assert run.outcome["report"]["status"] == "failed"
    asked = {r.body.get("model") for r in run.server.seen("/chat/completions") if r.body}
    assert asked == {"refused"}


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
