"""How a file changed (``ChangeAction``), stdlib only.

The values of a report's ``changes[].action`` (:mod:`caesar_core.protocol.report` names the
same class), and of every diff the git layer computes: kept out of the protocol package,
whose import builds pydantic, so that ``caesar diff`` can compute a diff without it.
"""

from __future__ import annotations

from enum import StrEnum


class ChangeAction(StrEnum):
    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
