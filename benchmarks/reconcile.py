"""Reconciliation benchmark: ``changes_since`` against the git CLI, measured in the same run.

A repository of 20,000 small text files in nested directories gets one commit; a task
worktree of it then receives 1,000 changes: committed on top (modifications, deletions,
renames), staged, unstaged and untracked (plus ignored files that must not count). The same
changes are made in a second worktree where the git CLI answers the same question:
``git add -A -N`` then ``git diff --name-status -M <base>``. Goal: ``changes_since`` <= 1.0x
the CLI (best of 3 each, interleaved).

Run: ``.venv/bin/python benchmarks/reconcile.py [--files N] [--changes N] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from caesar_core.git import changes_since, create_worktree

GOAL = 1.0
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@caesar.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@caesar.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
LETTERS = {"created": "A", "modified": "M", "deleted": "D", "renamed": "R"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


def best_of(repeat: int, run: Callable[[], object]) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return min(timings)


def file_text(n: int) -> str:
    return "".join(f"line {j} of generated file {n}: some words to diff\n" for j in range(20))


def make_repository(root: Path, files: int) -> Path:
    """``files`` text files in ``dNN/sNN/`` directories, committed once with the git CLI."""
    root.mkdir(parents=True)
    for n in range(files):
        folder = root / f"d{n % 20:02d}" / f"s{(n // 20) % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n:05d}.txt").write_text(file_text(n))
    (root / ".gitignore").write_text(".caesar/\n*.log\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    return root


def make_changes(worktree: Path, changes: int) -> None:
    """``changes`` changes: 40% committed, 20% staged, 20% unstaged, 20% untracked."""
    files = sorted(worktree.glob("d*/s*/f*.txt"))
    committed, staged, unstaged, untracked = (
        changes * 30 // 100,
        changes // 5,
        changes // 5,
        changes // 5,
    )
    deleted = renamed = changes // 20
    cursor = 0

    def take(count: int) -> list[Path]:
        nonlocal cursor
        chosen = files[cursor : cursor + count]
        cursor += count
        return chosen

    for n, path in enumerate(take(committed)):
        path.write_text(path.read_text() + f"committed change {n}\n")
    for path in take(deleted):
        path.unlink()
    for path in take(renamed):
        path.rename(path.with_name(f"renamed-{path.name}"))
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "agent work")
    for n, path in enumerate(take(staged)):
        path.write_text(path.read_text() + f"staged change {n}\n")
    git(worktree, "add", "-A")
    for n, path in enumerate(take(unstaged)):
        path.write_text(f"unstaged change {n}\n" + path.read_text())
    fresh = worktree / "new-work"
    fresh.mkdir()
    for n in range(untracked):
        (fresh / f"new-{n:04d}.txt").write_text(f"new file {n}\n" * 5)
    for n in range(50):
        (fresh / f"ignored-{n:02d}.log").write_text("ignored\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--changes", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as tmp:
        root = make_repository(Path(tmp) / "repo", args.files)
        base = git(root, "rev-parse", "HEAD").strip()
        ours_wt = root / ".caesar" / "wt" / "ours"
        create_worktree(root, ours_wt, "caesar/bench-ours")
        cli_wt = Path(tmp) / "cli"
        git(root, "worktree", "add", "-q", "-b", "bench-cli", str(cli_wt), "HEAD")
        for worktree in (ours_wt, cli_wt):
            make_changes(worktree, args.changes)

        found: dict[str, set[tuple[str, str]]] = {}

        def ours() -> None:
            diff = changes_since(ours_wt, base)
            found["ours"] = {(LETTERS[c.action.value], c.path) for c in diff.files}

        def cli() -> None:
            git(cli_wt, "add", "-A", "-N")
            out = git(cli_wt, "diff", "--name-status", "-M", base)
            found["cli"] = {
                (line[0], line.split("\t")[-1]) for line in out.splitlines() if line.strip()
            }

        cli_times: list[float] = []
        our_times: list[float] = []
        os.sync()  # the setup's writeback must not land in anyone's timing
        for _ in range(args.repeat):  # interleaved, so the machine's drift hits both alike
            cli_times.append(best_of(1, cli))
            our_times.append(best_of(1, ours))
        baseline, measured = min(cli_times), min(our_times)
        ratio = measured / baseline
        agree = found["ours"] == found["cli"]
        print(
            f"reconcile: {args.files:,} files, {len(found['ours']):,} changes "
            f"(committed, staged, unstaged, untracked); results agree: {agree}"
        )
        print(f"  git add -A -N + git diff --name-status -M   {baseline * 1e3:8.1f} ms")
        print(
            f"  changes_since                               {measured * 1e3:8.1f} ms  "
            f"ratio {ratio:.2f}x  (goal <= {GOAL}x)"
        )
    return 1 if args.check and (ratio > GOAL or not agree) else 0


if __name__ == "__main__":
    raise SystemExit(main())
