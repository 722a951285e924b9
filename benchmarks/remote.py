"""Remote execution benchmark: ``caesar run --on`` on a loopback Dask cluster against ``caesar
run`` here, same run.

A scheduler and two workers (``--resources agent_slots=2``) are started on 127.0.0.1 for the
run; the agent is the spec's bash+jq one (it reads its task file, edits a file, writes its
report), so what is measured is caesar's own cost: local, the runner; remote, that same runner
on a worker plus the bundle out, the submission, the polls, the bundle back and its landing.

- latency: one task, ``--repeat`` times each, the two alternating (L R, R L, ...) after an
  untimed warm-up (bytecode written here; each worker has imported caesar, as a long-lived
  cluster's have), medians compared as ``cli.py`` does. Goal: median remote <= 2x median
  local; the best of each is printed too.
- throughput: ``--tasks`` tasks started at once, remote over the two workers (4 slots) against
  the same tasks here with ``max_parallel = 4``: wall time until all have ended.

Run: ``.venv/bin/python benchmarks/remote.py [--repeat N] [--tasks N] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CAESAR = str(BIN / "caesar")
DASK = str(BIN / "dask")
GOAL = 2.0
JQ_AGENT = """\
#!/usr/bin/env bash
objective=$(jq -r .objective "$CAESAR_TASK_FILE")
echo "# $objective" >> app.py
jq -n --arg s "Handled: $objective" \
  '{protocol: "caesar.report/v1", status: "success", summary: $s}' > "$CAESAR_REPORT_PATH"
"""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def environment(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
    env.update(GIT_ENV)
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def project(tmp: Path, env: dict[str, str]) -> Path:
    root = tmp / "project"
    root.mkdir()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        if args[0] == "add":
            (root / "app.py").write_text("print('hello')\n")
            (root / ".gitignore").write_text(".caesar/\n")
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    script = tmp / "jqagent.sh"
    script.write_text(JQ_AGENT)
    script.chmod(0o755)
    (root / ".caesar").mkdir()
    (root / ".caesar" / "config.toml").write_text(
        f'[policy]\nmax_parallel = 4\n\n[[agent]]\nid = "jqagent"\nbin = "{script}"\n'
        'args = "{{prompt}}"\n'
    )
    return root


def start_cluster(tmp: Path, env: dict[str, str]) -> tuple[str, list[subprocess.Popen[bytes]]]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = (tmp / "cluster.log").open("ab")
    started = [
        subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            env=env, stdout=log, stderr=log, start_new_session=True,
        )
    ]  # fmt: skip
    time.sleep(1.0)
    for name in ("w1", "w2"):
        started.append(
            subprocess.Popen(
                [DASK, "worker", address, "--host", "127.0.0.1", "--no-nanny", "--nthreads",
                 "4", "--resources", "agent_slots=2", "--no-dashboard", "--local-directory",
                 str(tmp / name)],
                env=env, stdout=log, stderr=log, start_new_session=True,
            )
        )  # fmt: skip
    log.close()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        done = subprocess.run(
            [CAESAR, "doctor", "--on", address, "--json"],
            cwd=tmp, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode == 0 and done.stdout.count('"worker"') >= 2:
            return address, started
        time.sleep(0.5)
    raise SystemExit("the cluster did not start: see cluster.log")


def stop_cluster(cluster: list[subprocess.Popen[bytes]], log: Path) -> None:
    """The workers first (they leave while their scheduler is there to hear it), then the
    scheduler; one that does not stop in 30 s is killed, with its log's end shown."""
    scheduler, *workers = cluster
    for role, group in (("a worker", workers), ("the scheduler", [scheduler])):
        for process in group:
            os.killpg(process.pid, signal.SIGTERM)
        for process in group:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                tail = log.read_text(errors="replace")[-3000:]
                print(f"{role} did not stop in 30 s: killed\n{tail}", file=sys.stderr)
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)


def run_tasks(root: Path, env: dict[str, str], count: int, on: str) -> float:
    """Wall time of ``count`` tasks started at once, until the last has ended."""
    start = time.perf_counter()
    runs = [
        subprocess.Popen(
            [CAESAR, "run", f"task {n}", "--agent", "jqagent", "--on", on, "--json"],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(count)
    ]
    failed = [r for r in runs if r.wait(timeout=600) != 0]  # outputs are small: pipes hold them
    elapsed = time.perf_counter() - start
    if failed:
        out, err = failed[0].communicate()
        said = (err + out).decode(errors="replace")[-3000:]
        raise SystemExit(f"{len(failed)} task(s) failed on {on}; the first said:\n{said}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    if shutil.which("jq") is None:
        raise SystemExit("the spec's agent needs jq")
    with tempfile.TemporaryDirectory(prefix="caesar-bench-remote-") as name:
        tmp = Path(name)
        env = environment(tmp)
        root = project(tmp, env)
        address, cluster = start_cluster(tmp, env)
        try:
            times: dict[str, list[float]] = {"local": [], "remote": []}
            run_tasks(root, env, 1, "local")  # warm-up; 4 remote tasks fill both workers' slots
            run_tasks(root, env, 4, address)
            for run in range(args.repeat):
                order = ("local", address) if run % 2 == 0 else (address, "local")
                for on in order:
                    took = run_tasks(root, env, 1, on)
                    times["local" if on == "local" else "remote"].append(took)
            here = run_tasks(root, env, args.tasks, "local")
            there = run_tasks(root, env, args.tasks, address)
        finally:
            stop_cluster(cluster, tmp / "cluster.log")
    local, remote = statistics.median(times["local"]), statistics.median(times["remote"])
    best_local, best_remote = min(times["local"]), min(times["remote"])
    ratio = remote / local
    print(
        f"remote: loopback cluster of 2 workers x 2 slots, medians of {args.repeat} "
        "alternating runs (best in brackets)"
    )
    print(
        f"  one task here (caesar run)                 {local * 1e3:8.0f} ms  "
        f"({best_local * 1e3:.0f} ms)"
    )
    print(
        f"  one task on the cluster (caesar run --on)  {remote * 1e3:8.0f} ms  "
        f"({best_remote * 1e3:.0f} ms)  ratio {ratio:.2f}x ({best_remote / best_local:.2f}x)"
        f"  (goal <= {GOAL}x)"
    )
    print(f"  {args.tasks} tasks here, max_parallel 4          {here:8.1f} s")
    print(
        f"  {args.tasks} tasks over 2 workers x 2 slots      {there:8.1f} s  "
        f"ratio {there / here:.2f}x"
    )
    return 1 if args.check and ratio > GOAL else 0


if __name__ == "__main__":
    raise SystemExit(main())
