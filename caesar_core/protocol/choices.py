"""The closed sets of words a report uses, as plain enums (standard library only).

``protocol.report`` builds pydantic models from them; the git layer and caesar's own records
need the words alone, so they import them from here without building any model.
"""

from __future__ import annotations

from enum import StrEnum


class ReportStatus(StrEnum):
    """The agent's verdict, distinct from how its process ended."""

    SUCCESS = "success"
    """The acceptance criteria are met."""
    PARTIAL = "partial"
    """Part of the work is done; what remains is in ``next_steps``."""
    FAILED = "failed"
    """The agent did not succeed and has no way out."""
    BLOCKED = "blocked"
    """A decision outside its scope is required; it is asked in ``questions``."""


class ChangeAction(StrEnum):  # what happened to a file, as an agent declares it or git tells
    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
