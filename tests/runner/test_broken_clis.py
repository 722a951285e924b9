"""Agent CLIs that misbehave, played by real executables standing in for them on PATH.

Whatever the CLI prints (banners, half lines, event types nobody has seen) or however it
ends (dead mid-call, too old), the task ends with a report, the unreadable lines are in
raw.log and counted, and every tool call that started has ended.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.runner.conftest import caesar, run_json

COMMAND_STARTED = {
    "type": "item.started",
    "item": {
        "id": "item_1",
        "type": "command_execution",
        "command": "bash -lc 'make test'",
        "aggregated_output": "",
        "exit_code": None,
        "status": "in_progress",
    },
}


def stand_in(bin_dir: Path, name: str, body: str) -> dict[str, str]:
    """An executable called ``name`` running ``body`` (shell), first on PATH."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def events_of(task_dir: Path) -> list[dict[str, object]]:
    lines = (task_dir / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_cli_that_dies_mid_call_still_ends_the_task_with_a_report(
    repo: Path, tmp_path: Path
) -> None:
    lines = [
        "Welcome to codex! (a banner, not JSON)",
        json.dumps({"type": "thread.started", "thread_id": "t-1"}),
        json.dumps({"type": "some.future_event", "detail": 1}),
        json.dumps(COMMAND_STARTED),
        '{"type":"item.completed","item":{"id":"item_1","ty',
    ]
    script = "".join(f"printf '%s\\n' {json.dumps(line)}\n" for line in lines)
    env = stand_in(
        tmp_path / "bin",
        "codex",
        "case \"$1\" in --version) echo 'codex-cli 9.0.0'; exit 0;; esac\n" + script + "exit 1\n",
    )

    out = run_json(repo, "make the tests pass", "--agent", "codex", env=env)

    assert out["status"] == "failed"
    assert out["report_source"] == "synthesized"
    assert out["report"]["status"] == "failed"
    task_dir = Path(out["task_dir"])
    raw = (task_dir / "raw.log").read_text()
    assert "Welcome to codex!" in raw
    assert '"ty' in raw  # the half line is kept as it came
    calls = [e for e in events_of(task_dir) if e["type"] == "tool_use"]
    assert [(c["id"], c["status"]) for c in calls] == [("item_1", "started"), ("item_1", "failed")]
    findings = {f["title"]: f["detail"] for f in out["report"]["findings"]}
    assert "3 line(s)" in findings["Output not understood"]


def test_a_cli_that_is_not_installed_is_refused_before_anything_is_created(repo: Path) -> None:
    done = caesar(
        repo, "run", "anything", "--agent", "gemini", env={"PATH": "/nonexistent-bin:/usr/bin:/bin"}
    )

    assert done.returncode == 2
    assert "'gemini' is not installed" in done.stderr
    assert "remedy:" in done.stderr
    assert not (repo / ".caesar" / "tasks").exists() or not any(
        (repo / ".caesar" / "tasks").iterdir()
    )


def test_doctor_flags_a_cli_older_than_its_adapter(repo: Path, tmp_path: Path) -> None:
    env = stand_in(tmp_path / "bin", "codex", "echo 'codex-cli 0.1.0'\n")

    done = caesar(repo, "doctor", "--json", env=env)

    checks = {c["check"]: c for c in json.loads(done.stdout)}
    codex = checks["agent codex"]
    assert not codex["ok"]
    assert "older than" in codex["detail"]
    assert codex["remedy"].startswith("upgrade codex")
    listed = json.loads(caesar(repo, "agents", "list", "--json", env=env).stdout)
    assert next(row for row in listed if row["id"] == "codex")["outdated"] is True
