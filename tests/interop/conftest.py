"""The reference implementation's task directories, records and worktrees, rebuilt for a test.

``tests/fixtures/reference/recorded`` holds what the reference (Koumalabs/caesar) wrote in a
throwaway repository (see that folder's README.md). A worktree is git state, so it is kept as
patches on its base commit: the repository's first commit is made again from the recorded
files (same content, author and dates: the same commit id), each worktree is added on its
branch and the patches applied, and every recorded path and commit id is relocated to the
test's directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "reference" / "recorded"
REQUIREMENTS = RECORDED.parent / "record-requirements.schema.json"
TASK_SCHEMA = RECORDED.parent / "task.schema.json"
_FIXED = "2026-08-20T10:00:00Z"
_RECORDER = {
    "GIT_AUTHOR_NAME": "rec",
    "GIT_AUTHOR_EMAIL": "rec@example.invalid",
    "GIT_COMMITTER_NAME": "rec",
    "GIT_COMMITTER_EMAIL": "rec@example.invalid",
    "GIT_AUTHOR_DATE": _FIXED,
    "GIT_COMMITTER_DATE": _FIXED,
}


def recorded_ids() -> dict[str, str]:
    """``root``, and each recorded task's id by its kind (worktree, inplace, failed...)."""
    lines = (RECORDED / "ids").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CAESAR_"))}
    env.update(_RECORDER)
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, check=True, env=env
    )
    return done.stdout.decode()


@dataclass(frozen=True)
class ReferenceProject:
    """A repository as the reference left it: ``ids`` by kind, plus ``imposed`` ids."""

    root: Path
    ids: dict[str, str]

    def record(self, task_id: str) -> dict[str, object]:
        path = self.root / ".caesar" / "state" / "tasks" / f"{task_id}.json"
        data: dict[str, object] = json.loads(path.read_text())
        return data

    def write_record(self, task_id: str, record: dict[str, object]) -> None:
        path = self.root / ".caesar" / "state" / "tasks" / f"{task_id}.json"
        path.write_text(json.dumps(record, indent=2) + "\n")

    def worktree(self, task_id: str) -> Path:
        return self.root / ".caesar" / "wt" / task_id


IMPOSED_IDS = ("t_imposed", "fix-login.2")
"""Ids the reference's callers imposed (its CLI generates ``t_`` + 32 hex)."""


def build_reference_project(base: Path) -> ReferenceProject:
    ids = recorded_ids()
    old_root = ids.pop("root")
    ids.pop("runner_pid", None)
    root = base / "repo"
    root.mkdir(parents=True)
    for source in sorted((RECORDED / "repo").rglob("*")):
        if source.is_file():
            rel = source.relative_to(RECORDED / "repo")
            dest = root.joinpath(*(p.replace("dot-", ".", 1) for p in rel.parts))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    old_head = (RECORDED / "repo.HEAD").read_text().strip()
    head = git(root, "rev-parse", "HEAD").strip()

    def relocated(text: str) -> str:
        return text.replace(old_root, str(root)).replace(old_head, head)

    state = root / ".caesar" / "state" / "tasks"
    state.mkdir(parents=True)
    for source in sorted((RECORDED / "records").glob("*.json")):
        (state / source.name).write_text(relocated(source.read_text()))
    for task in sorted((RECORDED / "tasks").iterdir()):
        dest = root / ".caesar" / "tasks" / task.name
        dest.mkdir(parents=True)
        for source in task.iterdir():
            (dest / source.name).write_text(relocated(source.read_text()))
    for branch_file in sorted((RECORDED / "worktrees").glob("*.branch")):
        task_id = branch_file.name.removesuffix(".branch")
        worktree = root / ".caesar" / "wt" / task_id
        git(root, "worktree", "add", "-q", "-b", branch_file.read_text().strip(), str(worktree))
        committed = (RECORDED / "worktrees" / f"{task_id}.committed.patch").read_bytes()
        if committed:
            git(worktree, "am", "-q", stdin=committed)
        uncommitted = (RECORDED / "worktrees" / f"{task_id}.uncommitted.patch").read_bytes()
        if uncommitted:
            git(worktree, "apply", stdin=uncommitted)
    running = ids["running"]
    record = json.loads((state / f"{running}.json").read_text())
    record.pop("pid", None)  # the recorded pid is someone else's now: a test names its own
    (state / f"{running}.json").write_text(json.dumps(record, indent=2) + "\n")
    return ReferenceProject(root, ids)


@pytest.fixture
def reference_project(tmp_path: Path) -> Iterator[ReferenceProject]:
    yield build_reference_project(tmp_path)


def write_reference_lease(project: ReferenceProject, task_id: str, pid: int) -> None:
    """The lease the reference's runner holds on a task while it drives it."""
    import hashlib

    digest = hashlib.sha256(task_id.encode()).hexdigest()
    lease = project.root / ".caesar" / "state" / "worktrees-in-use" / f"{digest}.lock"
    lease.mkdir(parents=True, exist_ok=True)
    (lease / "marker.json").write_text(json.dumps({"pid": pid, "token": "test"}) + "\n")
