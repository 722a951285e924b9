"""The agent's word against git's: ``changes`` become what git observed.

Where there is git, the observed diff against ``base_ref`` (or against the in-place snapshot)
is the only truth; the agent's declaration survives as each change's summary and as findings
where the two disagree, so a lying or forgetful agent is visible rather than believed.
"""

from __future__ import annotations

from caesar_core.git import TreeDiff, as_unicode
from caesar_core.protocol.report import Change, ChangeAction, Finding, Report, Severity
from caesar_core.protocol.task import Mode
from caesar_core.store.record import VerifiedBy
from caesar_core.terminal import quote_path

_MAX_LISTED = 20


def reconcile(report: Report, diff: TreeDiff | None, mode: Mode) -> tuple[Report, VerifiedBy]:
    if diff is None:
        return report, VerifiedBy.DECLARATION
    declared = {change.path: change for change in report.changes}
    observed: list[Change] = []
    for file in diff.files:
        said = declared.get(as_unicode(file.path)) or (
            declared.get(as_unicode(file.old_path)) if file.old_path else None
        )
        observed.append(
            Change(
                path=as_unicode(file.path),
                action=ChangeAction(file.action),
                summary=said.summary if said is not None else "",
            )
        )
    # Declared paths are text; git's may hold bytes that are not UTF-8: compared as text.
    seen = {as_unicode(file.path) for file in diff.files} | {
        as_unicode(file.old_path) for file in diff.files if file.old_path
    }
    undeclared = [
        file.path
        for file in diff.files
        if as_unicode(file.path) not in declared
        and not (file.old_path and as_unicode(file.old_path) in declared)
    ]
    phantom = [path for path in declared if path not in seen]
    findings = list(report.findings)
    if undeclared:
        findings.append(
            Finding(
                severity=Severity.MEDIUM,
                title="Undeclared change",
                detail="git shows changes the agent did not declare: " + _listing(undeclared),
            )
        )
    if phantom:
        findings.append(
            Finding(
                severity=Severity.MEDIUM,
                title="Change declared but not found in the diff",
                detail="the agent declared changes git does not show: " + _listing(phantom),
            )
        )
    if mode is Mode.READ_ONLY and diff.files:
        findings.append(
            Finding(
                severity=Severity.HIGH,
                title="Write detected during a read-only task",
                detail="a read-only task changed: " + _listing([f.path for f in diff.files]),
            )
        )
    normalized = report.model_copy(update={"changes": observed, "findings": findings})
    return normalized, VerifiedBy.GIT


def _listing(paths: list[str]) -> str:
    shown = ", ".join(map(quote_path, paths[:_MAX_LISTED]))
    more = len(paths) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")
