from __future__ import annotations

from datetime import UTC, datetime, timedelta

from caesar_core.protocol import EVENT_ADAPTER, Event
from caesar_tui.activity_rows import RowBuilder

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def ev(seq: int, **fields: object) -> Event:
    return EVENT_ADAPTER.validate_python(
        {
            "protocol": "caesar.event/v1",
            "seq": seq,
            "at": T0 + timedelta(seconds=seq),
            "task_id": "t",
            **fields,
        }
    )


def test_a_call_is_one_row_from_start_to_end() -> None:
    rows = RowBuilder()
    rows.feed(
        [ev(0, type="tool_use", tool="Bash", id="toolu_1", input_summary="ls", status="started")]
    )
    [changed] = rows.feed([ev(2, type="tool_use", tool="", id="toolu_1", status="failed")])
    assert changed.key == "e0" and changed.title == "Bash" and changed.text == "ls"
    assert changed.status == "failed" and changed.ended_at == T0 + timedelta(seconds=2)
    assert len(rows.rows) == 1


def test_ends_without_starts_are_completed_rows() -> None:
    rows = RowBuilder()
    rows.feed(
        [
            ev(n, type="tool_use", tool="read", input_summary=f"f{n}", status="succeeded")
            for n in range(3)
        ]
    )
    assert [r.status for r in rows.rows.values()] == ["succeeded"] * 3


def test_identical_commands_without_ids_pair_first_in_first_out() -> None:
    rows = RowBuilder()
    start = {"type": "tool_use", "tool": "bash", "input_summary": "make"}
    rows.feed([ev(0, **start, status="started"), ev(1, **start, status="started")])
    rows.feed([ev(2, **start, status="succeeded")])
    assert rows.rows["e0"].status == "succeeded" and rows.rows["e1"].status == "started"


def test_message_fragments_glue_into_one_row() -> None:
    rows = RowBuilder()
    rows.feed([ev(0, type="message", text="Hel"), ev(1, type="message", text="lo")])
    rows.feed([ev(2, type="thinking", text="hm"), ev(3, type="message", text="again")])
    texts = [r.text for r in rows.rows.values() if r.kind == "message"]
    assert texts == ["Hello", "again"]


def test_two_thousand_events_stay_paired() -> None:
    rows = RowBuilder()
    events = []
    for n in range(1000):
        events.append(
            ev(
                2 * n,
                type="tool_use",
                tool="bash",
                id=f"c{n}",
                input_summary=str(n),
                status="started",
            )
        )
    for n in range(1000):
        events.append(ev(2000 + n, type="tool_use", tool="", id=f"c{n}", status="succeeded"))
    rows.feed(events)
    assert len(rows.rows) == 1000
    assert all(
        r.status == "succeeded" and r.text == str(int(r.key[1:]) // 2) for r in rows.rows.values()
    )
