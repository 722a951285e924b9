"""Worktree creation benchmark: ``create_worktree`` against ``git worktree add``, same run.

Both create a linked worktree on a new branch at HEAD of the 20,000-file repository of
``reconcile.py``, in a fresh destination each run; the two alternate so that the machine's
drift hits both alike, and new files are flushed to disk between runs, untimed. Worktrees
are removed after the last run, not between runs: on ext4, creating files right after a
mass deletion scans the recently deleted inodes (``recently_deleted``), which made whichever
contender ran next up to 10x slower.

Goal: ``create_worktree`` <= 1.2x ``git worktree add -b <branch> <dir> HEAD`` (best
of 3 each).

Run: ``.venv/bin/python benchmarks/spawn.py [--files N] [--repeat N] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reconcile import git, make_repository

from caesar_core.git import create_worktree, remove_worktree
from caesar_core.git.checkout import filters_are_noops

GOAL = 1.2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as tmp:
        root = make_repository(Path(tmp) / "repo", args.files)
        wt = root / ".caesar" / "wt"
        times: dict[str, list[float]] = {"cli": [], "ours": []}
        created: list[tuple[str, Path, str]] = []

        def cli(run: int) -> None:
            dest, branch = wt / f"cli-{run}", f"bench/cli-{run}"
            start = time.perf_counter()
            git(root, "worktree", "add", "-q", "-b", branch, str(dest), "HEAD")
            times["cli"].append(time.perf_counter() - start)
            created.append(("cli", dest, branch))

        def ours(run: int) -> None:
            dest, branch = wt / f"ours-{run}", f"caesar/bench-{run}"
            start = time.perf_counter()
            create_worktree(root, dest, branch)
            times["ours"].append(time.perf_counter() - start)
            created.append(("ours", dest, branch))

        os.sync()
        for run in range(args.repeat):
            for contender in (cli, ours) if run % 2 == 0 else (ours, cli):
                contender(run)
                os.sync()  # ~170 MB of new files: their writeback is nobody's timing
        for who, dest, branch in created:
            if who == "cli":
                git(root, "worktree", "remove", "--force", str(dest))
                git(root, "branch", "-D", branch)
            else:
                remove_worktree(root, dest, branch)
        cli_times, our_times = times["cli"], times["ours"]

        import pygit2

        opened = pygit2.Repository(str(root))
        fast = filters_are_noops(opened, opened.head.peel(pygit2.Tree))
        baseline, measured = min(cli_times), min(our_times)
        ratio = measured / baseline
        print(f"spawn: {args.files:,}-file repository, best of {args.repeat}")
        print(f"  git worktree add -b <branch> <dir> HEAD   {baseline * 1e3:8.1f} ms")
        print(
            f"  create_worktree                           {measured * 1e3:8.1f} ms  "
            f"ratio {ratio:.2f}x  (goal <= {GOAL}x; unfiltered checkout: {fast})"
        )
    return 1 if args.check and ratio > GOAL else 0


if __name__ == "__main__":
    raise SystemExit(main())
