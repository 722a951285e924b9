"""A task's events and outcome as ``caesar run``, ``caesar continue`` and ``caesar logs`` print
them: :class:`EventPrinter` (the log as it lands, caesar's own ``finished`` told from an
agent's), :func:`outcome_json` and :func:`print_outcome`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from caesar_core.cli.common import change_line
from caesar_core.terminal import json_safe_bytes, quote_path, safe_text

if TYPE_CHECKING:
    from caesar_core.events import EventTail
    from caesar_core.events.tail import BadLine
    from caesar_core.protocol.event import FinishedEvent
    from caesar_core.runner.outcome import Outcome
    from caesar_core.store.record import TaskRecord


class EventPrinter:
    """A task's events as they land, on stdout; ``finished`` events wait for :meth:`settle`.

    Agents can append any line to their log, one that looks like caesar's ending too: only the
    ``finished`` event caesar's record names (``finished_seq``) is shown as the outcome, so
    such events are held until the record can be asked, then shown for what they are.

    With ``--json`` the log passes through: each valid line is written as the file holds it,
    byte for byte (key order, ``…20.000Z``), never parsed and dumped again; only a ``finished``
    line caesar did not write gains a ``not_caesars`` member, and characters a terminal would
    act on become JSON escapes (``terminal.json_safe_bytes``: the same values).
    """

    def __init__(self, *, as_json: bool) -> None:
        from caesar_core.events import EventFormatter

        self.as_json = as_json
        self.formatter = EventFormatter()
        self._held: list[tuple[FinishedEvent, bytes]] = []
        self._problem = ""

    def batch(self, tail: EventTail) -> None:
        """What the log holds that was not shown yet; with ``--json``, a bounded batch of lines
        at a time, their events dropped once judged (a ``finished`` one is held)."""
        from caesar_core.protocol.event import FinishedEvent

        if self.as_json:
            for passed in tail.pass_on(hold=FinishedEvent):
                self._held.extend(
                    (e, line) for e, line in passed.held if isinstance(e, FinishedEvent)
                )
                self._write(passed.lines)
                self._report(passed.bad)
        else:
            batch = tail.read()
            for event, line in zip(batch.events, batch.lines, strict=True):
                if isinstance(event, FinishedEvent):
                    self._held.append((event, line))
                else:
                    click.echo(self.formatter.format(event))
            self._report(batch.bad)
        if tail.problem and tail.problem != self._problem:
            click.echo(safe_text(f"caesar: the events log is not read: {tail.problem}"), err=True)
        self._problem = tail.problem

    @staticmethod
    def _report(bad: list[BadLine]) -> None:
        for line in bad:
            click.echo(
                safe_text(f"caesar: events line {line.line} skipped: {line.reason}"), err=True
            )

    def settle(self, record: TaskRecord) -> None:
        """Show the held ``finished`` events, judged by ``record``; when the task ended and
        none of them is caesar's, say the outcome from the record."""
        if record.legacy_ending:
            self.formatter.trust_any()
        else:
            self.formatter.trust_finished(record.ending_seq)
        held, self._held = self._held, []
        shown = False
        for event, line in held:
            ours = self.formatter.caesars(event)
            shown = shown or ours
            if not self.as_json:
                click.echo(self.formatter.format(event))
            else:
                self._write([line if ours else not_caesars(line)])
        if record.status.terminal and not shown and not self.as_json:
            why = f": {record.ended_reason}" if record.ended_reason else ""
            click.echo(safe_text(f"caesar's record: {record.status.value}{why}"))

    @staticmethod
    def _write(lines: list[bytes]) -> None:
        """Lines as they are, in one write (a log of a million lines is not a million echoes)."""
        if not lines:
            return
        sys.stdout.flush()
        sys.stdout.buffer.write(json_safe_bytes(b"\n".join([*lines, b""])))
        sys.stdout.buffer.flush()


NOT_CAESARS = b',"not_caesars":"a finished event caesar did not write"}'


def not_caesars(line: bytes) -> bytes:
    """A valid ``finished`` line, its bytes kept, with caesar's mark as a last member."""
    return line.rstrip()[:-1] + NOT_CAESARS


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """What ``caesar run --json`` and ``caesar continue --json`` print; a follow-up turn's
    ``diff`` is its own changes (``caesar diff`` shows the whole work)."""
    from caesar_core.review.checks import checks_json

    record, diff = outcome.record, outcome.diff
    return {
        "task_id": record.id,
        "status": record.status.value,
        "continues": record.continues,
        "turn": record.turn,
        "task_dir": str(outcome.paths.root),
        "workspace": record.workspace,
        "report": outcome.report.to_json_dict(),
        "report_source": record.report_source.value if record.report_source else None,
        "changes_verified_by": (
            record.changes_verified_by.value if record.changes_verified_by else None
        ),
        "diff": {
            "files": [f.path for f in diff.files] if diff else [],
            "is_empty": diff.is_empty if diff else True,
        },
        "checks": checks_json(record.id, record.checks),
    }


def print_outcome(outcome: Outcome) -> None:
    from caesar_core.review.checks import check_line

    record, report = outcome.record, outcome.report
    source = record.report_source.value if record.report_source else "?"
    click.echo(
        f"\ntask {record.id}: {record.status.value} (report {report.status.value} via {source})"
    )
    click.echo(f"  {safe_text(report.summary)}")
    if outcome.diff is not None:
        if outcome.diff.files:
            click.echo("files changed (according to git):")
            for file in outcome.diff.files:
                click.echo(f"  {change_line(file)}")
        else:
            click.echo("no files changed (according to git)")
    elif report.changes:
        click.echo("files changed (as declared; no git to check):")
        for change in report.changes:
            click.echo(f"  {change.action.value:<9} {quote_path(change.path)}")
    for finding in report.findings:
        shown = f"  [{finding.severity.value}] {finding.title}: {finding.detail}".rstrip(": ")
        click.echo(safe_text(shown))
    if record.checks is not None and record.checks.results:
        click.echo("checks (run by caesar):")
        for result in record.checks.results:
            click.echo(f"  {check_line(result)}")
    if record.worktree_path and outcome.diff is not None and outcome.diff.files:
        click.echo(f"review: caesar diff {record.id}   apply: caesar apply {record.id}")
