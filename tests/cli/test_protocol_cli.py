"""``caesar protocol`` through the installed console script, as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from caesar_core.protocol import json_schema, strict_schema

CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
SPEC = Path(__file__).parents[1] / "protocol" / "spec"


def caesar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CAESAR, *args], capture_output=True, text=True, timeout=60, check=False)


def test_schema_lists_the_documents() -> None:
    result = caesar("protocol", "schema")
    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        "task",
        "report",
        "event",
        "lifecycle",
    ]


@pytest.mark.parametrize("document", ["task", "report", "event"])
def test_schema_prints_the_generated_schema(document: str) -> None:
    result = caesar("protocol", "schema", document)
    assert result.returncode == 0
    assert json.loads(result.stdout) == json_schema(document)


def test_strict_report_schema() -> None:
    result = caesar("protocol", "schema", "report", "--strict")
    assert result.returncode == 0
    assert json.loads(result.stdout) == strict_schema("report")


def test_unknown_document_is_a_usage_error() -> None:
    result = caesar("protocol", "schema", "memo")
    assert result.returncode == 2
    assert "task, report, event" in result.stderr


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    task = json.loads(
        "\n".join(line.split("  //")[0] for line in (SPEC / "task.jsonc").read_text().splitlines())
    )
    (tmp_path / "task.json").write_text(json.dumps(task))
    (tmp_path / "report.json").write_text(
        '{"protocol":"caesar.report/v1","status":"success","summary":"done"}'
    )
    events = (SPEC / "events.jsonl").read_text().replace('"at":"…"', '"at":"2026-01-01T00:00:00Z"')
    (tmp_path / "events.jsonl").write_text(events)
    return tmp_path


def test_valid_documents_exit_zero(documents: Path) -> None:
    result = caesar(
        "protocol",
        "validate",
        str(documents / "task.json"),
        str(documents / "report.json"),
        str(documents / "events.jsonl"),
    )
    assert result.returncode == 0, result.stderr
    assert "valid event (4 lines)" in result.stdout


def test_invalid_event_lines_are_reported_with_their_numbers(documents: Path) -> None:
    log = documents / "events.jsonl"
    lines = log.read_text().splitlines()
    lines.insert(1, "{not json")
    lines.append(lines[1 + 1].replace('"status":"started"', '"status":"exploded"'))
    lines.append(lines[0].replace("caesar.event/v1", "caesar.event/v7"))
    log.write_text("\n".join(lines) + "\n")
    result = caesar("protocol", "validate", str(log))
    assert result.returncode == 1
    assert "line 2: not JSON" in result.stderr
    assert "line 6: tool_use.status" in result.stderr
    assert "line 7: protocol: unsupported protocol 'caesar.event/v7'" in result.stderr


def test_a_v9_report_is_refused_by_name(documents: Path) -> None:
    report = documents / "report.json"
    report.write_text('{"protocol":"caesar.report/v9","status":"success","summary":"x"}')
    result = caesar("protocol", "validate", str(report))
    assert result.returncode == 1
    assert "caesar.report/v9" in result.stderr
    assert "caesar.report/v1" in result.stderr


def test_json_output_for_scripts(documents: Path) -> None:
    (documents / "task.json").write_text('{"protocol":"caesar.task/v1"}')
    result = caesar("protocol", "validate", "--json", str(documents / "task.json"))
    assert result.returncode == 1
    verdict = json.loads(result.stdout)
    assert verdict["valid"] is False and verdict["document"] == "task"
    assert {p["location"] for p in verdict["problems"]} >= {"id", "objective", "mode"}


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = caesar("protocol", "validate", str(tmp_path / "nope.json"))
    assert result.returncode == 2


def test_a_pretty_printed_document_under_any_name_is_known_by_its_protocol(
    documents: Path,
) -> None:
    task = json.loads((documents / "task.json").read_text())
    (documents / "01_task.json").write_text(json.dumps(task, indent=2))
    report = {"protocol": "caesar.report/v1", "status": "partial", "summary": "half"}
    (documents / "answer.txt").write_text(json.dumps(report, indent=4) + "\n")
    (documents / "stream.log").write_bytes((documents / "events.jsonl").read_bytes())
    result = caesar(
        "protocol",
        "validate",
        str(documents / "01_task.json"),
        str(documents / "answer.txt"),
        str(documents / "stream.log"),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("01_task.json: valid task (1 document)")
    assert lines[1].endswith("answer.txt: valid report (1 document)")
    assert lines[2].endswith("stream.log: valid event (4 lines)")


def test_a_broken_document_is_still_named_by_its_protocol(documents: Path) -> None:
    broken = documents / "02_report.json"
    broken.write_text('{\n  "protocol": "caesar.report/v1",\n  "status": "success",\n')
    result = caesar("protocol", "validate", "--json", str(broken))
    assert result.returncode == 1
    verdict = json.loads(result.stdout)
    assert verdict["document"] == "report"
    assert verdict["problems"][0]["message"].startswith("not JSON")


def test_a_report_in_a_file_named_like_a_task_is_a_report(documents: Path) -> None:
    (documents / "task.json").write_text(
        json.dumps({"protocol": "caesar.report/v1", "status": "success", "summary": "s"}, indent=2)
    )
    result = caesar("protocol", "validate", str(documents / "task.json"))
    assert result.returncode == 0, result.stderr
    assert "valid report" in result.stdout
