"""What ``caesar ps`` shows of a project's tasks, as text, without click.

One implementation for both ways in: the click command (:func:`caesar_core.cli.tasks.ps`)
parses its options and prints :func:`show`'s answer; the console script answers the common
argv shapes of ``ps`` itself (:mod:`caesar_core.cli.entry`), before click is imported, with the
very same answer. Stdlib only until a task needs more: the records come from the listing's
cache (:mod:`caesar_core.store.listing`), the sweep of abandoned tasks, the questions and the
held tool calls of running tasks load only when there are such tasks.
"""

from __future__ import annotations

from caesar_core.humanize import age, one_line
from caesar_core.store.status import TaskStatus

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from caesar_core.protocol.approvals import Approval
    from caesar_core.protocol.mailbox import MailboxQuestion
    from caesar_core.store.listing import ListedTask

RECENT = 10
"""How many ended tasks ``caesar ps`` lists without ``--all``."""
EMPTY = "no tasks yet: start one with `caesar run OBJECTIVE --agent demo`\n"
HEADERS = ["TASK", "AGENT", "STATUS", "REPORT", "CHECKS", "WHERE", "AGE", "OBJECTIVE"]


class UnknownStatusError(ValueError):
    """``--status`` names a status tasks do not have (click calls it a bad parameter)."""


def wanted_statuses(statuses: str | None) -> set[str] | None:
    """The statuses ``--status`` names (comma separated; ``","`` names none), None without a
    ``--status``; :class:`UnknownStatusError` for a name that is not a status."""
    if not statuses:
        return None
    wanted = {s.strip() for s in statuses.split(",") if s.strip()}
    unknown = wanted - {s.value for s in TaskStatus}
    if unknown:
        raise UnknownStatusError(f"unknown status {', '.join(sorted(unknown))}")
    return wanted


def show(
    root: Path, *, show_all: bool = False, statuses: str | None = None, as_json: bool = False
) -> tuple[str, str, int]:
    """``caesar ps`` of the project at ``root``: (stdout, stderr, exit code).

    Abandoned tasks are concluded first (their sweep loads only when one needs it); a record
    that cannot be read is listed as broken, with the reason, and never hides the others.
    :class:`UnknownStatusError` (before anything is read) for a bad ``statuses``; what the
    store raises (a ``CaesarError``, an ``OSError``) goes to the caller.
    """
    from caesar_core.runner.abandoned import needs_sweep
    from caesar_core.store.listing import list_tasks

    wanted = wanted_statuses(statuses)
    listing = list_tasks(root)
    unswept: dict[str, str] = {}
    due = [task.id for task in listing.tasks if needs_sweep(task)]
    if due:
        from caesar_core.runner.sweep import sweep_tasks
        from caesar_core.store.store import TaskStore

        unswept = sweep_tasks(TaskStore(root), due).problems
        listing = list_tasks(root)
    records = listing.tasks
    broken = {path.stem: problem for path, problem in listing.problems}
    if wanted is not None:
        records = [r for r in records if r.status.value in wanted]
    elif not show_all:
        ended = [r for r in records if r.status.terminal][-RECENT:]
        keep = {r.id for r in ended} | {r.id for r in records if not r.status.terminal}
        keep |= {r.chain for r in records if r.id in keep and r.chain}  # the turns' task
        records = [r for r in records if r.id in keep]
    questions, held = _waiting(root, [r.id for r in records if not r.status.terminal])
    if as_json:
        return _json(records, broken, unswept, questions, held), "", 0
    from caesar_core.terminal import safe_text

    lines = [f"caesar: skipped {path}: {why}" for path, why in listing.problems]
    lines += [f"caesar: task {task} could not be concluded: {why}" for task, why in unswept.items()]
    err = "".join(safe_text(line) + "\n" for line in lines)
    if not records and not broken:
        return EMPTY, err, 0
    return _table(records, broken, unswept, questions, held), err, 0


def _json(
    records: list[ListedTask],
    broken: dict[str, str],
    unswept: dict[str, str],
    questions: dict[str, list[MailboxQuestion]],
    held: dict[str, list[Approval]],
) -> str:
    from caesar_core.cli.render import json_text

    listed: list[dict[str, Any]] = [
        {
            **r.data,
            "checks_mark": _checks_mark(r),
            "pending_questions": [q.to_json_dict() for q in questions.get(r.id, [])],
            "pending_approvals": [a.to_json_dict() for a in held.get(r.id, [])],
            **({"problem": unswept[r.id]} if r.id in unswept else {}),
        }
        for r in records
    ]
    listed += [{"id": task, "status": "broken", "problem": why} for task, why in broken.items()]
    return json_text(listed)


def _table(
    records: list[ListedTask],
    broken: dict[str, str],
    unswept: dict[str, str],
    questions: dict[str, list[MailboxQuestion]],
    held: dict[str, list[Approval]],
) -> str:
    from datetime import UTC, datetime

    from caesar_core.cli.render import table_text
    from caesar_core.store.tree import build_tree, walk_tree

    now = datetime.now(UTC)
    rows = []
    for level, record in walk_tree(build_tree(records)):
        waiting = questions.get(record.id) or held.get(record.id)
        rows.append(
            [
                "  " * level + record.id,
                record.agent + (f"/{record.role}" if record.role else ""),
                record.status.value
                + (" ?" if waiting else "")
                + (" (broken)" if record.id in unswept else ""),
                record.report_status or "-",
                _checks_cell(record),
                f"{record.isolation}/{record.mode}"
                + (f" {record.executor.label}" if record.executor else ""),
                age(record.age(now)),
                one_line(_turn(record) + record.objective, 48),
            ]
        )
    for task, problem in broken.items():
        rows.append([task, "-", "broken", "-", "-", "-", "-", one_line(problem, 48)])
    return table_text(rows, HEADERS)


def _waiting(
    root: Path, task_ids: list[str]
) -> tuple[dict[str, list[MailboxQuestion]], dict[str, list[Approval]]]:
    """The questions and the held tool calls (``caesar approve``) waiting for a person, of
    each task named: tasks that still run."""
    if not task_ids:
        return {}, {}
    from caesar_core.store.approvals import pending_approvals
    from caesar_core.store.mailbox import pending_questions
    from caesar_core.store.store import TaskStore

    store = TaskStore(root)
    questions = {task: pending_questions(store.paths(task)) for task in task_ids}
    held = {task: pending_approvals(store.paths(task).root) for task in task_ids}
    return questions, held


def _checks_mark(record: ListedTask) -> str:
    """passed, failed, running or not run: what caesar's own checks of the task say."""
    from caesar_core.store.status import checks_mark

    return checks_mark(record.checks, _alive).value


def _alive(pid: int) -> bool:
    from caesar_core.runner.slots import pid_alive

    return pid_alive(pid)


def _checks_cell(record: ListedTask) -> str:
    mark = _checks_mark(record)
    return "-" if mark == "not run" else mark


def _turn(record: ListedTask) -> str:
    """``turn 2: `` before the objective of a task's turn (``caesar continue``)."""
    return f"turn {record.turn}: " if record.chained else ""
