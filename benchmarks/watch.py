"""``caesar watch`` benchmark: the app's own process, in a terminal, on a project built first.

A project of 1,000 tasks and 200,000 events is written to a temporary directory; then
``caesar watch`` runs as a process of its own in a pseudo-terminal (160x50), and this process
measures it from outside:

1. first full frame: from starting the process to the first frame with every task in the tree
   (those on screen with what their whole logs say: the app reads their logs first) and the
   selected task's activity shown (the app writes that moment to the file
   ``CAESAR_WATCH_MILESTONES`` names, on the system's monotonic clock); goal <= 1.0 s;
2. idle CPU: the process's CPU time (every thread, ``/proc/PID/task/*/schedstat``; utime +
   stime of ``/proc/PID/stat`` beside it) over an idle window once every log is read, nothing
   appended; goal <= 1% of a core;
3. append -> row: from a line appended to the selected task's log to its text reaching the
   terminal (p50, p95), against the reference implementation's design measured in the same
   run: a 200 ms poll that re-reads every log whole. Goal: p95 <= 50 ms, <= 0.5x the
   reference's p95;
4. peak memory of the process (``VmHWM``); goal <= 150 MB.

First frame, idle CPU and peak memory are also measured for a bare Textual app showing one
line (the floor of any Textual app on this machine).

Run: ``make bench`` (or ``.venv/bin/python benchmarks/watch.py [--tasks N] [--events N]``).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _eventdata import event_log

from caesar_core.events import encode_line
from caesar_core.protocol import Isolation, Mode, ToolStatus, ToolUse
from caesar_core.store import TaskRecord, TaskStatus, TaskStore, new_task_id

FRAME_GOAL_S = 1.0
CPU_GOAL = 0.01
P95_GOAL_MS = 50.0
RATIO_GOAL = 0.5
MEMORY_GOAL_MB = 150
COLUMNS, LINES = 160, 50
CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
MILESTONES = "CAESAR_WATCH_MILESTONES"

BARE_APP = """
import os, time
from textual.app import App
from textual.widgets import Static

class Bare(App[None]):
    def compose(self):
        yield Static("caesar")

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        with open(os.environ["CAESAR_WATCH_MILESTONES"], "a") as out:
            out.write(f"frame {time.monotonic():.6f}\\n")

Bare().run()
"""


def build(root: Path, tasks: int, events: int) -> list[str]:
    """The project, its tasks created just now (their ages tick every second, the busiest case
    for the clock), a millisecond apart: the tree shows them in this order."""
    store = TaskStore(root)
    per_task = max(1, events // tasks)
    body = event_log(per_task)
    ids = []
    start = datetime.now(UTC)
    for n in range(tasks):
        task_id = new_task_id()
        paths = store.create(
            TaskRecord(
                id=task_id,
                created_at=start + timedelta(milliseconds=n),
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


def restamp(root: Path, ids: list[str]) -> None:
    """The tasks created just now again, before each run: their ages tick every second."""
    store, start = TaskStore(root), datetime.now(UTC)
    for n, task_id in enumerate(ids):
        store.set(task_id, created_at=start + timedelta(milliseconds=n))


def probe_line(
    task_id: str, token: str, seq: int, status: ToolStatus = ToolStatus.STARTED
) -> bytes:
    event = ToolUse(tool="bash", id=token, input_summary=token, status=status)
    return encode_line(event, seq=seq, at=datetime.now(UTC), task_id=task_id)


def append(path: Path, line: bytes) -> None:
    with path.open("ab") as out:
        out.write(line)


class Terminal:
    """A process in a pseudo-terminal; everything it writes is read at once and searched."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.command = " ".join(command)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True
        )
        os.close(slave)
        self.master = master
        self._seen = threading.Condition()
        self._tail = b""
        self._wanted: dict[bytes, float | None] = {}
        self.output = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            now = time.monotonic()
            with self._seen:
                if len(self.output) < 1 << 20:
                    self.output += data
                window = self._tail + data
                for token, when in self._wanted.items():
                    if when is None and token in window:
                        self._wanted[token] = now
                self._tail = window[-256:]
                self._seen.notify_all()

    def expect(self, token: bytes) -> None:
        with self._seen:
            self._wanted[token] = None

    def seen(self, token: bytes, timeout: float = 30) -> float:
        """When ``token`` reached the terminal (it must have been ``expect``-ed first)."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while self._wanted[token] is None:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise SystemExit(f"{token!r} never reached the terminal:\n{self.text()}")
                self._seen.wait(left)
            when = self._wanted.pop(token)
            assert when is not None
            return when

    def text(self) -> str:
        return self.output[-4000:].decode(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            os.write(self.master, b"q")
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.master)


def milestone(path: Path, name: str, app: Terminal, timeout: float = 60) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            for line in path.read_text().splitlines():
                label, _, when = line.partition(" ")
                if label == name:
                    return float(when)
        if app.process.poll() is not None:
            break
        time.sleep(0.005)
    raise SystemExit(f"no {name!r} milestone from {app.command}:\n{app.text()}")


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of ``pid`` so far (scheduler statistics, in nanoseconds)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return total / 1e9


def stat_seconds(pid: int) -> float:
    """The same from ``/proc/PID/stat`` (utime + stime, every thread, in clock ticks): what
    ``ps`` and ``top`` read; coarser (10 ms), printed beside as a cross-check."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmHWM in /proc")


def environment(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(TERM="xterm-256color", XDG_CONFIG_HOME=str(tmp / "config"))
    env.update(COLUMNS=str(COLUMNS), LINES=str(LINES))
    return env


def bare(tmp: Path, run: int, idle_s: float = 0.0) -> tuple[float, float, float]:
    """First frame, idle CPU (over ``idle_s``, once its frame is drawn) and peak memory of a
    Textual app showing one line: the floor of any Textual app on this machine."""
    marks = tmp / f"bare-{run}.milestones"
    env = environment(tmp) | {MILESTONES: str(marks)}
    app = Terminal([sys.executable, "-c", BARE_APP], env, tmp)
    try:
        pid = app.process.pid
        frame = milestone(marks, "frame", app) - app.started
        idle = 0.0
        if idle_s:
            time.sleep(1.0)
            before, began = cpu_seconds(pid), time.monotonic()
            time.sleep(idle_s)
            idle = (cpu_seconds(pid) - before) / (time.monotonic() - began)
        return frame, idle, peak_mb(pid)
    finally:
        app.close()


@dataclass(frozen=True)
class Run:
    """What one ``caesar watch`` process measured."""

    frame: float
    frame_cpu: float
    """CPU seconds the process had used by then: what a loaded machine does not inflate."""
    read: float
    idle: float
    """CPU seconds per second."""
    idle_stat: float
    """The same, from utime + stime."""
    latencies: list[float]
    """Milliseconds, one per probe."""
    mb: float


def ours(root: Path, tmp: Path, ids: list[str], probes: int, idle_s: float, run: int) -> Run:
    restamp(root, ids)
    marks = tmp / f"watch-{run}.milestones"
    env = environment(tmp) | {MILESTONES: str(marks)}
    app = Terminal([CAESAR, "watch", "--root", str(root), "--no-notify"], env, root)
    try:
        pid = app.process.pid
        frame = milestone(marks, "frame", app) - app.started
        frame_cpu = cpu_seconds(pid)  # a few ms late: the milestone is polled
        read = milestone(marks, "read", app) - app.started
        time.sleep(1.0)  # the last repaint of the catch-up settles
        before, ticks, began = cpu_seconds(pid), stat_seconds(pid), time.monotonic()
        time.sleep(idle_s)
        window = time.monotonic() - began
        idle = (cpu_seconds(pid) - before) / window
        idle_stat = (stat_seconds(pid) - ticks) / window
        events = TaskStore(root).paths(ids[0]).events  # the first task is the one selected
        latencies = []
        for n in range(probes):
            token = f"probe-{run}-{n:04d}"
            app.expect(token.encode())
            seq = 10**9 + run * 10_000 + 2 * n
            line = probe_line(ids[0], token, seq)
            sent = time.monotonic()
            append(events, line)
            latencies.append((app.seen(token.encode()) - sent) * 1000)
            # The call ends, as an agent's do: no probe is left running for the next run.
            append(events, probe_line(ids[0], token, seq + 1, ToolStatus.SUCCEEDED))
            time.sleep(0.05)
        return Run(frame, frame_cpu, read, idle, idle_stat, latencies, peak_mb(pid))
    finally:
        app.close()


def reference(root: Path, ids: list[str], probes: int) -> list[float]:
    """A 200 ms poll that re-reads and parses every log whole, as the reference's watch does."""
    logs = [TaskStore(root).paths(task_id).events for task_id in ids]
    target = logs[0]
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
        append(target, probe_line(ids[0], f"ref-{n}", 2 * 10**9 + n))
        seen.wait(60)
        latencies.append((time.perf_counter() - sent) * 1000)
    stop.set()
    poller.join()
    return latencies


def p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def spread(values: list[float], unit: str, scale: float = 1.0, digits: int = 0) -> str:
    low, high = min(values) * scale, max(values) * scale
    return (
        f"{low:,.{digits}f}{unit}" if low == high else f"{low:,.{digits}f}–{high:,.{digits}f}{unit}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--probes", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="app processes, one after another")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of the idle window")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-watch-") as name:
        tmp = Path(name)
        root = tmp / "project"
        root.mkdir()
        ids = build(root, args.tasks, args.events)
        print(
            f"watch: {args.tasks:,} tasks, {args.events:,} events; `caesar watch` in a "
            f"{COLUMNS}x{LINES} terminal, {args.runs} runs, {args.probes} probes each"
        )
        bare(tmp, 0)  # warm-up: bytecode written, files cached
        floor_frame, floor_idle, floor_mb = bare(tmp, 1, args.idle)
        results = [ours(root, tmp, ids, args.probes, args.idle, run) for run in range(args.runs)]
        ref = reference(root, ids, max(10, args.probes // 4))
    frames = [r.frame for r in results]
    frame_cpus = [r.frame_cpu for r in results]
    reads = [r.read for r in results]
    idles = [r.idle for r in results]
    mbs = [r.mb for r in results]
    p50s = [p(r.latencies, 50) for r in results]
    p95s = [p(r.latencies, 95) for r in results]
    ref_p95 = p(ref, 95)
    ok_frame = max(frames) <= FRAME_GOAL_S
    ok_idle = max(idles) <= CPU_GOAL
    ok_p95 = max(p95s) <= P95_GOAL_MS and max(p95s) / ref_p95 <= RATIO_GOAL
    ok_mb = max(mbs) <= MEMORY_GOAL_MB
    print(
        f"  first full frame         {spread(frames, ' ms', 1000)} "
        f"(CPU {spread(frame_cpus, ' ms', 1000)})   bare Textual app "
        f"{floor_frame * 1000:.0f} ms, ratio {spread([f / floor_frame for f in frames], 'x', 1, 2)}"
        f"   (goal <= {FRAME_GOAL_S * 1000:.0f} ms {mark(ok_frame)})"
    )
    print(f"  every log read           {spread(reads, ' ms', 1000)}")
    print(
        f"  idle CPU ({args.idle:.0f} s window)   {spread(idles, '%', 100, 2)} of a core"
        f" (utime+stime {spread([r.idle_stat for r in results], '%', 100, 2)})"
        f"   bare Textual app {floor_idle * 100:.2f}%"
        f"   (goal <= {CPU_GOAL * 100:.0f}% {mark(ok_idle)})"
    )
    print(
        f"  append -> row            p50 {spread(p50s, ' ms', 1, 1)}   "
        f"p95 {spread(p95s, ' ms', 1, 1)}"
        f"   (goal p95 <= {P95_GOAL_MS:.0f} ms in every run {mark(ok_p95)})"
    )
    print(f"  reference 200 ms poll    p50 {p(ref, 50):.1f} ms   p95 {ref_p95:.1f} ms")
    print(
        f"  ratio p95 caesar / reference {spread([x / ref_p95 for x in p95s], 'x', 1, 2)}"
        f"   (goal <= {RATIO_GOAL}x)"
    )
    print(
        f"  peak memory (VmHWM)      {spread(mbs, ' MB')}   bare Textual app {floor_mb:.0f} MB"
        f"   (goal <= {MEMORY_GOAL_MB} MB {mark(ok_mb)})"
    )
    passed = ok_frame and ok_idle and ok_p95 and ok_mb
    return 0 if passed or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
