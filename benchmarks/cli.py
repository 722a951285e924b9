"""Whole-process benchmark of caesar's entry points, each against a baseline of the same run.

Every row is a command timed from outside, as a user or a main agent starts it: interpreter
start, imports, the work, exit. Each row alternates its contender with its baseline (A B A B
…, after one untimed warm-up of each, bytecode cached as an installed package has it) and
compares the medians, so the machine's drift hits both alike:

======================================================  ===================================
caesar                                                   baseline
======================================================  ===================================
``caesar --version``                                     ``python -c pass``
``caesar protocol schema report --strict``               ``python -c pass``
``caesar ps --all`` (20 tasks)                           ``python -c pass``
``caesar run`` of the spec's bash+jq agent (read-only)   the agent alone, same environment
``caesar diff ID --json`` (20,000 files, 1,000 changes)  ``git add -A -N`` + ``git diff`` on a copy
``caesar logs ID --json`` (200,000 events)               a ``json.loads`` loop over the lines
``caesar bridge`` pre-tool                               ``python -c pass``
``caesar hook claude-code`` PreToolUse                   ``python -c pass``
======================================================  ===================================

Run: ``.venv/bin/python benchmarks/cli.py [--repeat N] [--only NAME …] [--check]``.
``--check`` exits 1 when a row misses its goal.
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
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _eventdata import event_log
from bridge import pre_tool_request
from reconcile import GIT_ENV, git, make_changes, make_repository

CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
HOOK_FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hooks"

JQ_AGENT = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    objective=$(jq -r .objective "$CAESAR_TASK_FILE")
    jq -n --arg s "Handled: $objective" '{
      protocol: "caesar.report/v1",
      status: "success",
      summary: $s
    }' > "$CAESAR_REPORT_PATH"
    """
)


@dataclass(frozen=True)
class Command:
    """One process to time: its argv, stdin and working directory."""

    argv: Sequence[str]
    cwd: Path
    stdin: bytes = b""
    before: Callable[[], object] | None = None
    """Untimed preparation before each run (a fresh copy, a reset)."""


@dataclass(frozen=True)
class Row:
    name: str
    measure: str
    caesar: Command
    baseline: Command
    baseline_name: str
    goal: float


def timed(command: Command, env: dict[str, str]) -> float:
    if command.before is not None:
        command.before()
    start = time.perf_counter()
    done = subprocess.run(
        list(command.argv),
        input=command.stdin,
        cwd=command.cwd,
        capture_output=True,
        env=env,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command.argv)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed


def measure(row: Row, env: dict[str, str], repeat: int) -> tuple[float, float]:
    timed(row.caesar, env)  # warm-up: bytecode written, page cache filled
    timed(row.baseline, env)
    times: dict[str, list[float]] = {"caesar": [], "baseline": []}
    for run in range(repeat):
        order = ("baseline", "caesar") if run % 2 == 0 else ("caesar", "baseline")
        for who in order:
            times[who].append(timed(row.caesar if who == "caesar" else row.baseline, env))
    return statistics.median(times["baseline"]), statistics.median(times["caesar"])


def write_agent(dest: Path, project: Path) -> Path:
    script = dest / "jqagent.sh"
    script.write_text(JQ_AGENT)
    script.chmod(0o755)
    config = project / ".caesar" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[[agent]]\nid = "jqagent"\nbin = "{script}"\nargs = "{{{{prompt}}}}"\n')
    return script


def small_project(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def caesar_json(cwd: Path, env: dict[str, str], *args: str) -> dict[str, object]:
    done = subprocess.run(
        [CAESAR, *args, "--json"], cwd=cwd, env=env, capture_output=True, check=False
    )
    if not done.stdout:
        raise SystemExit(f"caesar {' '.join(args)} failed: {done.stderr.decode()}")
    loaded: dict[str, object] = json.loads(done.stdout)
    return loaded


def agent_alone(tmp: Path, script: Path) -> Command:
    """The jq agent run by hand with the variables caesar would give it."""
    task = tmp / "alone"
    task.mkdir()
    (task / "task.json").write_text(
        json.dumps({"protocol": "caesar.task/v1", "objective": "Fix the parser"})
    )
    env_args = [
        f"CAESAR_TASK_FILE={task / 'task.json'}",
        f"CAESAR_REPORT_PATH={task / 'report.json'}",
    ]
    return Command(["env", *env_args, str(script), "Fix the parser"], tmp)


def build_rows(tmp: Path, env: dict[str, str], only: set[str]) -> list[Row]:
    rows: list[Row] = []
    python_pass = Command([sys.executable, "-c", "pass"], tmp)

    def wanted(name: str) -> bool:
        return not only or name in only

    if wanted("version"):
        rows.append(
            Row("version", "`caesar --version`", Command([CAESAR, "--version"], tmp),
                python_pass, "python -c pass", 3.0)
        )  # fmt: skip
    if wanted("schema"):
        argv = [CAESAR, "protocol", "schema", "report", "--strict"]
        rows.append(
            Row("schema", "`caesar protocol schema report --strict`", Command(argv, tmp),
                python_pass, "python -c pass", 4.0)
        )  # fmt: skip
    if wanted("ps") or wanted("run"):
        project = small_project(tmp / "small")
        script = write_agent(tmp, project)
        if wanted("ps"):
            for n in range(20):
                caesar_json(project, env, "run", f"task {n}", "--agent", "jqagent")
            rows.append(
                Row("ps", "`caesar ps --all` (20 tasks)",
                    Command([CAESAR, "ps", "--all"], project), python_pass,
                    "python -c pass", 4.0)
            )  # fmt: skip
        if wanted("run"):
            argv = [CAESAR, "run", "Fix the parser", "--agent", "jqagent", "--mode", "read-only"]
            rows.append(
                Row("run", "`caesar run` of the spec's bash+jq agent (read-only)",
                    Command(argv, project), agent_alone(tmp, script), "the agent alone", 4.0)
            )  # fmt: skip
    if wanted("diff"):
        rows.append(diff_row(tmp, env))
    if wanted("logs"):
        rows.append(logs_row(tmp, env))
    if wanted("bridge") or wanted("hook"):
        rows.extend(hook_rows(tmp, env, python_pass, wanted))
    return rows


def diff_row(tmp: Path, env: dict[str, str]) -> Row:
    """A task whose worktree holds 1,000 changes in a 20,000-file repository."""
    root = make_repository(tmp / "big", 20_000)
    write_agent(tmp, root)
    out = caesar_json(
        root, env, "run", "big change", "--agent", "jqagent", "--isolation", "worktree"
    )
    task_id, worktree = str(out["task_id"]), Path(str(out["workspace"]))
    task_file = root / ".caesar" / "tasks" / task_id / "task.json"
    base = str(json.loads(task_file.read_text())["base_ref"])
    make_changes(worktree, 1_000)
    copy = tmp / "copy"

    def fresh_copy() -> None:
        shutil.rmtree(copy, ignore_errors=True)
        git(root, "worktree", "prune")
        git(root, "worktree", "add", "-q", "--detach", str(copy), base)
        make_changes(copy, 1_000)

    baseline = Command(
        ["sh", "-c", f"git add -A -N && git diff {base} > /dev/null"], copy, before=fresh_copy
    )
    fresh_copy()
    return Row(
        "diff", "`caesar diff ID --json`, 20,000 files / 1,000 changes",
        Command([CAESAR, "diff", task_id, "--json"], root), baseline,
        "git add -A -N && git diff <base> on a copy", 1.2,
    )  # fmt: skip


def logs_row(tmp: Path, env: dict[str, str]) -> Row:
    """A task whose event log holds 200,000 events."""
    project = small_project(tmp / "logs")
    write_agent(tmp, project)
    out = caesar_json(project, env, "run", "log", "--agent", "jqagent")
    task_id = str(out["task_id"])
    log = project / ".caesar" / "tasks" / task_id / "events.jsonl"
    log.write_bytes(event_log(200_000, task_id=task_id))
    loop = f"import json\nfor line in open({str(log)!r}, 'rb'):\n    json.loads(line)\n"
    return Row(
        "logs", "`caesar logs ID --json`, 200,000 events",
        Command([CAESAR, "logs", task_id, "--json"], project),
        Command([sys.executable, "-c", loop], tmp), "a json.loads loop over the lines", 1.5,
    )  # fmt: skip


def hook_rows(
    tmp: Path, env: dict[str, str], python_pass: Command, wanted: Callable[[str], bool]
) -> list[Row]:
    project = tmp / "hooked"
    project.mkdir()
    rows: list[Row] = []
    if wanted("bridge"):
        rows.append(
            Row("bridge", "`caesar bridge` pre-tool",
                Command([CAESAR, "bridge"], project, pre_tool_request(project, env)),
                python_pass, "python -c pass", 2.0)
        )  # fmt: skip
    if wanted("hook"):
        payload = json.loads((HOOK_FIXTURES / "claude-code" / "pre_tool_bash.json").read_text())
        payload["cwd"] = str(project)
        rows.append(
            Row("hook", "`caesar hook claude-code` PreToolUse",
                Command([CAESAR, "hook", "claude-code"], project, json.dumps(payload).encode()),
                python_pass, "python -c pass", 2.0)
        )  # fmt: skip
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--only", nargs="*", default=[], help="rows by name (version, …)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    missed = 0
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as name:
        tmp = Path(name)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CAESAR_", "CLAUDE_"))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(GIT_ENV)
        env.update(CAESAR_STATE_DIR=str(tmp / "state"), XDG_CONFIG_HOME=str(tmp / "xdg"))
        rows = build_rows(tmp, env, set(args.only))
        print(f"cli: whole-process entry points, medians of {args.repeat} alternating runs")
        for row in rows:
            baseline, measured = measure(row, env, args.repeat)
            ratio = measured / baseline
            ok = ratio <= row.goal
            missed += not ok
            print(
                f"  {row.measure}\n"
                f"      {row.baseline_name}: {baseline * 1e3:8.1f} ms   caesar: "
                f"{measured * 1e3:8.1f} ms   ratio {ratio:5.2f}x  (goal <= {row.goal}x) "
                f"{'ok' if ok else 'MISSED'}"
            )
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
