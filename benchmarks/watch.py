"""``caesar watch`` benchmark, headless, against the reference design measured in the same run.

A project of 1,000 tasks and 200,000 events:

1. first frame: from starting the app to the first full frame on screen; goal <= 2 s;
2. peak memory of that process (resident set); goal <= 300 MB;
3. latency from an event appended to a task's log to its row on screen (p50, p95), against
   the reference implementation's design: a 200 ms poll that re-reads every log whole.
   Goal: p95 <= 100 ms, and <= 0.5x the reference's p95.

Run: ``make bench`` (or ``.venv/bin/python benchmarks/watch.py [--tasks N] [--events N]``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _eventdata import event_log

from caesar_core.events import encode_line
from caesar_core.protocol import Isolation, Mode, ToolStatus, ToolUse
from caesar_core.store import TaskRecord, TaskStatus, TaskStore, new_task_id

FRAME_GOAL_S = 2.0
MEMORY_GOAL_MB = 300
P95_GOAL_MS = 100.0


def build(root: Path, tasks: int, events: int) -> list[str]:
    store = TaskStore(root)
    per_task = max(1, events // tasks)
    body = event_log(per_task)
    ids = []
    now = datetime.now(UTC)
    for _ in range(tasks):
        task_id = new_task_id()
        paths = store.create(
            TaskRecord(
                id=task_id,
                created_at=now,
                agent="codex",
                objective="benchmark task",
                workspace=str(root),
                isolation=Isolation.WORKTREE,
                mode=Mode.WRITE,
                status=TaskStatus.RUNNING,
            )
        )
        paths.events.write_bytes(body.replace(b'"t-bench"', json.dumps(task_id).encode()))
        ids.append(task_id)
    return ids


def append_line(path: Path, task_id: str, n: int) -> None:
    line = encode_line(
        ToolUse(
            tool="bash", id=f"bench-{n}", input_summary=f"probe {n}", status=ToolStatus.STARTED
        ),
        seq=10**9 + n,
        at=datetime.now(UTC),
        task_id=task_id,
    )
    with path.open("ab") as out:
        out.write(line)


async def ours(root: Path, ids: list[str], probes: int) -> tuple[float, list[float]]:
    from caesar_tui.app import make_app
    from caesar_tui.widgets.activity import ActivityView
    from caesar_tui.widgets.task_tree import TaskTree

    started = time.perf_counter()
    app = make_app(root)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.loaded.wait()
        await pilot.pause()
        first_frame = time.perf_counter() - started
        target = ids[len(ids) // 2]
        app.query_one(TaskTree).select_task(target)
        await pilot.pause(0.2)
        view = app.query_one(ActivityView)
        events = TaskStore(root).paths(target).events
        latencies = []
        for n in range(probes):
            key_count = len(view._builder.rows)
            sent = time.perf_counter()
            append_line(events, target, n)
            while len(view._builder.rows) == key_count:
                await asyncio.sleep(0.001)
            latencies.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(0.05)
    return first_frame, latencies


def reference(root: Path, ids: list[str], probes: int) -> list[float]:
    """A 200 ms poll that re-reads and parses every log whole, as the reference's watch does."""
    logs = [TaskStore(root).paths(task_id).events for task_id in ids]
    target = logs[len(logs) // 2]
    seen = threading.Event()
    stop = threading.Event()
    expected: list[str] = []

    def poll() -> None:
        while not stop.is_set():
            for log in logs:
                text = log.read_text()
                parsed = [json.loads(line) for line in text.splitlines() if line]
                if (
                    log == target
                    and expected
                    and any(e.get("id") == expected[-1] for e in parsed[-3:])
                ):
                    seen.set()
            stop.wait(0.2)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    latencies = []
    for n in range(probes):
        seen.clear()
        expected.append(f"ref-{n}")
        sent = time.perf_counter()
        line = encode_line(
            ToolUse(tool="bash", id=f"ref-{n}", input_summary="probe", status=ToolStatus.STARTED),
            seq=2 * 10**9 + n,
            at=datetime.now(UTC),
            task_id=ids[len(ids) // 2],
        )
        with target.open("ab") as out:
            out.write(line)
        seen.wait(60)
        latencies.append((time.perf_counter() - sent) * 1000)
    stop.set()
    poller.join()
    return latencies


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--probes", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-watch-") as tmp:
        root = Path(tmp)
        ids = build(root, args.tasks, args.events)
        print(f"watch: {args.tasks:,} tasks, {args.events:,} events")
        first_frame, latencies = asyncio.run(ours(root, ids, args.probes))
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        ref = reference(root, ids, max(10, args.probes // 4))
    ours_p95, ref_p95 = p(latencies, 95), p(ref, 95)
    print(
        f"  first full frame        {first_frame * 1000:8.0f} ms   "
        f"(goal <= {FRAME_GOAL_S * 1000:.0f} ms)"
    )
    print(f"  peak memory (RSS)       {peak_mb:8.0f} MB   (goal <= {MEMORY_GOAL_MB} MB)")
    print(
        f"  append -> row, caesar   p50 {p(latencies, 50):6.1f} ms   p95 {ours_p95:6.1f} ms"
        f"   (goal p95 <= {P95_GOAL_MS:.0f} ms)"
    )
    print(f"  reference 200 ms poll   p50 {p(ref, 50):6.1f} ms   p95 {ref_p95:6.1f} ms")
    print(f"  ratio p95 caesar / reference {ours_p95 / ref_p95:.2f}x   (goal <= 0.5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
