"""The task store: task directories, caesar's records, the mailbox and the delegation tree.

Each name is loaded from its module on first use (PEP 562): reading a record does not build
the mailbox's documents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from caesar_core.lazyexports import lazy_exports

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
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "ids": (
                "check_name",
                "check_task_id",
                "new_task_id",
            ),
            "mailbox": (
                "AlreadyAnsweredError",
                "UnknownQuestionError",
                "answer",
                "ask",
                "pending_questions",
                "questions",
                "read_answer",
                "read_question",
            ),
            "record": (
                "RECORD_ADAPTER",
                "ReportSource",
                "TaskRecord",
                "TaskStatus",
                "VerifiedBy",
            ),
            "root": (
                "CAESAR_DIR",
                "find_root",
            ),
            "store": (
                "CorruptRecordError",
                "DuplicateTaskError",
                "Listing",
                "TaskStore",
                "UnknownTaskError",
            ),
            "tree": (
                "TaskNode",
                "build_tree",
                "walk_tree",
            ),
        },
    )

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
