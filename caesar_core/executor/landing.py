"""What comes back from a worker, written here as if the task had run here.

Everything a worker sends is untrusted. The log's lines are appended as they came (readers
count a bad line, as they do of any agent's); questions are written only when they parse as
questions; the work is fetched from the bundle as ``refs/caesar/<task id>`` alone, every object
checked, and checked out into the task's worktree here (a new one for a first turn, the
chain's for a follow-up), so ``caesar diff``, ``apply``, hunk review, ``gc`` and ``continue``
work unchanged; the task directory's files are written through :mod:`caesar_core.safefs`;
``task.json`` and the report are validated and rewritten with this machine's paths.

A result is applied once: its digest is kept in the record, and the same result transferred
again changes nothing.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from caesar_core import safefs
from caesar_core.errors import CaesarError
from caesar_core.executor import bundle
from caesar_core.executor.shepherd_state import remote_dir
from caesar_core.executor.wire import Job, Result
from caesar_core.fs import dump_json
from caesar_core.protocol.documents import write_concluded_report
from caesar_core.protocol.event import Finished
from caesar_core.protocol.mailbox import QUESTION_ADAPTER
from caesar_core.protocol.parse import parse
from caesar_core.protocol.report import REPORT_ADAPTER, Finding, Report, ReportStatus, Severity
from caesar_core.protocol.task import TASK_ADAPTER
from caesar_core.protocol.versions import REPORT_V1, DocumentKind
from caesar_core.reclaim import claim_write
from caesar_core.runner.closing import write_ending
from caesar_core.store.record import ReportSource, TaskRecord, TaskStatus
from caesar_core.store.store import TaskStore

EVENTS = "events.jsonl"
NOT_FILES = {EVENTS, "task.json", "report.json"}


def append_events(store: TaskStore, task_id: str, data: bytes) -> None:
    """The worker's new log lines, appended in one write each batch."""
    if not data:
        return
    fd = safefs.open_append(store.paths(task_id).root, EVENTS)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def log_size(store: TaskStore, task_id: str) -> int:
    try:
        return safefs.lstat(store.paths(task_id).root, EVENTS).st_size
    except OSError:
        return 0


def mirror_questions(store: TaskStore, task_id: str, questions: dict[str, bytes]) -> int:
    """Questions asked on the worker, written here when new and valid; how many were not."""
    root = store.paths(task_id).root
    refused = 0
    for question_id, data in questions.items():
        try:
            asked = parse(QUESTION_ADAPTER, data)
            if asked.id != question_id:
                raise ValueError("its id is not its file's name")
            safefs.create_exclusive(root, f"questions/{question_id}.json", data)
        except FileExistsError:
            continue
        except (CaesarError, OSError, ValueError):
            refused += 1
    return refused


def land(store: TaskStore, task_id: str, job: Job, result: Result) -> None:
    """Apply ``result`` here, once."""
    digest = result.digest()
    record = store.get(task_id)
    if record.executor is not None and record.executor.result_digest == digest:
        settle(store, task_id)
        return
    findings: list[Finding] = []
    fields: dict[str, object] = {}
    try:
        fields.update(_land_work(store, record, job, result))
    except (CaesarError, OSError) as error:
        why = error.reason if isinstance(error, CaesarError) else str(error)
        findings.append(_finding("Work not brought back", why))
    if result.problem:
        findings.append(_finding("Worker's note", result.problem))
    refused = _land_files(store, task_id, result)
    if refused:
        findings.append(
            _finding(
                "Files refused",
                f"{refused} file(s) of the task directory that came back were not written "
                "(unsafe name or place).",
                Severity.LOW,
            )
        )
    task_file = _task_file(store, task_id, result)
    if task_file is not None:
        claim_write(store.paths(task_id).root, "task.json", task_file)
    report = _report(task_id, result, findings)
    write_concluded_report(store.paths(task_id).report, report)
    view = result.record
    facts = view.facts() if view is not None else {}
    facts.update(fields)
    facts["report_status"] = report.status
    reason: str | None
    if view is None or not view.status.terminal:
        reason = result.problem or "the worker sent back no conclusion"
        status = TaskStatus.FAILED
        facts.setdefault("report_source", ReportSource.SYNTHESIZED)
    else:
        status, reason = view.status, view.ended_reason
    if view is not None and view.started_at is not None:
        facts.setdefault("started_at", view.started_at)
    facts.pop("ended_reason", None)
    ended_at = view.ended_at if view is not None else None
    _, ours = store.conclude(task_id, status, now=ended_at, ended_reason=reason, **facts)
    if not ours:
        store.set(task_id, **facts)
    if ours and (view is None or view.finished_seq is None or view.finished_seq < 0):
        finished = Finished(status=report.status, summary=report.summary)
        write_ending(store, task_id, reason or "no ending came back", finished)
    settle(store, task_id, digest)


def _land_work(store: TaskStore, record: TaskRecord, job: Job, result: Result) -> dict[str, object]:
    """The bundle's ref fetched and checked out into the task's worktree here."""
    from caesar_core.config import load_config
    from caesar_core.git import branch_name, create_worktree, find_repository
    from caesar_core.runner.workshop import lay_down

    if result.ref is None or result.bundle is None:
        raise bundle.BundleError(
            "no work came back from the worker", result.problem or "see the task's log"
        )
    if result.ref != f"refs/caesar/{record.id}":
        raise bundle.BundleError(f"the worker named {result.ref}, not this task's ref", "")
    source = Path(record.source_workspace or store.root)
    repo = find_repository(source)
    if repo is None:
        raise bundle.BundleError(f"{source} is no longer in a git repository", "")
    incoming = remote_dir(store) / f"{record.id}.bundle"
    incoming.parent.mkdir(parents=True, exist_ok=True)
    incoming.write_bytes(result.bundle)
    try:
        commit = bundle.fetch(repo, incoming, [result.ref])[result.ref]
    finally:
        with contextlib.suppress(OSError):
            incoming.unlink()
    if record.continues is not None and record.worktree_path:
        tree = Path(record.worktree_path)
        bundle.git(tree, "reset", "-q", "--hard", commit)
        keep = [arg for path in record.excluded_paths for arg in ("-e", f"/{path}")]
        bundle.git(tree, "clean", "-fdq", *keep)
        return {}
    dest = store.home / "wt" / record.id
    named = result.record.branch if result.record is not None else None
    branch = named if named and named.startswith("caesar/") else None
    branch = branch or branch_name(record.objective, record.id)
    if not dest.exists():
        create_worktree(repo, dest, branch, at=commit)
    worktree = load_config(store.root).config.worktree
    shop = lay_down(repo, dest, worktree.copy, [])
    inside = job.workspace
    return {
        "worktree_path": str(dest),
        "workspace": str(dest / inside) if inside else str(dest),
        "branch": branch,
        "excluded_paths": shop.laid_down,
    }


def _land_files(store: TaskStore, task_id: str, result: Result) -> int:
    root = store.paths(task_id).root
    refused = 0
    for rel, data in sorted(result.files.items()):
        if rel in NOT_FILES or any(part.startswith(".") for part in rel.split("/")):
            refused += 1
            continue
        if rel.startswith(("questions/", "answers/")):
            try:
                safefs.create_exclusive(root, rel, data)
            except FileExistsError:
                pass
            except OSError:
                refused += 1
            continue
        try:
            safefs.atomic_write(root, rel, data)
        except OSError:
            refused += 1
    return refused


def _task_file(store: TaskStore, task_id: str, result: Result) -> bytes | None:
    """The worker's ``task.json`` with this machine's paths."""
    if result.task is None:
        return None
    try:
        task = parse(TASK_ADAPTER, result.task, DocumentKind.TASK)
    except (CaesarError, ValueError):
        return None
    record = store.get(task_id)
    paths = store.paths(task_id)
    channel = None
    if task.channel is not None:  # the runner (and all it imports) only for a task that has one
        from caesar_core.runner.engine import channel_for

        channel = channel_for(paths)
    task = task.model_copy(
        update={
            "workspace": record.workspace,
            "report_path": str(paths.report),
            "events_path": str(paths.events),
            "channel": channel,
        }
    )
    return dump_json(task.to_json_dict())


def _report(task_id: str, result: Result, findings: list[Finding]) -> Report:
    report: Report | None = None
    if result.report is not None:
        with contextlib.suppress(CaesarError, ValueError):
            report = parse(REPORT_ADAPTER, result.report, DocumentKind.REPORT)
    if report is None:
        report = Report(
            protocol=REPORT_V1,
            task_id=task_id,
            status=ReportStatus.FAILED,
            summary="No report came back from the worker.",
        )
        findings.append(_finding("No report", "the worker sent back no report of caesar's"))
    if report.task_id != task_id:
        report = report.model_copy(update={"task_id": task_id})
    if findings:
        report = report.model_copy(update={"findings": [*report.findings, *findings]})
    return report


def settle(store: TaskStore, task_id: str, digest: str | None = None) -> None:
    """Nothing more comes back: the record says so (and which result it applied)."""

    def change(record: TaskRecord) -> TaskRecord:
        if record.executor is None:
            return record
        update: dict[str, object] = {"settled": True}
        if digest is not None:
            update["result_digest"] = digest
        return record.model_copy(update={"executor": record.executor.model_copy(update=update)})

    store.update(task_id, change)


def conclude_lost(store: TaskStore, task_id: str, why: str, *, title: str) -> None:
    """The task ends here without its result (its worker died, the scheduler forgot it...):
    failed, with a report that says so; what came back before (events, questions) stays."""
    record = store.get(task_id)
    report = Report(
        protocol=REPORT_V1,
        task_id=task_id,
        status=ReportStatus.FAILED,
        summary=f"The task did not come back from its worker: {why}",
        details="Events and questions that came back before are kept in the task directory.",
        findings=[_finding(title, why)],
    )
    if not record.status.terminal:
        write_concluded_report(store.paths(task_id).report, report)
    _, ours = store.conclude(
        task_id,
        TaskStatus.FAILED,
        ended_reason=why,
        report_status=ReportStatus.FAILED,
        report_source=ReportSource.SYNTHESIZED,
    )
    if ours:
        write_ending(store, task_id, why, Finished(status=report.status, summary=report.summary))
    elif record.status is TaskStatus.CANCELLED and record.finished_seq in (None, -1):
        finished = Finished(status=ReportStatus.FAILED, summary="Cancelled.")
        write_ending(store, task_id, record.ended_reason or "cancelled", finished)
    settle(store, task_id)


def _finding(title: str, detail: str, severity: Severity = Severity.HIGH) -> Finding:
    return Finding(severity=severity, title=title, detail=detail)
