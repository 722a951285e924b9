"""The tail sees every line once, in order, and says when the file changed under it."""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caesar_core.events import EventTail, LineTail, encode_line, read_events
from caesar_core.events.tail import read_last_events
from caesar_core.protocol import (
    Event,
    FileChanged,
    Finished,
    Message,
    Progress,
    ReportStatus,
    Thinking,
    ToolStatus,
    ToolUse,
)
from caesar_core.protocol.event import EventPayload

AT = datetime(2026, 8, 9, 10, 0, 0, 123000, tzinfo=UTC)
PAYLOADS: list[EventPayload] = [
    ToolUse(tool="shell", id="call_1", input_summary="rg -n 'é' src/", status=ToolStatus.STARTED),
    Thinking(text="planning the change…"),
    ToolUse(id="call_1", status=ToolStatus.SUCCEEDED),
    FileChanged(path="src/世界.py"),
    Progress(message="half way", pct=50),
    Message(text="done"),
    Finished(status=ReportStatus.SUCCESS, summary="ok", exit_code=0),
]


def sample_log(count: int = len(PAYLOADS)) -> bytes:
    return b"".join(
        encode_line(PAYLOADS[n % len(PAYLOADS)], seq=n, at=AT, task_id="t-1") for n in range(count)
    )


def line(seq: int, text: str = "x") -> bytes:
    return encode_line(Message(text=text), seq=seq, at=AT, task_id="t-1")


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "events.jsonl"


# -- LineTail --------------------------------------------------------------------------------


def test_a_missing_file_reads_as_empty_until_it_appears(log: Path) -> None:
    with LineTail(log) as tail:
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line, chunk.reset) == ([], 1, False)
        log.write_bytes(b"one\ntwo\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line, chunk.reset) == ([b"one", b"two"], 1, False)


def test_a_partial_line_is_held_back_until_completed(log: Path) -> None:
    log.write_bytes(b"one\ntw")
    with LineTail(log) as tail:
        assert tail.read().lines == [b"one"]
        assert tail.read().lines == []
        append(log, b"o")
        assert tail.read().lines == []
        append(log, b"\nthr")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line) == ([b"two"], 2)
        append(log, b"ee\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line) == ([b"three"], 3)


def test_blank_lines_are_skipped_but_counted(log: Path) -> None:
    log.write_bytes(b"\n\na\n \nb\r\n\n")
    with LineTail(log) as tail:
        chunk = tail.read()
        assert chunk.lines == [b"a", b"b\r"]
        assert chunk.first_line == 3
        assert chunk.line_numbers() == [3, 5]
        append(log, b"c\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line, chunk.line_numbers()) == ([b"c"], 7, [7])
        append(log, b"\n")
        assert tail.read().first_line == 9


def test_truncation_resets_and_rereads(log: Path) -> None:
    log.write_bytes(b"a\nb\nc\n")
    with LineTail(log) as tail:
        assert tail.read().lines == [b"a", b"b", b"c"]
        log.write_bytes(b"x\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line, chunk.reset) == ([b"x"], 1, True)
        append(log, b"y\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line, chunk.reset) == ([b"y"], 2, False)


def test_truncation_to_empty_resets(log: Path) -> None:
    log.write_bytes(b"a\n")
    with LineTail(log) as tail:
        tail.read()
        log.write_bytes(b"")
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([], True)
        assert tail.read().reset is False


def test_replacement_resets(log: Path) -> None:
    log.write_bytes(b"a\nb\n")
    with LineTail(log) as tail:
        tail.read()
        fresh = log.with_name("fresh")
        fresh.write_bytes(b"a\nb\nc\n")  # longer, same prefix: only the inode tells
        fresh.replace(log)
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([b"a", b"b", b"c"], True)


def test_rewrite_in_place_with_the_same_length_resets(log: Path) -> None:
    log.write_bytes(b"alpha\nbravo\n")
    with LineTail(log) as tail:
        tail.read()
        inode = log.stat().st_ino
        with log.open("r+b") as handle:
            handle.write(b"ALPHA\nBRAVO\n")
        assert log.stat().st_ino == inode
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([b"ALPHA", b"BRAVO"], True)


def test_rewrite_in_place_that_grows_resets(log: Path) -> None:
    log.write_bytes(b"alpha\nbravo\n")
    with LineTail(log) as tail:
        tail.read()
        with log.open("r+b") as handle:
            handle.write(b"ALPHA\nBRAVO\ncharlie\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([b"ALPHA", b"BRAVO", b"charlie"], True)


def test_disappearance_resets_and_reappearance_reads_from_the_top(log: Path) -> None:
    log.write_bytes(b"a\n")
    with LineTail(log) as tail:
        tail.read()
        log.unlink()
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([], True)
        assert tail.read().reset is False
        log.write_bytes(b"b\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.first_line) == ([b"b"], 1)


def test_removal_and_recreation_between_reads_is_one_reset(log: Path) -> None:
    log.write_bytes(b"a\nb\n")
    with LineTail(log) as tail:
        tail.read()
        log.unlink()
        log.write_bytes(b"c\nd\ne\n")
        chunk = tail.read()
        assert (chunk.lines, chunk.reset) == ([b"c", b"d", b"e"], True)


def test_max_bytes_bounds_one_read(log: Path) -> None:
    data = b"".join(b"%07d\n" % n for n in range(400_000))  # 3.2 MB: several chunks
    log.write_bytes(data)
    got: list[bytes] = []
    reads = 0
    with LineTail(log) as tail:
        while (chunk := tail.read(max_bytes=1)).lines:
            assert chunk.first_line == len(got) + 1
            got.extend(chunk.lines)
            reads += 1
    assert got == data.splitlines()
    assert reads >= 3


def test_a_huge_line_spanning_many_chunks(log: Path) -> None:
    big = b"x" * (3 * (1 << 20) + 17)
    log.write_bytes(b"a\n" + big)
    with LineTail(log) as tail:
        assert tail.read().lines == [b"a"]
        append(log, b"\nb\n")
        chunk = tail.read()
        assert chunk.lines == [big, b"b"]
        assert chunk.line_numbers() == [2, 3]


def test_a_read_after_one_append_reads_only_the_new_bytes(log: Path) -> None:
    log.write_bytes(line(0) * 5000)
    with LineTail(log) as tail:
        tail.read()
        before = tail.offset
        append(log, line(1))
        assert tail.read().lines == [line(1).rstrip(b"\n")]
        assert tail.offset - before == len(line(1))


def test_a_closed_tail_refuses(log: Path) -> None:
    tail = LineTail(log)
    tail.close()
    with pytest.raises(ValueError, match="closed"):
        tail.read()


# -- EventTail -------------------------------------------------------------------------------


def test_read_events_of_a_missing_file(log: Path) -> None:
    assert read_events(log) == ([], [])


def test_events_are_parsed_in_order(log: Path) -> None:
    log.write_bytes(sample_log(20))
    events, bad = read_events(log)
    assert not bad
    assert [event.seq for event in events] == list(range(20))
    assert events[3].type == "file_changed"


def test_byte_by_byte_writes_yield_the_same_events(log: Path) -> None:
    data = sample_log()
    expected, _ = read_events_of(data, log.with_name("whole.jsonl"))
    got: list[Event] = []
    with EventTail(log) as tail:
        for index in range(len(data)):
            append(log, data[index : index + 1])
            batch = tail.read()
            assert not batch.reset
            assert not batch.bad
            got.extend(batch.events)
    assert got == expected
    assert len(got) == len(PAYLOADS)


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=40),
    cuts=st.lists(st.integers(min_value=0, max_value=1 << 14), max_size=30),
)
def test_any_chunking_yields_the_same_events(count: int, cuts: list[int]) -> None:
    data = sample_log(count)
    boundaries = sorted({cut % (len(data) + 1) for cut in cuts} | {len(data)})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "events.jsonl"
        expected, _ = read_events_of(data, Path(directory) / "whole.jsonl")
        got: list[Event] = []
        start = 0
        with EventTail(path) as tail:
            for end in boundaries:
                append(path, data[start:end])
                start = end
                batch = tail.read()
                assert not batch.reset
                got.extend(batch.events)
    assert got == expected
    assert [event.seq for event in got] == list(range(count))


def read_events_of(data: bytes, path: Path) -> tuple[list[Event], list[object]]:
    path.write_bytes(data)
    events, bad = read_events(path)
    return events, list(bad)


def test_bad_lines_are_counted_with_their_line_numbers(log: Path) -> None:
    log.write_bytes(
        line(0)
        + b"not json\n"
        + b"\n"
        + b'{"protocol":"caesar.event/v1","seq":2}\n'
        + line(3)
        + b"[1, 2]\n"
        + b'{"protocol":"caesar.event/v1","seq":5,"at":"2026-08-09T10:00:00Z",'
        b'"task_id":"t","type":"progress","message":"m","pct":500}\n'
        + b"[" * 10_000
        + b"\n"
        + b"\xff\xfe\n"
    )
    with EventTail(log) as tail:
        batch = tail.read()
        assert [event.seq for event in batch.events] == [0, 3]
        assert [bad.line for bad in batch.bad] == [2, 4, 6, 7, 8, 9]
        assert batch.bad[0].reason.startswith("not JSON")
        assert "pct" in batch.bad[3].reason
        assert all(len(bad.reason) <= 200 for bad in batch.bad)
        assert tail.bad_total == 6
        append(log, b"oops\n" + line(11))
        batch = tail.read()
        assert [bad.line for bad in batch.bad] == [10]
        assert [event.seq for event in batch.events] == [11]
        assert tail.bad_total == 7
        log.write_bytes(b"oops\n")
        batch = tail.read()
        assert batch.reset
        assert tail.bad_total == 1


def test_an_unknown_version_is_a_bad_line_that_names_it(log: Path) -> None:
    future = line(1).replace(b"caesar.event/v1", b"caesar.event/v2")
    log.write_bytes(line(0) + future + line(2))
    events, bad = read_events(log)
    assert [event.seq for event in events] == [0, 2]
    assert len(bad) == 1
    assert bad[0].line == 2
    assert "caesar.event/v2" in bad[0].reason


def test_a_big_batch_leaves_the_collector_as_it_found_it(log: Path) -> None:
    log.write_bytes(sample_log(6000) + b"bad\n")
    assert gc.isenabled()
    events, bad = read_events(log)
    assert gc.isenabled()
    assert len(events) == 6000
    assert [b.line for b in bad] == [6001]
    gc.disable()
    try:
        read_events(log)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_explicit_nulls_read_as_absent(log: Path) -> None:
    log.write_bytes(
        b'{"protocol":"caesar.event/v1","seq":0,"at":"2026-08-09T10:00:00Z",'
        b'"task_id":"t","type":"progress","message":"m","pct":null}\n'
    )
    events, bad = read_events(log)
    assert not bad
    assert len(events) == 1
    assert events[0].type == "progress"


def test_event_tail_reports_resets(log: Path) -> None:
    log.write_bytes(line(0) + line(1))
    with EventTail(log) as tail:
        assert len(tail.read().events) == 2
        fresh = log.with_name("fresh")
        fresh.write_bytes(line(0))
        fresh.replace(log)
        batch = tail.read()
        assert batch.reset
        assert [event.seq for event in batch.events] == [0]


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from caesar_core.events import EventWriter
    from caesar_core.protocol import Finished, Message, ReportStatus, ToolUse

    path, count = Path(sys.argv[1]), int(sys.argv[2])
    with EventWriter(path, "t-live") as writer:
        for n in range(count):
            if n % 3:
                writer.append(Message(text="m" * (n % 700)))
            else:
                writer.append(ToolUse(tool="shell", id=f"call_{n}", status="started"))
        writer.append(Finished(status=ReportStatus.SUCCESS))
    """
)


@pytest.mark.slow
def test_tailing_a_log_while_another_process_writes_it(log: Path) -> None:
    count = 3000
    got: list[Event] = []
    reads = 0
    with contextlib.ExitStack() as stack:
        proc = stack.enter_context(
            subprocess.Popen([sys.executable, "-c", WRITER, str(log), str(count)])
        )
        tail = stack.enter_context(EventTail(log))
        deadline = time.monotonic() + 120
        while not (got and got[-1].type == "finished"):
            assert time.monotonic() < deadline, f"saw {len(got)} events before the deadline"
            batch = tail.read()
            assert not batch.reset
            assert not batch.bad
            got.extend(batch.events)
            reads += 1
            if not batch.events:
                os.sched_yield()
        assert proc.wait(timeout=60) == 0
    assert [event.seq for event in got] == list(range(count + 1))
    assert reads > 1


@pytest.mark.parametrize("hostile", ["symlink", "directory", "fifo", "hardlink"])
def test_a_log_that_is_not_a_plain_file_reads_as_none_and_says_why(
    log: Path, tmp_path: Path, hostile: str
) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(sample_log())
    if hostile == "symlink":
        log.symlink_to(outside)
    elif hostile == "directory":
        log.mkdir()
    elif hostile == "fifo":
        os.mkfifo(log)
    else:
        log.hardlink_to(outside)
    with EventTail(log) as tail:
        batch = tail.read()
        assert batch.events == [] and batch.bad == []
        assert str(log) in tail.problem
    assert read_events(log) == ([], [])
    assert read_last_events(log, 5) == []
    if hostile == "directory":
        log.rmdir()
    else:
        log.unlink()
    append(log, line(0))
    with EventTail(log) as tail:
        assert len(tail.read().events) == 1 and tail.problem == ""


# -- pass_on ---------------------------------------------------------------------------------


def test_pass_on_gives_the_lines_read_gives_in_batches_its_finished_events_held(
    log: Path,
) -> None:
    """A log of some 3 MiB: valid lines across batch boundaries (a line cut by a batch's end
    included), bad and blank lines among them, ``finished`` events held back."""
    from caesar_core.events.tail import BATCH_BYTES
    from caesar_core.protocol.event import FinishedEvent

    good = sample_log(20_000).splitlines(keepends=True)
    mixed = b"".join(
        piece
        for n, one in enumerate(good)
        for piece in (
            (b"not json\n", one) if n % 997 == 5 else (b"\n", one) if n % 1009 == 7 else (one,)
        )
    )
    assert len(mixed) > 2 * BATCH_BYTES
    log.write_bytes(mixed)
    with EventTail(log) as whole:
        expected = whole.read()
    with EventTail(log) as tail:
        batches = list(tail.pass_on(hold=FinishedEvent))
        assert len(batches) > 2
        assert [line for b in batches for line in b.lines] == [
            line
            for event, line in zip(expected.events, expected.lines, strict=True)
            if not isinstance(event, FinishedEvent)
        ]
        held = [(event, line) for b in batches for event, line in b.held]
        assert [line for _, line in held] == [
            line
            for event, line in zip(expected.events, expected.lines, strict=True)
            if isinstance(event, FinishedEvent)
        ]
        assert all(isinstance(event, FinishedEvent) for event, _ in held)
        assert [bad.line for b in batches for bad in b.bad] == [bad.line for bad in expected.bad]
        assert tail.bad_total == len(expected.bad) > 0
        append(log, line(20_000))
        appended = [one for b in tail.pass_on(hold=FinishedEvent) for one in b.lines]
        assert appended == [line(20_000)[:-1]]
