"""A task's report, laid out for reading: verdict, changes, findings by severity, usage."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from caesar_core.humanize import duration
from caesar_core.protocol.report import Report, Severity, Usage
from caesar_core.runner.slots import pid_alive
from caesar_core.store.record import (
    CheckResult,
    Checks,
    ChecksMark,
    ReportSource,
    VerifiedBy,
    checks_mark,
)
from caesar_core.terminal import quote_path, safe_text
from caesar_core.watch import TaskView
from caesar_tui.marks import CHANGE, CHECKS, REPORT_STYLE, SEVERITY_STYLE, STATUS
from caesar_tui.workers import WorkerFailures

ReadReport = Callable[[str], Report | None]
"""A task's report by id, None until it has one (blocking: read in a thread worker)."""

SEVERITY_ORDER = (
    Severity.CRITICAL,
    Severity.HIGH,
    Severity.MEDIUM,
    Severity.LOW,
    Severity.INFO,
)
"""Most severe first: what needs attention comes before what is merely noted."""

SOURCE_NOTE = {
    ReportSource.CHANNEL: "submitted through caesar's channel",
    ReportSource.SCHEMA: "the agent's native structured output",
    ReportSource.FILE: "report.json written by the agent",
    ReportSource.EXTRACTED: "found in the agent's output",
    ReportSource.SYNTHESIZED: "written by caesar: the agent gave no report",
}
"""Why the source matters: the lower the tier, the less the report is the agent's own word."""


class ReportView(WorkerFailures, VerticalScroll):
    """The report of one task, rebuilt whole on each ``show``.

    A report is written once, at the end of a task, so one ``Static`` re-rendered from
    scratch costs nothing worth caching. Being the scroll container itself keeps long
    details and finding lists reachable from the keyboard once the view has the focus.
    Its text can be selected with the mouse and copied (ctrl+c).
    """

    DEFAULT_CSS = """
    ReportView {
        height: 1fr;
        & > Static { padding: 0 1; }
    }
    """

    @dataclass
    class Loaded(Message):
        """A task's report, read by the worker of :meth:`ReportView.load`."""

        report_view: ReportView
        view: TaskView
        report: Report | None

        @property
        def control(self) -> ReportView:
            return self.report_view

    def __init__(
        self,
        read: ReadReport | None = None,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Args:
        read: Reads a task's report (called in a thread); None: only :meth:`show` fills it.
        id: The widget id.
        classes: CSS classes.
        """
        super().__init__(id=id, classes=classes)
        self._read = read
        self.task_id: str | None = None
        """The task whose report was asked for last."""
        self._body = Static(Content.styled("no report yet", "$text-muted"), id="report")

    def compose(self) -> ComposeResult:
        yield self._body

    def load(self, view: TaskView) -> None:
        """Read ``view``'s report off the UI thread and show it."""
        self.task_id = view.id
        if self._read is not None:
            self._read_report(view, self._read)

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def _read_report(self, view: TaskView, read: ReadReport) -> None:
        self.post_message(self.Loaded(self, view, read(view.id)))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        message.stop()
        if message.view.id == self.task_id:
            self.show(message.view, message.report)

    def show(self, view: TaskView, report: Report | None) -> None:
        """Lay out ``report`` (None: the task has not produced one yet)."""
        self._body.update(render_report(view, report))

    def clear(self) -> None:
        """No task selected."""
        self._body.update(Content.styled("no report yet", "$text-muted"))


def render_report(view: TaskView, report: Report | None) -> Content:
    """The whole report as one ``Content``, styled with theme variables."""
    record = view.record
    status = Content.assemble(
        ("task ", "$text-muted"),
        (record.status.value, f"bold {STATUS[record.status].style}"),
    )
    if report is None:
        missing = _lines([status, Content.styled("no report yet", "$text-muted")])
        if record.checks is None:
            return missing
        return Content("\n\n").join([missing, _checks(record.checks, "")])
    status = Content.assemble(
        status,
        ("  report ", "$text-muted"),
        (report.status.value, f"bold {REPORT_STYLE[report.status]}"),
    )
    blocks: list[Content] = [status, Content.styled(safe_text(report.summary), "bold")]
    if report.details:
        blocks.append(Content(safe_text(report.details, lines=True)))
    if report.changes:
        blocks.append(_changes(report, record.changes_verified_by))
    blocks.append(_checks(record.checks, ""))
    if record.selection_checks is not None:
        hunks = ", ".join(record.selection_checks.hunks)
        blocks.append(_checks(record.selection_checks, f" on hunks {hunks} alone"))
    if report.findings:
        blocks.append(_findings(report))
    # caesar's own checks are listed above, from caesar's record; these are the agent's.
    from caesar_core.review.checks import BY_CAESAR  # the checks' runner: when a report is shown

    agents = [run for run in report.commands_run if (run.model_extra or {}).get("by") != BY_CAESAR]
    if agents:
        lines = [_heading("commands")]
        for run in agents:
            code = "" if run.exit_code is None else f"exit {run.exit_code}"
            style = "$text-success" if run.exit_code == 0 else "$text-error"
            lines.append(Content.assemble("  $ ", safe_text(run.command), "  ", (code, style)))
        blocks.append(_lines(lines))
    if report.questions:
        lines = [_heading("open questions")]
        for question in report.questions:
            options = f"  ({' / '.join(question.options)})" if question.options else ""
            lines.append(
                Content.assemble(
                    "  ? ", safe_text(question.question), (safe_text(options), "$text-muted")
                )
            )
        blocks.append(_lines(lines))
    if report.next_steps:
        lines = [_heading("next steps")]
        lines += [Content.assemble("  • ", safe_text(step)) for step in report.next_steps]
        blocks.append(_lines(lines))
    if report.artifacts:
        lines = [_heading("artifacts")]
        for artifact in report.artifacts:
            lines.append(
                Content.assemble(
                    "  ",
                    quote_path(artifact.path),
                    "  ",
                    (safe_text(artifact.description), "$text-muted"),
                )
            )
        blocks.append(_lines(lines))
    if report.usage is not None and (usage := _usage(report.usage)):
        blocks.append(Content.assemble(("usage  ", "$text-muted"), usage))
    if record.report_source is not None:
        source = record.report_source
        style = "$text-warning" if source is ReportSource.SYNTHESIZED else ""
        blocks.append(
            Content.assemble(
                ("source  ", "$text-muted"),
                (source.value, style),
                (f"  {SOURCE_NOTE[source]}", "$text-muted"),
            )
        )
    return Content("\n\n").join(blocks)


def _heading(text: str, note: str = "") -> Content:
    return Content.assemble((text, "bold"), (note, "$text-muted"))


def _changes(report: Report, verified_by: VerifiedBy | None) -> Content:
    note = {
        VerifiedBy.GIT: "  verified by git",
        VerifiedBy.DECLARATION: "  as declared",
        None: "  not verified yet",
    }[verified_by]
    lines = [_heading(f"changes ({len(report.changes)})", note)]
    for change in report.changes:
        mark = CHANGE[change.action]
        summary = f"  {safe_text(change.summary)}" if change.summary else ""
        lines.append(
            Content.assemble(
                "  ",
                (mark.glyph, mark.style),
                " ",
                quote_path(change.path),
                (summary, "$text-muted"),
            )
        )
    return _lines(lines)


def _checks(checks: Checks | None, scope: str) -> Content:
    """caesar's own checks of the task (its record's, never the report's): one line each."""
    mark = checks_mark(checks, pid_alive)
    shown = CHECKS[mark]
    ran = checks is not None and bool(checks.results)
    heading = Content.assemble(
        ("checks", "bold"),
        (f"{scope}  ", "$text-muted"),
        (f"{shown.glyph} {mark.value}", shown.style),
        ("  run by caesar" if ran else "", "$text-muted"),
    )
    if checks is None or (mark is ChecksMark.NOT_RUN and not checks.results):
        return heading
    return _lines([heading, *(_check(result) for result in checks.results)])


def _check(result: CheckResult) -> Content:
    passed = result.passed
    mark = CHECKS[ChecksMark.PASSED if passed else ChecksMark.FAILED]
    line = Content.assemble(
        "  ",
        (mark.glyph, mark.style),
        " $ ",
        safe_text(result.command),
        (f"  {duration(result.duration_ms / 1000)}  ", "$text-muted"),
        (result.outcome, "$text-success" if passed else "$text-error"),
    )
    if passed or result.cancelled:
        return line
    from caesar_core.review.checks import failure_lines

    tail = [Content.assemble("      ", (text, "$text-muted")) for text in failure_lines(result, 3)]
    return _lines([line, *tail])


def _findings(report: Report) -> Content:
    lines: list[Content] = []
    for severity in SEVERITY_ORDER:
        found = [finding for finding in report.findings if finding.severity is severity]
        if not found:
            continue
        style = SEVERITY_STYLE[severity]
        lines.append(Content.assemble((f" {severity.value} ", style), f" {len(found)}"))
        for finding in found:
            where = quote_path(finding.file) if finding.file else ""
            if where and finding.line is not None:
                where = f"{where}:{finding.line}"
            lines.append(
                Content.assemble(
                    "  • ",
                    safe_text(finding.title),
                    (f"  {where}" if where else "", "$text-muted"),
                )
            )
            if finding.detail:
                detail = safe_text(finding.detail, lines=True)
                lines.append(Content.assemble("    ", (detail, "$text-muted")))
    return _lines([_heading("findings"), *lines])


def _usage(usage: Usage) -> Content | None:
    parts: list[str] = []
    if usage.input_tokens is not None or usage.output_tokens is not None:
        parts.append(f"{_count(usage.input_tokens)} in / {_count(usage.output_tokens)} out tokens")
    if usage.cost_usd is not None:
        # Cheap tasks cost fractions of a cent; two decimals would show them as free.
        cost = usage.cost_usd
        parts.append(f"${cost:.4f}" if cost < 0.01 else f"${cost:.2f}")
    if usage.duration_ms is not None:
        parts.append(duration(usage.duration_ms / 1000))
    return Content("  ·  ".join(parts)) if parts else None


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _lines(items: Iterable[Content]) -> Content:
    return Content("\n").join(items)


__all__ = ["ReportView", "render_report"]
