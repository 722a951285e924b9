"""The event writer owns ``seq``: unique, increasing, whole lines, one ``finished`` per writer.

Everything here runs on real files; concurrency is tested with real processes, because
``flock`` and ``O_APPEND`` are the mechanism under test.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from caesar_core.events import EventWriter, encode_line, lock_path_for, read_events
from caesar_core.protocol import (
    Finished,
    FinishedEvent,
    Message,
    MessageEvent,
    Progress,
    ReportStatus,
    ToolStatus,
    ToolUse,
)

START = datetime(2026, 8, 9, 10, 0, 0, 123456, tzinfo=UTC)


def ticking_clock() -> Callable[[], datetime]:
    moments: Iterator[datetime] = (START + timedelta(milliseconds=n) for n in range(10**9))
    return lambda: next(moments)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "events.jsonl"


def raw_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def seqs(path: Path) -> list[int]:
    events, bad = read_events(path)
    assert not bad
    return [event.seq for event in events]


def foreign(seq: int, text: str = "foreign", task_id: str = "t-1") -> bytes:
    """A line as an agent writing events itself would produce it."""
    return encode_line(Message(text=text), seq=seq, at=START, task_id=task_id)


def test_seq_starts_at_zero_and_increments(log: Path) -> None:
    with EventWriter(log, "t-1", clock=ticking_clock()) as writer:
        written = [writer.append(Message(text=str(n))) for n in range(5)]
    assert [event.seq for event in written if event is not None] == [0, 1, 2, 3, 4]
    assert seqs(log) == [0, 1, 2, 3, 4]


def test_line_format_is_compact_ordered_and_utf8(log: Path) -> None:
    def clock() -> datetime:
        return datetime(2026, 8, 9, 12, 0, 0, 123999, tzinfo=timezone(timedelta(hours=2)))

    with EventWriter(log, "t-1", clock=clock) as writer:
        event = writer.append(ToolUse(tool="shell", id="call_1", status=ToolStatus.STARTED))
        writer.append(Message(text="héllo → 世界"))
    first, second = raw_lines(log)
    assert first == (
        b'{"protocol":"caesar.event/v1","seq":0,"at":"2026-08-09T10:00:00.123Z",'
        b'"task_id":"t-1","type":"tool_use","tool":"shell","id":"call_1",'
        b'"input_summary":"","status":"started"}'
    )
    assert "héllo → 世界".encode() in second
    assert list(json.loads(first))[:4] == ["protocol", "seq", "at", "task_id"]
    assert event is not None
    assert event.at == datetime(2026, 8, 9, 10, 0, 0, 123000, tzinfo=UTC)


def test_absent_optionals_are_left_out(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Progress(message="half"))
    assert "pct" not in json.loads(raw_lines(log)[0])


def test_the_envelope_cannot_be_forged_by_payload_extras(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        event = writer.append(Message(text="x", seq=99, task_id="other", protocol="v9"))
    data = json.loads(raw_lines(log)[0])
    assert (data["seq"], data["task_id"], data["protocol"]) == (0, "t-1", "caesar.event/v1")
    assert isinstance(event, MessageEvent)
    assert event.seq == 0


def test_a_naive_clock_is_refused(log: Path) -> None:
    with (
        EventWriter(log, "t-1", clock=lambda: datetime(2026, 1, 1)) as writer,
        pytest.raises(ValueError, match="naive"),
    ):
        writer.append(Message(text="x"))
    assert not log.read_bytes()


def test_finished_is_written_once(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        first = writer.append(Finished(status=ReportStatus.SUCCESS, summary="done"))
        second = writer.append(Finished(status=ReportStatus.FAILED))
        after = writer.append(Message(text="late"))
    assert isinstance(first, FinishedEvent)
    assert second is None
    assert after is not None
    assert after.seq == 1
    events, _ = read_events(log)
    assert [event.type for event in events] == ["finished", "message"]


def test_a_finished_line_in_the_log_never_silences_caesar(log: Path) -> None:
    """Agents may append lines: one that looks like caesar's ending (the agent's own, or a
    previous writer's) must not stop caesar from writing its own."""
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="hi"))
        with log.open("ab") as raw:
            line = encode_line(
                Finished(status=ReportStatus.SUCCESS, summary="all tests pass"),
                seq=1,
                at=START,
                task_id="t-1",
            )
            raw.write(line)
        ours = writer.append(Finished(status=ReportStatus.FAILED))
    assert ours is not None and ours.seq == 2
    lock_path_for(log).unlink()  # a rescan reads the forged line too: it still decides nothing
    with EventWriter(log, "t-1") as writer:
        assert writer.append(Finished(status=ReportStatus.FAILED)) is not None
    assert seqs(log) == [0, 1, 2, 3]


def test_a_stray_finished_object_does_not_close_the_task(log: Path) -> None:
    log.write_bytes(b'{"type":"finished"}\n')
    with EventWriter(log, "t-1") as writer:
        assert writer.append(Finished(status=ReportStatus.SUCCESS)) is not None


def test_append_many_writes_one_batch_with_one_finished(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        written = writer.append_many(
            [
                Message(text="a"),
                Finished(status=ReportStatus.SUCCESS),
                Finished(status=ReportStatus.FAILED),
                Message(text="b"),
            ]
        )
        assert writer.append_many([]) == []
    assert [event.seq for event in written] == [0, 1, 2]
    assert [event.type for event in written] == ["message", "finished", "message"]
    assert seqs(log) == [0, 1, 2]


def test_foreign_lines_advance_the_next_seq(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="ours"))
        with log.open("ab") as raw:
            raw.write(foreign(41) + b"not json at all\n" + foreign(7))
        event = writer.append(Message(text="ours again"))
    assert event is not None
    assert event.seq == 42


def test_a_foreign_partial_line_does_not_swallow_ours(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="first"))
        with log.open("ab") as raw:
            raw.write(b'{"protocol":"caesar.event/v1","seq":1,"ty')
        event = writer.append(Message(text="whole"))
    assert event is not None
    lines = raw_lines(log)
    assert lines[1] == b'{"protocol":"caesar.event/v1","seq":1,"ty'
    assert json.loads(lines[2])["text"] == "whole"
    events, bad = read_events(log)
    assert [e.seq for e in events] == [0, event.seq]
    assert [b.line for b in bad] == [2]


def test_a_complete_foreign_line_without_newline_reserves_its_seq(log: Path) -> None:
    log.write_bytes(foreign(5).rstrip(b"\n"))
    with EventWriter(log, "t-1") as writer:
        event = writer.append(Message(text="ours"))
    assert event is not None
    assert seqs(log) == [5, 6]


def test_a_partial_line_seen_while_refusing_is_rescanned_once_completed(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Finished(status=ReportStatus.SUCCESS))
        line = foreign(9)
        with log.open("ab") as raw:
            raw.write(line[:10])
            raw.flush()
            assert writer.append(Finished(status=ReportStatus.SUCCESS)) is None
            raw.write(line[10:])
        event = writer.append(Message(text="after"))
    assert event is not None
    assert event.seq == 10


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"not json",
        b'{"size": "12"}',
        b'{"size":-1,"inode":1,"next_seq":0,"tail":""}',
        b'{"size":999999,"inode":1,"next_seq":0,"tail":""}',
        b"\x00\xff" * 50,
        # What an agent can write there: nested past any parser's recursion.
        pytest.param(b"[" * 4000, id="deep"),
    ],
)
def test_corrupt_lock_state_recovers_by_rescanning(log: Path, garbage: bytes) -> None:
    with EventWriter(log, "t-1") as writer:
        for n in range(3):
            writer.append(Message(text=str(n)))
        lock_path_for(log).write_bytes(garbage)
        event = writer.append(Message(text="after"))
    assert event is not None
    assert event.seq == 3
    assert seqs(log) == [0, 1, 2, 3]


def test_a_lying_lock_state_of_the_right_shape_is_caught_by_the_fingerprint(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="a"))
        state = json.loads(lock_path_for(log).read_bytes())
        # Rewrite the log in place, same length, with a higher seq the cache does not know.
        original = log.read_bytes()
        replacement = foreign(8, text="z")
        assert len(replacement) == len(original)
        with log.open("r+b") as raw:
            raw.write(replacement)
        assert json.loads(lock_path_for(log).read_bytes()) == state
        event = writer.append(Message(text="b"))
    assert event is not None
    assert event.seq == 9


def test_lock_state_tracks_the_log(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="a"))
        writer.append(Finished(status=ReportStatus.SUCCESS))
    state = json.loads(lock_path_for(log).read_bytes())
    assert state["size"] == log.stat().st_size
    assert state["inode"] == log.stat().st_ino
    assert state["next_seq"] == 2
    assert "finished" not in state  # nothing an agent can forge decides caesar's ending


def test_truncation_forces_a_rescan(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        for n in range(5):
            writer.append(Message(text=str(n)))
        keep = b"".join(line + b"\n" for line in raw_lines(log)[:2])
        with log.open("r+b") as raw:
            raw.truncate(len(keep))
        event = writer.append(Message(text="after"))
    assert event is not None
    assert event.seq == 2
    assert seqs(log) == [0, 1, 2]


def test_truncation_to_empty_restarts_the_task(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Finished(status=ReportStatus.SUCCESS))
        log.write_bytes(b"")
        assert writer.append(Finished(status=ReportStatus.SUCCESS)) is not None
    assert seqs(log) == [0]


def test_a_replaced_log_is_followed(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="old"))
        fresh = log.with_name("fresh.jsonl")
        fresh.write_bytes(foreign(100))
        fresh.replace(log)
        event = writer.append(Message(text="new"))
    assert event is not None
    assert event.seq == 101
    assert seqs(log) == [100, 101]


def test_a_removed_log_is_recreated(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="old"))
        log.unlink()
        event = writer.append(Message(text="new"))
    assert event is not None
    assert seqs(log) == [0]


def test_a_removed_lock_file_is_recreated(log: Path) -> None:
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="a"))
        lock_path_for(log).unlink()
        writer.append(Message(text="b"))
    assert lock_path_for(log).exists()
    assert seqs(log) == [0, 1]


def test_two_writers_in_one_process_share_the_sequence(log: Path) -> None:
    with EventWriter(log, "t-1") as one, EventWriter(log, "t-1") as two:
        for n in range(10):
            (one if n % 2 else two).append(Message(text=str(n)))
    assert seqs(log) == list(range(10))


def test_a_closed_writer_refuses(log: Path) -> None:
    writer = EventWriter(log, "t-1")
    writer.close()
    writer.close()
    assert writer.closed
    with pytest.raises(ValueError, match="closed"):
        writer.append(Message(text="x"))


def test_logs_in_one_directory_have_separate_locks(tmp_path: Path) -> None:
    assert lock_path_for(tmp_path / "events.jsonl") == tmp_path / ".events.lock"
    assert lock_path_for(tmp_path / "other.jsonl") != lock_path_for(tmp_path / "events.jsonl")


APPENDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from caesar_core.events import EventWriter
    from caesar_core.protocol import Message

    path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    with EventWriter(path, "t-race") as writer:
        print("ready", flush=True)
        sys.stdin.readline()  # the start gun: both processes append at the same time
        for n in range(count):
            writer.append(Message(text=f"{name}:{n}"))
    """
)


@pytest.mark.slow
def test_two_processes_appending_concurrently_never_share_a_seq(log: Path) -> None:
    count = 10_000
    with contextlib.ExitStack() as stack:
        procs = [
            stack.enter_context(
                subprocess.Popen(
                    [sys.executable, "-c", APPENDER, str(log), name, str(count)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
            for name in ("a", "b")
        ]
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.close()
        for proc in procs:
            assert proc.wait(timeout=240) == 0

    events, bad = read_events(log)
    assert not bad
    assert len(raw_lines(log)) == 2 * count
    numbers = [event.seq for event in events]
    assert numbers == sorted(numbers), "the file is in seq order"
    assert set(numbers) == set(range(2 * count))
    for name in ("a", "b"):
        own = [e.text for e in events if isinstance(e, MessageEvent) and e.text.startswith(name)]
        assert own == [f"{name}:{n}" for n in range(count)]
    writers = [e.text[0] for e in events if isinstance(e, MessageEvent)]
    interleaved = sum(1 for x, y in itertools.pairwise(writers) if x != y)
    assert interleaved > 1, "the two processes did run concurrently"


@pytest.mark.parametrize("sabotage", ["symlink", "hardlink", "directory", "fifo"])
@pytest.mark.parametrize("victim", ["events.jsonl", ".events.lock"])
def test_a_sabotaged_log_or_lock_is_moved_aside_never_written_through(
    log: Path, tmp_path: Path, victim: str, sabotage: str
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"the user's own file\n")
    with EventWriter(log, "t-1") as writer:
        writer.append(Message(text="before"))
    entry = log.parent / victim
    entry.unlink()
    if sabotage == "symlink":
        entry.symlink_to(outside)
    elif sabotage == "hardlink":
        entry.hardlink_to(outside)
    elif sabotage == "directory":
        entry.mkdir()
    else:
        os.mkfifo(entry)
    with EventWriter(log, "t-1") as writer:
        event = writer.append(Finished(status=ReportStatus.FAILED))
    assert event is not None
    assert outside.read_bytes() == b"the user's own file\n"
    assert (log.parent / f"{victim}.refused-1").exists() or (
        log.parent / f"{victim}.refused-1"
    ).is_symlink()
    events, _ = read_events(log)
    notice = events[-2]
    assert notice.type == "error" and f"{victim} was" in notice.message
    assert "moved it aside" in notice.message
    assert events[-1].type == "finished"
