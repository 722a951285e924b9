"""What ``Runner.prepare`` lays out for a task (:class:`Prepared`) and what its conclusion
hands back (:class:`Outcome`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from caesar_core.agents.base import ReportTier
    from caesar_core.git import TreeDiff
    from caesar_core.protocol.report import Finding, Report
    from caesar_core.protocol.task import Task
    from caesar_core.protocol.taskdir import TaskPaths
    from caesar_core.runner.delegation import Plan
    from caesar_core.store.record import TaskRecord


@dataclass
class Prepared:
    plan: Plan
    task: Task
    paths: TaskPaths
    tier: ReportTier
    prompt: str
    findings: list[Finding] = field(default_factory=list)
    resume_session: str | None = None
    """A follow-up turn: the agent's session to resume with ``prompt``."""
    fresh_prompt: str = ""
    """The brief of a fresh session, for a follow-up whose session cannot be resumed."""


@dataclass(frozen=True)
class Outcome:
    record: TaskRecord
    report: Report
    diff: TreeDiff | None
    paths: TaskPaths
