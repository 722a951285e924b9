"""The report caesar writes when the agent wrote none: facts only, status by rule."""

from __future__ import annotations

from typing import Any

import pytest

from caesar_core.protocol import (
    REPORT_ADAPTER,
    REPORT_V1,
    ChangeAction,
    DocumentKind,
    Report,
    ReportStatus,
    Severity,
    parse,
)
from caesar_core.report import synthesize_report


def synth(**overrides: Any) -> Report:
    fields: dict[str, Any] = {
        "task_id": "t_1",
        "exit_code": 0,
        "timed_out": False,
        "cancelled": False,
        "changed_paths": [],
        "log_tail": "",
        "final_text": None,
    }
    return synthesize_report(**{**fields, **overrides})


@pytest.mark.parametrize(
    ("overrides", "status", "because"),
    [
        ({"timed_out": True, "exit_code": 0}, ReportStatus.FAILED, "ran out of time"),
        ({"cancelled": True, "changed_paths": ["a"]}, ReportStatus.FAILED, "cancelled"),
        ({"exit_code": None}, ReportStatus.FAILED, "never ran"),
        ({"exit_code": 3, "changed_paths": ["a"]}, ReportStatus.FAILED, "code 3"),
        ({"exit_code": -9}, ReportStatus.FAILED, "code -9"),
        ({"changed_paths": ["a.py", "b.py"]}, ReportStatus.PARTIAL, "changed 2 files"),
        ({"changed_paths": ["a.py"]}, ReportStatus.PARTIAL, "changed 1 file,"),
        ({}, ReportStatus.SUCCESS, "changed nothing"),
    ],
)
def test_the_status_follows_the_rules_and_the_details_say_why(
    overrides: dict[str, Any], status: ReportStatus, because: str
) -> None:
    report = synth(**overrides)
    assert report.status is status
    assert "the agent wrote no report" in report.details
    assert f"is {status.value} because" in report.details
    assert because in report.details


def test_the_report_is_a_valid_document_with_its_finding() -> None:
    report = synth(changed_paths=["src/a.py"])
    again = parse(REPORT_ADAPTER, report.to_json_bytes(), DocumentKind.REPORT)
    assert again == report
    assert report.protocol == REPORT_V1
    assert report.task_id == "t_1"
    [finding] = report.findings
    assert finding.severity is Severity.LOW
    assert finding.title == "No report from the agent"
    assert finding.detail


def test_changes_come_from_paths_or_pairs() -> None:
    report = synth(changed_paths=["a.py", ("b.py", ChangeAction.DELETED), ("", "created"), ""])
    assert [(c.path, c.action) for c in report.changes] == [
        ("a.py", ChangeAction.MODIFIED),
        ("b.py", ChangeAction.DELETED),
    ]


def test_the_summary_is_the_final_text_first() -> None:
    report = synth(final_text="  I did it.  " + "x" * 1000, log_tail="ignored")
    assert report.summary.startswith("I did it.")
    assert len(report.summary) == 500


def test_a_blank_final_text_falls_back_to_the_log() -> None:
    log = "\n".join(f"line {n}" for n in range(10)) + "\n\n  \n\x1b[31mred\x1b[0m\n"
    report = synth(final_text="   ", log_tail=log)
    assert report.summary == "line 6\nline 7\nline 8\nline 9\nred"


def test_a_long_log_line_is_cut_to_its_end() -> None:
    report = synth(log_tail="a" * 2000 + "END")
    assert len(report.summary) == 500
    assert report.summary.endswith("END")


def test_without_text_the_summary_is_a_sentence() -> None:
    report = synth(timed_out=True, log_tail="\n \n")
    assert report.summary == "No report and no output: the task ran out of time."
