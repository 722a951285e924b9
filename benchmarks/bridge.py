"""Hook-path benchmark: a whole ``caesar bridge`` pre-tool process against ``python -c pass``.

``caesar bridge`` runs once per tool call of an agent, so what counts is the whole process:
interpreter start, imports, reading the admission, deciding, appending to the trace. One
admission is begun in a state directory under a temporary directory, then pre-tool calls
(each a new ``caesar bridge`` process, the request on stdin) alternate with ``python -c pass``
of the same interpreter so that the machine's drift hits both alike. Both run with bytecode
caching on (as an installed package has it), after one untimed warm-up each.

Goal: median ``caesar bridge`` pre-tool <= 3.0x median ``python -c pass``.

Run: ``.venv/bin/python benchmarks/bridge.py [--repeat N] [--check]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL = 3.0
CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stderr.decode()}")
    return elapsed


def pre_tool_request(project: Path, env: dict[str, str]) -> bytes:
    """An admission begun for ``project``, and a pre-tool request of it (``git status``)."""
    begin = {"op": "begin", "client": "claude-code", "prompt": "list the files"}
    begin |= {"project": str(project), "integration_mode": "project_hook"}
    done = subprocess.run(
        [CAESAR, "bridge"],
        input=json.dumps(begin).encode(),
        capture_output=True,
        env=env,
        check=True,
    )
    admission = json.loads(done.stdout)["admission_id"]
    request = {"op": "pre-tool", "admission_id": admission, "tool": "Bash"}
    request |= {"tool_input": {"command": "git status"}, "tool_use_id": "toolu_1"}
    return json.dumps(request).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(CAESAR_STATE_DIR=str(Path(tmp) / "state"), XDG_CONFIG_HOME=str(Path(tmp)))
        project = Path(tmp) / "project"
        project.mkdir()
        pre_tool = pre_tool_request(project, env)
        bridge_cmd, pass_cmd = [CAESAR, "bridge"], [sys.executable, "-c", "pass"]
        timed(bridge_cmd, pre_tool, env)  # warm-up: bytecode written, caches filled
        timed(pass_cmd, b"", env)
        times: dict[str, list[float]] = {"pass": [], "bridge": []}
        for run in range(args.repeat):
            order = ("pass", "bridge") if run % 2 == 0 else ("bridge", "pass")
            for who in order:
                command, stdin = (pass_cmd, b"") if who == "pass" else (bridge_cmd, pre_tool)
                times[who].append(timed(command, stdin, env))
        baseline, measured = statistics.median(times["pass"]), statistics.median(times["bridge"])
        ratio = measured / baseline
        print(f"bridge: whole-process pre-tool call, median of {args.repeat}")
        print(f"  python -c pass             {baseline * 1e3:8.1f} ms")
        print(
            f"  caesar bridge (pre-tool)   {measured * 1e3:8.1f} ms  "
            f"ratio {ratio:.2f}x  (goal <= {GOAL}x)"
        )
    return 1 if args.check and ratio > GOAL else 0


if __name__ == "__main__":
    raise SystemExit(main())
