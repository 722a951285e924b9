"""A stand-in for the reference implementation's runner, driving one recorded task.

``python standin_runner.py ROOT TASK_ID AGENT [--silent]``

As the reference's ``caesar run`` does (packages/core/src/engine/runner.ts, spawn.ts): it holds
the task's lease (``.caesar/state/worktrees-in-use/<sha256(id)>.lock/marker.json``), starts the
agent as its child in its own process group (so the agent's pid leads no group), records that
pid, and when the agent ends writes the report, its ``finished`` event (its own ``seq``
counter), then the record (read, merged, written back with only the keys it knows), and drops
the lease. ``--silent`` only starts the agent and records its pid, then stays alive without
concluding anything and without a lease (a runner caesar cannot see), until its standard input
closes (the test's end, or the test process gone: never left behind).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

KNOWN = [
    "id",
    "agent",
    "role",
    "objective",
    "status",
    "created_at",
    "started_at",
    "ended_at",
    "task_dir",
    "workspace",
    "isolation",
    "mode",
    "branch",
    "excluded_paths",
    "exit_code",
    "report_via",
    "report_source",
    "changes_verified_by",
    "report_status",
    "depth",
    "pid",
    "applied_at",
    "applied_patch_digest",
]


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def update(record_path: Path, patch: dict[str, object]) -> None:
    current = json.loads(record_path.read_text())
    merged = {k: v for k, v in {**current, **patch}.items() if k in KNOWN}
    if merged.get("pid") is None:  # `pid: undefined`, which JSON.stringify leaves out
        merged.pop("pid", None)
    temp = record_path.with_name(f".{record_path.name}.tmp")
    temp.write_text(json.dumps(merged, indent=2) + "\n")
    temp.replace(record_path)


def main() -> None:
    root, task_id, agent = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    silent = "--silent" in sys.argv[4:]
    record_path = root / ".caesar" / "state" / "tasks" / f"{task_id}.json"
    task_dir = root / ".caesar" / "tasks" / task_id
    lease = root / ".caesar" / "state" / "worktrees-in-use"
    lease /= hashlib.sha256(task_id.encode()).hexdigest() + ".lock"
    if not silent:
        lease.mkdir(parents=True, exist_ok=True)
        (lease / "marker.json").write_text(json.dumps({"pid": os.getpid(), "token": "t"}) + "\n")
    env = {**os.environ, "CAESAR_TASK_ID": task_id, "CAESAR_TASK_DIR": str(task_dir)}
    child = subprocess.Popen([agent], env=env, stdout=subprocess.DEVNULL)
    update(record_path, {"pid": child.pid})
    code = child.wait()
    if silent:
        sys.stdin.buffer.read()  # until the test closes it
        return
    report = {"protocol": "caesar.report/v1", "task_id": task_id, "status": "failed"}
    report["summary"] = f"The agent ended with code {code} without a report."
    (task_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    finished = {"protocol": "caesar.event/v1", "seq": 1, "at": now(), "task_id": task_id}
    finished.update({"type": "finished", "status": "failed", "summary": "", "exit_code": None})
    with (task_dir / "events.jsonl").open("a") as events:
        events.write(json.dumps(finished) + "\n")
    update(
        record_path,
        {
            "status": "failed",
            "ended_at": now(),
            "exit_code": None,
            "report_source": "synthesized",
            "report_status": "failed",
            "pid": None,
        },
    )
    (lease / "marker.json").unlink()
    lease.rmdir()


if __name__ == "__main__":
    main()
