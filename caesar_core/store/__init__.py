"""The task store: task directories, caesar's records, the mailbox and the delegation tree.

The names below load with the module that defines them, on first use (``__getattr__``): a
command that needs one module of the store (``caesar ps`` reading records through
:mod:`caesar_core.store.listing`) does not pay for the models of all the others.
"""

from __future__ import annotations

from caesar_core.lazy import exports

TYPE_CHECKING = False  # typing costs ~4 ms, before caesar diff --json starts git

if TYPE_CHECKING:
    from caesar_core.store.ids import check_name, check_task_id, new_task_id
    from caesar_core.store.mailbox import (
        AlreadyAnsweredError,
        UnknownQuestionError,
        answer,
        ask,
        pending_questions,
        questions,
        read_answer,
        read_question,
    )
    from caesar_core.store.record import (
        RECORD_ADAPTER,
        ReportSource,
        TaskRecord,
        TaskStatus,
        VerifiedBy,
    )
    from caesar_core.store.root import CAESAR_DIR, find_root
    from caesar_core.store.store import (
        CorruptRecordError,
        DuplicateTaskError,
        Listing,
        TaskStore,
        UnknownTaskError,
    )
    from caesar_core.store.tree import TaskNode, build_tree, walk_tree

_HOMES = {
    "caesar_core.store.ids": ("check_name", "check_task_id", "new_task_id"),
    "caesar_core.store.mailbox": (
        "AlreadyAnsweredError",
        "UnknownQuestionError",
        "answer",
        "ask",
        "pending_questions",
        "questions",
        "read_answer",
        "read_question",
    ),
    "caesar_core.store.record": (
        "RECORD_ADAPTER",
        "ReportSource",
        "TaskRecord",
        "TaskStatus",
        "VerifiedBy",
    ),
    "caesar_core.store.root": ("CAESAR_DIR", "find_root"),
    "caesar_core.store.store": (
        "CorruptRecordError",
        "DuplicateTaskError",
        "Listing",
        "TaskStore",
        "UnknownTaskError",
    ),
    "caesar_core.store.tree": ("TaskNode", "build_tree", "walk_tree"),
}
__getattr__ = exports(__name__, _HOMES)

__all__ = [
    "CAESAR_DIR",
    "RECORD_ADAPTER",
    "AlreadyAnsweredError",
    "CorruptRecordError",
    "DuplicateTaskError",
    "Listing",
    "ReportSource",
    "TaskNode",
    "TaskRecord",
    "TaskStatus",
    "TaskStore",
    "UnknownQuestionError",
    "UnknownTaskError",
    "VerifiedBy",
    "answer",
    "ask",
    "build_tree",
    "check_name",
    "check_task_id",
    "find_root",
    "new_task_id",
    "pending_questions",
    "questions",
    "read_answer",
    "read_question",
    "walk_tree",
]
