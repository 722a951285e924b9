"""Several tasks at once: distinct worktrees, and max_parallel across processes."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

from caesar_core.events import read_events
from caesar_core.store import TaskStore
from tests.runner.conftest import CAESAR, caesar_env, context, write_config


def run_many(root: Path, count: int, script: str, **extra: object) -> list[dict[str, object]]:
    procs = [
        subprocess.Popen(
            [
                CAESAR,
                "run",
                f"task {n}",
                "--agent",
                "demo",
                "--json",
                "--context",
                context(script, **extra),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=caesar_env(),
        )
        for n in range(count)
    ]
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        outs.append(json.loads(stdout))
    return outs


def intervals(root: Path) -> list[tuple[float, float]]:
    spans = []
    for record in TaskStore(root).list().records:
        events, _ = read_events(TaskStore(root).paths(record.id).events)
        # From `started` (slot taken) to the agent's last word; the engine's closing events
        # come after the slot is released, so they do not count.
        agent = [e for e in events if e.type not in ("finished", "error")]
        spans.append((agent[0].at.timestamp(), agent[-1].at.timestamp()))
    return sorted(spans)


def overlapping(spans: list[tuple[float, float]]) -> bool:
    return any(b_start < a_end for (_, a_end), (b_start, _) in itertools.pairwise(spans))


def test_four_concurrent_tasks_get_distinct_worktrees(repo: Path) -> None:
    outs = run_many(repo, 4, "work")
    records = [TaskStore(repo).get(str(out["task_id"])) for out in outs]
    assert len({r.worktree_path for r in records}) == 4
    assert len({r.branch for r in records}) == 4
    for out in outs:
        assert out["diff"] == {"files": ["DEMO_NOTES.md", "README.md"], "is_empty": False}


def test_max_parallel_one_serializes_and_the_default_does_not(repo: Path) -> None:
    run_many(repo, 3, "quick", delay=0.4)
    assert overlapping(intervals(repo)), "control: without a limit, tasks overlap"
    for path in (repo / ".caesar" / "state" / "tasks").iterdir():
        path.unlink()
    write_config(repo, "[policy]\nmax_parallel = 1\n")
    run_many(repo, 3, "quick", delay=0.4)
    assert not overlapping(intervals(repo))
