"""Reading and answering the approvals of a task directory (see ``protocol.approvals``).

An answer is created exclusively: of two people (or a person and the timeout) answering at
once, exactly one wins and the other is told who did.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from caesar_core.errors import CaesarError, ExitCode
from caesar_core.fs import create_exclusive, dump_json
from caesar_core.protocol.approvals import (
    APPROVAL_ADAPTER,
    APPROVAL_ANSWER_ADAPTER,
    Approval,
    ApprovalAnswer,
    ApprovalDecision,
)
from caesar_core.protocol.parse import parse
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


def read_answer(task_dir: Path, approval_id: str) -> ApprovalAnswer | None:
    name = check_name(approval_id, "approval id")
    try:
        raw = (approvals_dir(task_dir) / f"{name}{ANSWER_SUFFIX}").read_bytes()
    except FileNotFoundError:
        return None
    return parse(APPROVAL_ANSWER_ADAPTER, raw)


def approvals(task_dir: Path) -> list[tuple[Approval, ApprovalAnswer | None]]:
    """Every readable approval with its answer, oldest first; a bad file is left out."""
    try:
        files = [
            p for p in approvals_dir(task_dir).glob("*.json") if not p.name.endswith(ANSWER_SUFFIX)
        ]
    except OSError:
        return []
    found: list[tuple[Approval, ApprovalAnswer | None]] = []
    for path in files:
        try:
            asked = parse(APPROVAL_ADAPTER, path.read_bytes())
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
    if not (approvals_dir(task_dir) / f"{name}.json").is_file():
        raise UnknownApprovalError(approval_id)
    answer = ApprovalAnswer(
        id=name, decision=decision, answered_at=datetime.now(UTC), answered_by=by
    )
    try:
        create_exclusive(
            approvals_dir(task_dir) / f"{name}{ANSWER_SUFFIX}", dump_json(answer.to_json_dict())
        )
    except FileExistsError:
        existing = read_answer(task_dir, name)
        raise AlreadyDecidedError(existing or answer) from None
    return answer
