"""Review benchmark: listing the hunks of a large diff and applying a selection of them, against
``git apply --3way`` of the same patch, measured in the same run.

A repository of 1,000 text files (200 lines each) gets one commit; a task worktree then changes
every tenth line of every file: 20 hunks a file, 20,000 in all. caesar lists them
(``changes_since(..., with_patch=True)``: each file's ``hunks`` with their ids) and applies
1,000 of them, one in each file (``apply_changes(..., picks=...)``: three-way, into the main
working tree). git does the same work its way: ``git diff <base>`` in the worktree lists the
hunks, and ``git apply --3way`` applies a patch holding the same 1,000 hunks to a second
checkout of the base. The two trees are then compared file by file. Each side runs
``--repeat`` times, alternating which goes first, the trees put back between runs and the disk
synced before each timing; medians are compared. Goal: caesar <= 1.5x git.

Run: ``.venv/bin/python benchmarks/review.py [--files N] [--repeat N] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from caesar_core.git import apply_changes, changes_since, create_worktree
from caesar_core.review.hunks import Pick

GOAL = 1.5
HUNKS_PER_FILE = 20
SPACING = 10
"""A change every tenth line: more than git's 3+3 lines of context apart, so one hunk each."""
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@caesar.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@caesar.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=GIT_ENV,
        check=True,
        capture_output=True,
        text=True,
        input=stdin,
    ).stdout


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def base_text(n: int) -> str:
    lines = HUNKS_PER_FILE * SPACING
    return "".join(f"line {j} of generated file {n}: some words to review\n" for j in range(lines))


def changed_text(n: int) -> str:
    lines = base_text(n).splitlines(keepends=True)
    for k in range(HUNKS_PER_FILE):
        j = k * SPACING + SPACING // 2
        lines[j] = f"line {j} of generated file {n}: changed by the agent ({k})\n"
    return "".join(lines)


def path_of(n: int) -> str:
    return f"d{n % 20:02d}/f{n:04d}.txt"


def number_of(path: str) -> int:
    return int(path.rsplit("/f", 1)[1].removesuffix(".txt"))


def make_repository(root: Path, files: int) -> Path:
    root.mkdir(parents=True)
    for n in range(files):
        target = root / path_of(n)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(base_text(n))
    (root / ".gitignore").write_text(".caesar/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    return root


def selected_text(n: int) -> str:
    """File ``n`` with only its change number ``n % HUNKS_PER_FILE`` made."""
    lines = base_text(n).splitlines(keepends=True)
    k = n % HUNKS_PER_FILE
    j = k * SPACING + SPACING // 2
    lines[j] = f"line {j} of generated file {n}: changed by the agent ({k})\n"
    return "".join(lines)


def selected_patch(checkout: Path, files: int) -> str:
    """The patch of the selected hunks, as git writes it (with the blob ids ``--3way``
    needs): the selected files written into ``checkout``, diffed, put back."""
    for n in range(files):
        (checkout / path_of(n)).write_text(selected_text(n))
    patch = git(checkout, "diff", "--full-index")
    git(checkout, "checkout", "-q", "--", ".")
    return patch


def make_task(tmp: Path, files: int) -> tuple[Path, Path, Path, str]:
    """The repository, the task's worktree with its changes committed, a second checkout of
    the base for git to apply into, and the base commit."""
    root = make_repository(tmp / "repo", files)
    base = git(root, "rev-parse", "HEAD").strip()
    worktree = root / ".caesar" / "wt" / "task"
    create_worktree(root, worktree, "caesar/bench-task")
    for n in range(files):
        (worktree / path_of(n)).write_text(changed_text(n))
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "agent work")
    theirs = tmp / "git-checkout"
    git(root, "worktree", "add", "-q", "--detach", str(theirs), base)
    return root, worktree, theirs, base


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="caesar-bench-") as tmp:
        root, worktree, theirs, base = make_task(Path(tmp), args.files)
        listed = changes_since(worktree, base, with_patch=True)
        every = [hunk for change in listed.files for hunk in change.hunks]
        chosen = [change.hunks[number_of(change.path) % HUNKS_PER_FILE] for change in listed.files]
        picks = [Pick(hunk.id) for hunk in chosen]
        patch = selected_patch(theirs, args.files)
        assert patch.count("\n@@ ") == len(picks)
        (Path(tmp) / "selected.patch").write_text(patch)

        counts: dict[str, int] = {}

        def caesar_list() -> None:
            diff = changes_since(worktree, base, with_patch=True)
            counts["caesar"] = sum(len(change.hunks) for change in diff.files)

        def git_list() -> None:
            out = git(worktree, "diff", base)
            counts["git"] = out.count("\n@@ ")

        def caesar_apply() -> None:
            result = apply_changes(root, worktree, base, picks=picks)
            assert result.applied and len(result.written) == args.files

        def git_apply() -> None:
            git(theirs, "apply", "--3way", str(Path(tmp) / "selected.patch"))

        def put_back() -> None:
            git(root, "checkout", "-q", "--", ".")
            git(theirs, "reset", "-q", "--hard", base)

        times: dict[str, list[float]] = {k: [] for k in ("cl", "ca", "gl", "ga")}
        same = True

        def measure(key: str, run: Callable[[], object]) -> None:
            os.sync()  # earlier writes' writeback must not land in this timing
            times[key].append(timed(run))

        for n in range(args.repeat):  # alternating who goes first, so drift hits both alike
            sides = [("g", git_list, git_apply), ("c", caesar_list, caesar_apply)]
            for side, listing, applying in sides if n % 2 == 0 else sides[::-1]:
                measure(side + "l", listing)
                measure(side + "a", applying)
            same = same and all(
                (root / path_of(n)).read_bytes() == (theirs / path_of(n)).read_bytes()
                for n in range(args.files)
            )
            put_back()

        med = {key: statistics.median(values) for key, values in times.items()}
        ours, baseline = med["cl"] + med["ca"], med["gl"] + med["ga"]
        ratio = ours / baseline
        agree = same and counts["caesar"] == counts["git"] == len(every)
        print(
            f"review: {args.files:,} files, {len(every):,} hunks listed, {len(picks):,} applied "
            f"(one per file); results agree: {agree}"
        )
        print(f"  git diff (list)           {med['gl'] * 1e3:8.1f} ms")
        print(f"  git apply --3way          {med['ga'] * 1e3:8.1f} ms")
        print(f"  caesar list hunks         {med['cl'] * 1e3:8.1f} ms")
        print(f"  caesar apply --hunk       {med['ca'] * 1e3:8.1f} ms")
        print(
            f"  caesar {ours * 1e3:.1f} ms vs git {baseline * 1e3:.1f} ms (medians of "
            f"{args.repeat}): ratio {ratio:.2f}x  (goal <= {GOAL}x)"
        )
    return 1 if args.check and (ratio > GOAL or not agree) else 0


if __name__ == "__main__":
    raise SystemExit(main())
