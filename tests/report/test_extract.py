"""The degraded tier's search: what an agent said, found in prose, fences and event lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from caesar_core.protocol import REPORT_V1, Report, ReportStatus
from caesar_core.report import EXAMPLE_REPORT, extract_from_files, extract_report
from tests.protocol import strategies as s

REFUSED_V9 = "a report in caesar.report/v9 was ignored: this caesar reads caesar.report/v1"


def report(summary: str = "done", **fields: Any) -> dict[str, Any]:
    return {"protocol": REPORT_V1, "status": "success", "summary": summary, **fields}


def said(doc: dict[str, Any]) -> str:
    return json.dumps(doc)


def summary_of(text: str) -> str | None:
    found = extract_report(text).report
    return None if found is None else found.summary


def test_fenced_blocks_of_every_kind_are_read() -> None:
    for info in ("json caesar:report", "caesar:report", "json"):
        text = f"All done.\n\n```{info}\n{json.dumps(report(info), indent=2)}\n```\nBye."
        assert summary_of(text) == info


def test_a_raw_object_in_prose_is_read() -> None:
    text = f"I fixed it. Here is my report: {said(report('fixed', details='x'))} Thanks!"
    found = extract_report(text)
    assert found.report is not None
    assert found.report.summary == "fixed"
    assert found.report.details == "x"
    assert found.refused == []


def test_an_object_nested_in_another_key_order_is_found() -> None:
    doc = {"usage": {"input_tokens": 3}, "protocol": REPORT_V1, "status": "partial"}
    doc["summary"] = "usage first"
    found = extract_report("prefix " + said(doc))
    assert found.report is not None
    assert found.report.status is ReportStatus.PARTIAL
    assert found.report.usage is not None
    assert found.report.usage.input_tokens == 3


def test_a_report_escaped_inside_a_json_event_line_is_found() -> None:
    event = {"type": "item.completed", "item": {"type": "agent_message", "text": said(report())}}
    lines = [said({"type": "turn.started"}), said(event), said({"type": "turn.completed"})]
    assert summary_of("\n".join(lines)) == "done"


def test_a_report_nested_as_an_object_in_an_event_line_is_found() -> None:
    event = {"type": "result", "structured_output": report("nested"), "cost": {"usd": 1}}
    assert summary_of(said({"type": "turn.started"}) + "\n" + said(event)) == "nested"


def test_a_fenced_report_inside_an_escaped_message_is_found() -> None:
    message = f"Finished.\n```json caesar:report\n{json.dumps(report('fenced'), indent=2)}\n```"
    assert summary_of(said({"type": "message", "text": message})) == "fenced"


def test_a_doubly_escaped_report_is_found() -> None:
    inner = said({"type": "agent_message", "text": said(report("deep"))})
    assert summary_of(said({"type": "wrapper", "payload": inner})) == "deep"


def test_the_last_valid_report_wins() -> None:
    text = f"first {said(report('one'))}\nthen {said(report('two'))}\nfinally {said(report('3'))}"
    assert summary_of(text) == "3"


def test_an_invalid_last_report_leaves_the_previous_valid_one() -> None:
    bad = report("bad", status="finished-ish")
    assert summary_of(f"{said(report('good'))}\n{said(bad)}") == "good"


def test_a_truncated_last_report_leaves_the_previous_valid_one() -> None:
    text = said(report("good")) + "\n" + said(report("cut"))[:-10]
    assert summary_of(text) == "good"


def test_an_unknown_version_is_refused_by_name_and_the_previous_valid_one_kept() -> None:
    newer = report("newer", protocol="caesar.report/v9")
    found = extract_report(f"{said(report('v1'))}\n{said(newer)}\n{said(newer)}")
    assert found.report is not None
    assert found.report.summary == "v1"
    assert found.refused == [REFUSED_V9]


def test_an_unknown_version_alone_gives_no_report_and_says_why() -> None:
    found = extract_report(said(report(protocol="caesar.report/v9")))
    assert found.report is None
    assert found.refused == [REFUSED_V9]


def test_a_refused_report_before_the_winner_is_not_mentioned() -> None:
    text = f"{said(report(protocol='caesar.report/v9'))} {said(report('later'))}"
    found = extract_report(text)
    assert found.report is not None
    assert found.refused == []


def test_nulls_inside_a_report_read_as_absent() -> None:
    doc = report(details=None, usage=None, changes=[{"path": "a.py", "action": None}])
    found = extract_report(f"answer: {said(doc)}")
    assert found.report is not None
    assert found.report.details == ""
    assert found.report.usage is None
    assert found.report.changes[0].action == "modified"


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scanner() -> None:
    tricky = 'a } b { c "}" \\" {{ \\\\'
    doc = report(tricky, details="}}}{", next_steps=["{", "}"])
    text = f"noise {{ unbalanced }} }} {said(doc)} more {{ noise"
    assert summary_of(text) == tricky


def test_a_report_quoting_another_report_is_the_one_found() -> None:
    quoted = said(report("quoted", status="failed"))
    assert summary_of(said(report("outer", details=f"An old one: {quoted}"))) == "outer"


def test_an_object_merely_mentioning_the_marker_is_not_a_report() -> None:
    text = said({"type": "message", "text": "see caesar.report/v1 in the spec"})
    assert extract_report(text).report is None


def test_no_report_gives_none() -> None:
    assert extract_report("") == extract_report("just {prose} and ```json\n{}\n```")
    found = extract_report("the spec says caesar.report/v1 is the version")
    assert found.report is None
    assert found.refused == []


def test_the_brief_example_echoed_in_the_output_is_not_taken_for_a_report() -> None:
    example = json.dumps(EXAMPLE_REPORT.to_json_dict(), indent=2)
    echoed = f"Prompt was:\n```json\n{example}\n```\n"
    assert extract_report(echoed).report is None
    assert summary_of(echoed + said(report("real"))) == "real"


def test_a_big_log_with_the_report_at_the_end() -> None:
    line = said({"type": "item.completed", "item": {"text": 'log { "x": [1, 2] } }'}}) + "\n"
    noise = line * (20_000_000 // len(line))
    assert summary_of(noise + said(report("at last"))) == "at last"


def test_adversarial_inputs_finish_and_find_nothing() -> None:
    many_markers = '{"text": "caesar.report/v1 {{ ' * 100_000
    braces = "{" * 100 + '"caesar.report/v1"' + "{}" * 500_000
    escaped_noise = '\\"caesar.report/v1\\" "' * 100_000
    escaped_quotes = ('\\"' * 5_000 + '\\"caesar.report/v1\\"') * 64
    backslashes = ("\\" * 100_001 + '"caesar.report/v1') * 64
    for text in (many_markers, braces, escaped_noise, escaped_quotes, backslashes):
        assert extract_report(text).report is None
        assert summary_of(text + "\n" + said(report("after"))) == "after"


def test_the_first_file_with_a_report_wins(tmp_path: Path) -> None:
    final, stdout, raw = tmp_path / "final.txt", tmp_path / "stdout", tmp_path / "raw.log"
    stdout.write_text(f"text {said(report('stdout'))}")
    raw.write_text(f"{said(report('raw'))}")
    found = extract_from_files([final, stdout, raw])
    assert found.report is not None
    assert found.report.summary == "stdout"
    final.write_text(said(report(protocol="caesar.report/v9")))
    found = extract_from_files([final, stdout, raw])
    assert found.report is not None
    assert found.report.summary == "stdout"
    assert found.refused == [REFUSED_V9]


def test_files_without_a_report_give_none(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_text("nothing here")
    found = extract_from_files([tmp_path / "missing", tmp_path / "empty.log", tmp_path])
    assert found.report is None
    assert found.refused == []


def test_only_the_tail_of_a_big_file_is_read(tmp_path: Path) -> None:
    log = tmp_path / "raw.log"
    head = said(report("head")) + "\n"
    log.write_text(head + "é" * 600_000 + "\n" + said(report("tail")))
    assert extract_from_files([log], tail_bytes=1 << 20).report is not None
    log.write_text(head + "é" * 600_000)
    assert extract_from_files([log], tail_bytes=1 << 20).report is None
    assert extract_from_files([log], tail_bytes=4 << 20).report is not None


prose = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="`{}"),
    max_size=200,
)


@settings(max_examples=200)
@given(before=prose, doc=s.reports, after=prose, indent=st.sampled_from([None, 2]))
def test_any_report_said_in_prose_is_recovered(
    before: str, doc: Report, after: str, indent: int | None
) -> None:
    body = json.dumps(doc.to_json_dict(), indent=indent, ensure_ascii=False)
    found = extract_report(before + body + after)
    assert found.report is not None
    assert found.report.to_json_dict() == doc.to_json_dict()
