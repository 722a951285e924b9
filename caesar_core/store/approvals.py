"""Reading and answering the approvals of a task directory (see ``protocol.approvals``).

An answer is created exclusively: of two people (or a person and the timeout) answering at
once, exactly one wins and the other is told who did. The asks are in the task directory's
``approvals/``, which the agent can write: everything goes through :mod:`caesar_core.safefs`, so
a link there is refused, never followed. The answers are in caesar's state directory
(:func:`caesar_core.layout.approval_answers`), where the agent whose call is held cannot
approve it itself.
"""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

from caesar_core import safefs
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import dump_json
from caesar_core.layout import approval_answers
from caesar_core.protocol.approvals import (
    APPROVAL_ADAPTER,
    APPROVAL_ANSWER_ADAPTER,
    Approval,
    ApprovalAnswer,
    ApprovalDecision,
)
from caesar_core.protocol.parse import parse
from caesar_core.protocol.taskdir import UnsafeTaskFileError
from caesar_core.store.ids import check_name

APPROVALS_DIR = "approvals"
ANSWER_SUFFIX = ".answer.json"


class UnknownApprovalError(CaesarError):
    exit_code = ExitCode.FAILURE

    def __init__(self, approval_id: str) -> None:
        super().__init__(
            f"no approval {approval_id!r} in this task",
            "list the pending ones with `caesar ps --json` or in `caesar watch`",
        )


class AlreadyDecidedError(CaesarError):
    exit_code = ExitCode.FAILURE

    def __init__(self, answer: ApprovalAnswer) -> None:
        by = f" by {answer.answered_by}" if answer.answered_by else ""
        super().__init__(
            f"approval {answer.id} was already answered{by}: {answer.decision}",
            "nothing to do; the tool call went on with that decision",
        )
        self.answer = answer


def approvals_dir(task_dir: Path) -> Path:
    return task_dir / APPROVALS_DIR


def answer_file(task_dir: Path, approval_id: str) -> Path:
    """Where the answer to approval ``approval_id`` of the task at ``task_dir`` is kept."""
    root, folder = approval_answers(task_dir)
    return root / folder / f"{check_name(approval_id, 'approval id')}{ANSWER_SUFFIX}"


def read_answer(task_dir: Path, approval_id: str) -> ApprovalAnswer | None:
    name = check_name(approval_id, "approval id")
    root, folder = approval_answers(task_dir)
    try:
        raw = safefs.read_bytes(root, f"{folder}/{name}{ANSWER_SUFFIX}")
    except FileNotFoundError:
        return None
    return parse(APPROVAL_ANSWER_ADAPTER, raw)


def approvals(task_dir: Path) -> list[tuple[Approval, ApprovalAnswer | None]]:
    """Every readable approval with its answer, oldest first; a bad file is left out."""
    try:
        files = safefs.entries(task_dir, APPROVALS_DIR)
    except OSError:
        return []
    found: list[tuple[Approval, ApprovalAnswer | None]] = []
    for name, regular in files:
        if not regular or name.startswith(".") or not name.endswith(".json"):
            continue
        if name.endswith(ANSWER_SUFFIX):
            continue
        try:
            asked = parse(APPROVAL_ADAPTER, safefs.read_bytes(task_dir, f"{APPROVALS_DIR}/{name}"))
            found.append((asked, read_answer(task_dir, asked.id)))
        except (OSError, ValueError, CaesarError):
            continue
    found.sort(key=lambda pair: (pair[0].asked_at, pair[0].id))
    return found


def pending_approvals(task_dir: Path) -> list[Approval]:
    return [asked for asked, answer in approvals(task_dir) if answer is None]


def answer_approval(
    task_dir: Path, approval_id: str, decision: ApprovalDecision, *, by: str = "cli"
) -> ApprovalAnswer:
    name = check_name(approval_id, "approval id")
    try:
        try:
            asked = safefs.lstat(task_dir, f"{APPROVALS_DIR}/{name}.json")
        except FileNotFoundError:
            raise UnknownApprovalError(approval_id) from None
        if not stat.S_ISREG(asked.st_mode):
            raise UnknownApprovalError(approval_id)
        answer = ApprovalAnswer(
            id=name, decision=decision, answered_at=datetime.now(UTC), answered_by=by
        )
        data = dump_json(answer.to_json_dict())
        root, folder = approval_answers(task_dir)
        try:
            safefs.create_exclusive(root, f"{folder}/{name}{ANSWER_SUFFIX}", data)
        except FileExistsError:
            existing = read_answer(task_dir, name)
            raise AlreadyDecidedError(existing or answer) from None
    except safefs.UnsafeFileError as error:
        raise UnsafeTaskFileError(f"approval {approval_id} was not answered", error) from None
    return answer
