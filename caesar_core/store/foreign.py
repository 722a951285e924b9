"""Records the reference implementation (Koumalabs/caesar) writes, read as caesar's own.

Both write ``.caesar/state/tasks/<id>.json``, but the reference's record names neither the
worktree nor the commit it started from: under worktree isolation its ``workspace`` *is* the
worktree, and the base commit is only in the task's ``task.json`` (``base_ref``). Its record
has ``task_dir``, ``report_via`` and ``applied_patch_digest`` where caesar's has its layout,
``report_tier`` and ``applied_digest``. :func:`complete` fills what caesar needs from those in
a record without caesar's ``protocol`` key: the reference's, or one of caesar's that the
reference rewrote (its store keeps only the keys it knows). A field that is there is never
changed.

The reference also keeps a lease per running task, ``.caesar/state/worktrees-in-use/
<sha256(id)>.lock/marker.json`` naming its runner's pid: :func:`reference_runner` tells from it
whether a reference process is still driving a task (and will write its ending).

``task.json`` is in the task directory, which the agent can write: it is read through
:mod:`caesar_core.safefs` and only a full commit id is taken from it (never ``HEAD``, which
moves as the agent commits). Stdlib only, as the rest of the store's reading.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from caesar_core import safefs
from caesar_core.layout import CAESAR_DIR, STATE_DIR
from caesar_core.store.record import TaskRecord

REFERENCE_LEASES = "worktrees-in-use"
"""The reference's per-task leases, under ``.caesar/state/``."""
REPORT_TIERS = ("channel", "schema", "file")
"""The reference's ``report_via`` values, which are caesar's ``report_tier`` values."""
DERIVED_KEYS = ("task_dir", "report_via", "applied_patch_digest")
"""The reference's names, which the store writes (``TaskStore._encode``) from caesar's layout,
``report_tier`` and ``applied_digest`` (both are sha256 of the same ``git diff`` text): read into
those, never kept as they were."""
_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_TASK_FILE_LIMIT = 1 << 20


def complete(record: TaskRecord, *, root: Path, tasks_dir: Path) -> TaskRecord:
    """``record`` with what a reference record lacks filled in (see the module's docstring);
    ``record`` itself when nothing is missing. ``root`` is the project (caesar's root, where
    the reference applies a task's diff), ``tasks_dir`` its ``.caesar/tasks``."""
    extra: dict[str, Any] = record.model_extra or {}
    written = {key: extra.pop(key) for key in DERIVED_KEYS if key in extra}
    if caesars_own(record):
        return record
    fields: dict[str, object] = {}
    if record.isolation.value == "worktree":
        if record.worktree_path is None:
            worktree = worktree_of(record.workspace, root)
            if worktree is not None:
                fields["worktree_path"] = worktree
        if record.base_ref is None:
            base = base_from_task_file(tasks_dir, record.id)
            if base is not None:
                fields["base_ref"] = base
        if record.source_workspace is None:
            fields["source_workspace"] = str(root)
    digest = written.get("applied_patch_digest")
    if record.applied_digest is None and isinstance(digest, str) and digest:
        # The reference's digest is of its own patch text: when caesar's differs, the
        # worktree looks unapplied and is kept, never removed on a wrong match.
        fields["applied_digest"] = digest
    via = written.get("report_via")
    if record.report_tier is None and via in REPORT_TIERS:
        fields["report_tier"] = via
    return record.model_copy(update=fields) if fields else record


def caesars_own(record: TaskRecord) -> bool:
    """Whether caesar wrote the record as it is: the reference drops ``protocol`` when it
    rewrites one, and never writes it in its own."""
    return "protocol" in record.model_fields_set


def worktree_of(workspace: str, root: Path) -> str | None:
    """``workspace`` when it is a task worktree of this project: ``<repo>/.caesar/wt/<name>``,
    the repository being ``root`` or a directory above it (the reference makes its worktrees
    under the git root), reached without a symbolic link; else None."""
    path = Path(workspace)
    if not path.is_absolute() or path.parent.name != "wt" or path.parent.parent.name != CAESAR_DIR:
        return None
    project = path.parent.parent.parent
    try:
        real_project = project.resolve()
        if real_project != root.resolve() and real_project not in root.resolve().parents:
            return None
        if path.parent.resolve() != real_project / CAESAR_DIR / "wt" or path.is_symlink():
            return None
    except OSError:
        return None
    return str(path)


def base_from_task_file(tasks_dir: Path, task_id: str) -> str | None:
    """The full commit id ``task.json`` names as ``base_ref``, or None (no file, unreadable,
    hostile, no such field, or not a full commit id)."""
    try:
        task = safefs.read_json(tasks_dir, f"{task_id}/task.json", limit=_TASK_FILE_LIMIT)
    except (OSError, ValueError):
        return None
    base = task.get("base_ref") if isinstance(task, dict) else None
    return base if isinstance(base, str) and _COMMIT_ID.fullmatch(base) else None


def lease_path(task_id: str) -> str:
    """Where the reference keeps a task's lease, relative to ``.caesar/state``."""
    digest = hashlib.sha256(task_id.encode()).hexdigest()
    return f"{REFERENCE_LEASES}/{digest}.lock/marker.json"


def reference_runner(root: Path, task_id: str) -> int | None:
    """The pid of the reference process driving ``task_id``, when its lease names one that is
    alive on this machine; None when there is no lease, an unreadable one, or a dead holder."""
    try:
        marker = safefs.read_json(root / CAESAR_DIR / STATE_DIR, lease_path(task_id), limit=4096)
    except (OSError, ValueError):
        return None
    pid = marker.get("pid") if isinstance(marker, dict) else None
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    except OSError:
        return None
    return pid
