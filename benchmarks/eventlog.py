"""Event log benchmark: ratios against baselines measured in the same run, on the same bytes.

1. Cold read: tail + parse + fold of 200,000 events, against a plain ``json.loads`` loop over
   the same lines (the least any reader of this log can do). Goal: <= 2.0x.
2. Live read: the cost of reading one appended line after a 100 MB log, against the same after
   a 1 KB log. Goal: <= 1.5x (a read must not depend on the size of what was already read).
3. Pass-through (``caesar logs --json``): tail + validate + the lines' own bytes written, against
   tail + validate + each event dumped again (what it did before). Goal: <= 0.8x.

Run: ``make bench`` (or ``.venv/bin/python benchmarks/eventlog.py [--events N] [--check]``).
Each figure is the best of several repetitions, to keep the machine's noise out of the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _eventdata import event_lines, event_log, verify

from caesar_core.events import EventTail
from caesar_core.events.fold import ActivityFold
from caesar_core.terminal import json_safe, json_safe_bytes

COLD_GOAL = 2.0
LIVE_GOAL = 1.5
PASS_GOAL = 0.8


def best_of(repeat: int, run: Callable[[], object]) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return min(timings)


def cold(events: int, repeat: int, workdir: Path) -> float:
    lines = event_lines(events)
    verify(lines)
    log = workdir / "cold.jsonl"
    log.write_bytes(b"".join(lines))
    stripped = [line.rstrip(b"\n") for line in lines]

    def floor() -> None:
        loads = json.loads
        for line in stripped:
            loads(line)

    def ours() -> None:
        with EventTail(log) as tail:
            batch = tail.read()
        fold = ActivityFold()
        fold.apply_all(batch.events)
        fold.snapshot(datetime.now(UTC))
        assert len(batch.events) == events and not batch.bad

    base = best_of(repeat, floor)
    measured = best_of(repeat, ours)
    ratio = measured / base
    print(f"cold: {events:,} events  json.loads floor {base * 1e3:8.1f} ms")
    print(
        f"      tail + parse + fold   {measured * 1e3:8.1f} ms  ratio {ratio:.2f}x  "
        f"(goal <= {COLD_GOAL}x)"
    )
    return ratio


def live(appends: int, workdir: Path) -> float:
    """Median cost of one tail read that finds one new line, after a small and a huge log."""
    line = event_lines(1, seed=7)[0]
    medians = {}
    for label, size in (("1 KB", 1_000), ("100 MB", 100_000_000)):
        log = workdir / f"live-{label.replace(' ', '')}.jsonl"
        body = event_log(max(1, size // 240))
        while len(body) < size:
            body += body
        log.write_bytes(body[: body.rfind(b"\n", 0, size) + 1] if size < len(body) else body)
        history = log.stat().st_size
        timings = []
        with EventTail(log) as tail, log.open("ab", buffering=0) as out:
            tail.read()  # catch up: the history is not what is measured
            for _ in range(appends):
                out.write(line)
                start = time.perf_counter()
                batch = tail.read()
                timings.append(time.perf_counter() - start)
                assert len(batch.events) == 1
        medians[label] = statistics.median(timings)
        print(
            f"live: one appended line after {label:>6} log  "
            f"{medians[label] * 1e6:7.1f} µs  (history {history:,} bytes)"
        )
        log.unlink()
    ratio = medians["100 MB"] / medians["1 KB"]
    print(f"      ratio 100 MB / 1 KB {ratio:.2f}x  (goal <= {LIVE_GOAL}x)")
    return ratio


def passthrough(events: int, repeat: int, workdir: Path) -> float:
    log = workdir / "pass.jsonl"
    log.write_bytes(event_log(events))

    def dumped() -> None:
        with EventTail(log) as tail:
            batch = tail.read()
        out = [json_safe(event.model_dump_json(exclude_none=True)) for event in batch.events]
        assert len(out) == events

    def ours() -> None:
        with EventTail(log) as tail:
            batch = tail.read()
        out = json_safe_bytes(b"\n".join(batch.lines))
        assert out.count(b"\n") == events - 1

    base = best_of(repeat, dumped)
    measured = best_of(repeat, ours)
    ratio = measured / base
    print(f"pass: {events:,} events  validate + dump again {base * 1e3:8.1f} ms")
    print(
        f"      validate + own bytes   {measured * 1e3:8.1f} ms  ratio {ratio:.2f}x  "
        f"(goal <= {PASS_GOAL}x)"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--appends", type=int, default=2_000)
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as tmp:
        cold_ratio = cold(args.events, args.repeat, Path(tmp))
        live_ratio = live(args.appends, Path(tmp))
        pass_ratio = passthrough(args.events, args.repeat, Path(tmp))
    missed = cold_ratio > COLD_GOAL or live_ratio > LIVE_GOAL or pass_ratio > PASS_GOAL
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
