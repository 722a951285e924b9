"""The activity fold: what each agent's event stream looks like to the TUI's list row."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caesar_core.events.activity import Activity, ActivityStatus
from caesar_core.events.fold import (
    HEADLINE_CAP,
    MAX_OPEN_CALLS,
    RECENT_CALLS,
    SPEECH_CAP,
    STALL_AFTER,
    ActivityFold,
)
from caesar_core.protocol.event import (
    AnswerEvent,
    Envelope,
    ErrorEvent,
    Event,
    FileChangedEvent,
    FinishedEvent,
    MessageEvent,
    ProgressEvent,
    QuestionEvent,
    StartedEvent,
    ThinkingEvent,
    ToolStatus,
    ToolUseEvent,
)
from caesar_core.protocol.report import ChangeAction, ReportStatus

E = TypeVar("E", bound=Envelope)

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
STARTED, OK, FAILED = ToolStatus.STARTED, ToolStatus.SUCCEEDED, ToolStatus.FAILED


class Stream:
    """Assigns the envelope as the event writer would: seq from 0, one second apart."""

    def __init__(self, task_id: str = "t1") -> None:
        self.task_id = task_id
        self.seq = 0
        self.at = T0
        self.events: list[Event] = []

    def __call__(self, cls: type[E], *, wait: float = 1.0, **fields: Any) -> E:
        if self.events:
            self.at += timedelta(seconds=wait)
        event = cls(
            protocol="caesar.event/v1", seq=self.seq, at=self.at, task_id=self.task_id, **fields
        )
        self.seq += 1
        self.events.append(event)  # type: ignore[arg-type]
        return event

    def tool(
        self,
        tool: str,
        status: ToolStatus,
        id: str = "",  # noqa: A002 - the wire field's name
        summary: str = "",
        **kw: Any,
    ) -> None:
        self(ToolUseEvent, tool=tool, id=id, input_summary=summary, status=status, **kw)

    def fold(self) -> ActivityFold:
        fold = ActivityFold()
        fold.apply_all(self.events)
        return fold

    def snapshot(self, after: float = 0.0) -> Activity:
        return self.fold().snapshot(self.at + timedelta(seconds=after))


def test_no_events_is_waiting() -> None:
    activity = ActivityFold("t9").snapshot(T0)
    assert activity.status is ActivityStatus.WAITING
    assert activity.headline == "waiting for the first event"
    assert activity.task_id == "t9"
    assert activity.silence is None
    assert not activity.stalled
    assert activity.events == 0
    assert activity.last_seq is None


def test_codex_like_stream() -> None:
    s = Stream()
    s(StartedEvent, agent="codex", command="codex exec --json")
    s(MessageEvent, text="I'll run the tests ")
    s(MessageEvent, text="first.")
    s.tool("command_execution", STARTED, id="item_1", summary="pytest -q")
    s.tool("command_execution", OK, id="item_1", summary="pytest -q", wait=4)
    s.tool("command_execution", STARTED, id="item_2", summary="make lint")
    s.tool("command_execution", FAILED, id="item_2", summary="make lint", wait=2)
    s(FileChangedEvent, path="src/a.py", action="modified")
    s(FileChangedEvent, path="src/b.py", action="created")
    s(FileChangedEvent, path="src/a.py", action="deleted")
    report = {"protocol": "caesar.report/v1", "status": "success", "summary": "Fixed the bug."}
    s(MessageEvent, text=json.dumps(report, indent=2))

    before_end = s.snapshot()
    assert before_end.status is ActivityStatus.RUNNING
    assert before_end.speech == "Fixed the bug."
    assert before_end.headline == "Fixed the bug."

    s(FinishedEvent, status="success", summary="tests pass", exit_code=0)
    a = s.snapshot()
    assert a.status is ActivityStatus.FINISHED
    assert a.headline == "success: tests pass"
    assert (a.agent, a.command, a.started_at) == ("codex", "codex exec --json", T0)
    assert a.first_at == T0 and a.last_at == s.at
    assert a.events == len(s.events) and a.last_seq == len(s.events) - 1
    assert a.task_id == "t1"
    assert a.running == ()
    assert (a.calls_total, a.calls_failed, a.calls_lost) == (2, 1, 0)
    assert [(c.id, c.status, c.duration) for c in a.recent] == [
        ("item_1", OK, timedelta(seconds=4)),
        ("item_2", FAILED, timedelta(seconds=2)),
    ]
    assert [(f.path, f.action) for f in a.files] == [
        ("src/a.py", ChangeAction.DELETED),
        ("src/b.py", ChangeAction.CREATED),
    ]
    assert a.finished is not None and a.finished.exit_code == 0
    assert a.finished.status is ReportStatus.SUCCESS


def test_consecutive_messages_glue_and_any_other_event_starts_a_new_utterance() -> None:
    s = Stream()
    s(MessageEvent, text="Hel")
    s(MessageEvent, text="lo there")
    assert s.snapshot().speech == "Hello there"
    s(ThinkingEvent, text="hmm")
    s(MessageEvent, text="Second.")
    assert s.snapshot().speech == "Second."


def test_fenced_report_and_status_summary_object_read_as_summary() -> None:
    s = Stream()
    s(MessageEvent, text='```json\n{"status": "partial", "summary": "Half done."}\n```')
    assert s.snapshot().speech == "Half done."
    s(ThinkingEvent, text="")
    s(MessageEvent, text='{"status": "partial"}')
    assert s.snapshot().speech == '{"status": "partial"}'
    s(ThinkingEvent, text="")
    s(MessageEvent, text='{"protocol": "caesar.report/v1", "status": "blocked", "summary": ""}')
    assert s.snapshot().speech == "report: blocked"


def test_report_split_across_fragments_still_reads_as_summary() -> None:
    s = Stream()
    doc = json.dumps({"protocol": "caesar.report/v1", "status": "success", "summary": "ok!"})
    padded = doc[:-1] + ', "details": "' + "x" * (3 * SPEECH_CAP) + '"}'
    for i in range(0, len(padded), 100):
        s(MessageEvent, text=padded[i : i + 100])
    assert s.snapshot().speech == "ok!"


def test_speech_keeps_only_the_tail_of_a_long_utterance() -> None:
    s = Stream()
    for i in range(500):
        s(MessageEvent, text=f"word{i:04d} ")
    speech = s.snapshot().speech
    assert len(speech) <= SPEECH_CAP
    assert speech.endswith("word0499")


def test_claude_like_closing_borrows_the_name_and_computes_durations() -> None:
    s = Stream()
    s(StartedEvent, agent="claude")
    s(ThinkingEvent, text="Let me look.")
    assert s.snapshot().headline == "thinking…"
    s.tool("Bash", STARTED, id="toolu_01", summary="ls -la")
    s.tool("Read", STARTED, id="toolu_02", summary="README.md")
    running = s.snapshot(after=5).running
    assert [(c.tool, c.duration) for c in running] == [
        ("Bash", timedelta(seconds=6)),
        ("Read", timedelta(seconds=5)),
    ]
    assert all(c.running and c.ended_at is None for c in running)
    assert s.snapshot().headline == "Read README.md"
    s.tool("", OK, id="toolu_02", wait=3)
    s.tool("", FAILED, id="toolu_01", wait=2)
    s(MessageEvent, text="The listing failed.\nDetails follow.")
    a = s.snapshot()
    assert a.running == ()
    assert [(c.tool, c.input_summary, c.status, c.duration, c.paired) for c in a.recent] == [
        ("Read", "README.md", OK, timedelta(seconds=3), True),
        ("Bash", "ls -la", FAILED, timedelta(seconds=6), True),
    ]
    assert (a.calls_total, a.calls_failed, a.thoughts) == (2, 1, 1)
    assert not a.thinking
    assert a.headline == "The listing failed."


def test_opencode_like_tools_that_only_finish_are_completed_calls() -> None:
    s = Stream()
    s(StartedEvent, agent="opencode")
    s.tool("bash", OK, id="", summary="npm test")
    s.tool("edit", FAILED, id="call_9", summary="src/x.ts")
    a = s.snapshot()
    assert a.running == ()
    assert (a.calls_total, a.calls_failed) == (2, 1)
    assert [(c.tool, c.duration, c.paired) for c in a.recent] == [
        ("bash", timedelta(0), False),
        ("edit", timedelta(0), False),
    ]
    assert all(c.started_at == c.ended_at for c in a.recent)
    assert a.headline == "edit src/x.ts"


def test_pairing_without_ids_prefers_same_input_then_oldest_of_the_tool() -> None:
    s = Stream()
    s.tool("shell", STARTED, summary="make a")
    s.tool("shell", STARTED, summary="make b")
    s.tool("shell", OK, summary="make b")
    a = s.snapshot()
    assert [c.input_summary for c in a.running] == ["make a"]
    assert [c.input_summary for c in a.recent] == ["make b"]

    s.tool("shell", STARTED, summary="make c")
    s.tool("shell", OK, summary="something else")
    a = s.snapshot()
    assert [c.input_summary for c in a.running] == ["make c"]
    assert a.recent[-1].input_summary == "something else"
    assert a.recent[-1].started_at == s.events[0].at


def test_identical_commands_without_ids_pair_first_in_first_out() -> None:
    s = Stream()
    s.tool("shell", STARTED, summary="sleep 1")
    s.tool("shell", STARTED, summary="sleep 1", wait=10)
    s.tool("shell", OK, summary="sleep 1")
    a = s.snapshot()
    assert [c.started_at for c in a.running] == [T0 + timedelta(seconds=10)]
    assert a.recent[0].started_at == T0


def test_a_different_tool_or_a_different_id_is_never_paired() -> None:
    s = Stream()
    s.tool("shell", STARTED, summary="x")
    s.tool("read", OK, summary="x")
    s.tool("web", STARTED, id="a", summary="q")
    s.tool("web", OK, id="b", summary="q")
    a = s.snapshot()
    assert [c.tool for c in a.running] == ["shell", "web"]
    assert [(c.tool, c.paired) for c in a.recent] == [("read", False), ("web", False)]


def test_closing_with_an_id_may_end_an_opening_that_had_none() -> None:
    s = Stream()
    s.tool("shell", STARTED, summary="x")
    s.tool("shell", OK, id="late", summary="x")
    a = s.snapshot()
    assert a.running == ()
    assert a.recent[0].paired and a.recent[0].id == "late"


def test_a_duplicate_opening_is_ignored() -> None:
    s = Stream()
    s.tool("Bash", STARTED, id="toolu_1", summary="ls")
    s.tool("Bash", STARTED, id="toolu_1", summary="ls")
    assert len(s.snapshot().running) == 1
    s.tool("", OK, id="toolu_1")
    a = s.snapshot()
    assert (len(a.running), a.calls_total) == (0, 1)
    assert a.recent[0].started_at == T0


def test_open_calls_are_capped_and_the_oldest_are_lost() -> None:
    s = Stream()
    for i in range(MAX_OPEN_CALLS + 6):
        s.tool("shell", STARTED, id=f"c{i}", summary=str(i))
    a = s.snapshot()
    assert len(a.running) == MAX_OPEN_CALLS
    assert a.calls_lost == 6
    assert a.running[0].id == "c6"
    s.tool("shell", OK, id="c0")
    a = s.snapshot()
    assert len(a.running) == MAX_OPEN_CALLS
    assert not a.recent[-1].paired


def test_only_the_last_completed_calls_are_kept_but_all_are_counted() -> None:
    s = Stream()
    for i in range(RECENT_CALLS + 20):
        s.tool("t", OK, id=str(i))
    a = s.snapshot()
    assert len(a.recent) == RECENT_CALLS
    assert a.recent[0].id == "20"
    assert a.calls_total == RECENT_CALLS + 20


def test_questions_stay_pending_in_order_until_answered() -> None:
    s = Stream()
    s(StartedEvent, agent="claude")
    s(QuestionEvent, id="q1", question="Which  database?\nPick one", options=["pg", "sqlite"])
    s(QuestionEvent, id="q2", question="Delete old files?")
    a = s.snapshot()
    assert a.status is ActivityStatus.NEEDS_INPUT and a.needs_input
    assert [q.id for q in a.questions] == ["q1", "q2"]
    assert a.questions[0].options == ("pg", "sqlite")
    assert a.headline == "? Which database? Pick one"
    s(AnswerEvent, id="q1", answer="pg")
    a = s.snapshot()
    assert [q.id for q in a.questions] == ["q2"]
    assert a.headline == "? Delete old files?"
    s(AnswerEvent, id="q2", answer="no")
    s(AnswerEvent, id="unknown", answer="?")
    a = s.snapshot()
    assert a.questions == () and not a.needs_input
    assert a.status is ActivityStatus.RUNNING


def test_finished_task_does_not_need_input() -> None:
    s = Stream()
    s(QuestionEvent, id="q1", question="Go?")
    s(FinishedEvent, status="blocked")
    a = s.snapshot()
    assert a.status is ActivityStatus.FINISHED and not a.needs_input
    assert a.headline == "blocked"


def test_headline_priority() -> None:
    s = Stream()
    s(StartedEvent, agent="gemini")
    assert s.snapshot().headline == "started gemini"
    s(ProgressEvent, message="indexing", pct=42.7)
    assert s.snapshot().headline == "indexing (42%)"
    s(MessageEvent, text="\n  Now reading   the code\nmore")
    assert s.snapshot().headline == "Now reading the code"
    s(ErrorEvent, message="rate limited", fatal=False)
    assert s.snapshot().headline == "error: rate limited"
    s(ProgressEvent, message="retrying")
    assert s.snapshot().headline == "retrying"
    s(ThinkingEvent, text="...")
    assert s.snapshot().headline == "thinking…"
    s.tool("shell", STARTED, id="1", summary="cargo build")
    assert s.snapshot().headline == "shell cargo build"
    s(ErrorEvent, message="out of memory", fatal=True)
    assert s.snapshot().headline == "error: out of memory"
    s(QuestionEvent, id="q", question="Continue?")
    assert s.snapshot().headline == "? Continue?"
    s(FinishedEvent, status="failed", summary="OOM")
    assert s.snapshot().headline == "failed: OOM"


def test_headline_falls_back_to_the_last_completed_call() -> None:
    s = Stream()
    s(StartedEvent, agent="codex")
    s.tool("shell", OK, id="1", summary="ls")
    assert s.snapshot().headline == "shell ls"


def test_headline_is_one_capped_line() -> None:
    s = Stream()
    s(ProgressEvent, message="a\tb  " + "x" * 500)
    headline = s.snapshot().headline
    assert len(headline) == HEADLINE_CAP
    assert headline.startswith("a b x") and headline.endswith("…")


@pytest.mark.parametrize(("silent", "stalled"), [(29, False), (30, True)])
def test_stall_after_thirty_seconds_of_silence(silent: int, stalled: bool) -> None:
    s = Stream()
    s(StartedEvent, agent="codex")
    s(MessageEvent, text="working")
    now = s.at + timedelta(seconds=silent)
    fold = s.fold()
    assert fold.silence(now) == timedelta(seconds=silent)
    assert fold.stalled(now) is stalled
    assert fold.snapshot(now).stalled is stalled
    assert timedelta(seconds=30) == STALL_AFTER


def test_a_finished_task_never_stalls() -> None:
    s = Stream()
    s(FinishedEvent, status="success", summary="done")
    assert not s.fold().stalled(s.at + timedelta(hours=1))


def test_reset_forgets_everything() -> None:
    s = Stream()
    s(StartedEvent, agent="codex")
    s(ThinkingEvent, text="x")
    s(MessageEvent, text="hi")
    s.tool("shell", STARTED, id="1", summary="ls")
    s.tool("shell", OK, id="2", summary="pwd")
    s(FileChangedEvent, path="a")
    s(QuestionEvent, id="q", question="?")
    s(ProgressEvent, message="p", pct=1)
    s(ErrorEvent, message="e", fatal=True)
    s(FinishedEvent, status="success", summary="done")
    fold = s.fold()
    fold.reset()
    assert fold.snapshot(T0) == ActivityFold().snapshot(T0)


def test_snapshot_is_immutable() -> None:
    activity = ActivityFold().snapshot(T0)
    with pytest.raises(AttributeError):
        activity.headline = "x"  # type: ignore[misc]


# -- properties ----------------------------------------------------------------------------


@st.composite
def paired_calls(draw: st.DrawFn) -> tuple[int, list[Event]]:
    """N calls with ids, each starting before it ends, in any interleaving."""
    n = draw(st.integers(1, 40))
    order = draw(st.permutations([i for i in range(n) for _ in range(2)]))
    tools = draw(st.lists(st.sampled_from(["Bash", "Read", ""]), min_size=n, max_size=n))
    s = Stream()
    opened: set[int] = set()
    for i in order:
        status = FAILED if i in opened and i % 3 == 0 else OK if i in opened else STARTED
        tool = tools[i] if status is STARTED else draw(st.sampled_from([tools[i], ""]))
        s.tool(tool, status, id=f"toolu_{i}", summary=f"arg {i % 4}", wait=draw(st.floats(0, 5)))
        opened.add(i)
    return n, s.events


@given(paired_calls())
@settings(max_examples=150)
def test_every_started_call_that_ends_is_paired(case: tuple[int, list[Event]]) -> None:
    n, events = case
    fold = ActivityFold()
    fold.apply_all(events)
    a = fold.snapshot(events[-1].at)
    assert a.running == ()
    assert a.calls_total == n
    assert a.calls_failed == len(range(0, n, 3))
    assert all(c.paired and c.duration >= timedelta(0) for c in a.recent)


def _any_event(s: Stream) -> st.SearchStrategy[None]:
    text = st.text(max_size=30)
    ids = st.sampled_from(["", "a", "b", "c"])

    def emit(*, kind: int, a: str, b: str, tool: str, status: ToolStatus, flag: bool) -> None:
        match kind:
            case 0:
                s(StartedEvent, agent=a)
            case 1:
                s(ThinkingEvent, text=a)
            case 2:
                s(MessageEvent, text=a)
            case 3:
                s.tool(tool, status, id=b, summary=a)
            case 4:
                s(FileChangedEvent, path=a or "p", action="created" if flag else "modified")
            case 5:
                s(ProgressEvent, message=a, pct=50 if flag else None)
            case 6:
                s(QuestionEvent, id=b, question=a)
            case 7:
                s(AnswerEvent, id=b, answer=a)
            case 8:
                s(ErrorEvent, message=a, fatal=flag)
            case _:
                s(FinishedEvent, status="success", summary=a)

    return st.builds(
        emit,
        kind=st.integers(0, 9),
        a=text,
        b=ids,
        tool=st.sampled_from(["Bash", "Read", ""]),
        status=st.sampled_from(list(ToolStatus)),
        flag=st.booleans(),
    )


@given(st.data())
@settings(max_examples=150)
def test_folding_at_once_equals_folding_one_by_one(data: st.DataObject) -> None:
    s = Stream()
    data.draw(st.lists(_any_event(s), max_size=80))
    now = s.at + timedelta(seconds=data.draw(st.integers(0, 60)))

    at_once = ActivityFold()
    at_once.apply_all(s.events)
    one_by_one = ActivityFold()
    for i, event in enumerate(s.events):
        one_by_one.apply(event)
        if i % 7 == 0:
            one_by_one.snapshot(now)  # rendering midway must not change the outcome
    a = at_once.snapshot(now)
    assert a == one_by_one.snapshot(now)
    assert "\n" not in a.headline and len(a.headline) <= HEADLINE_CAP
    assert len(a.running) <= MAX_OPEN_CALLS
    assert a.calls_failed <= a.calls_total


def test_a_fatal_error_outranks_later_chatter() -> None:
    s = Stream()
    s(ErrorEvent, message="disk full", fatal=True)
    s(ErrorEvent, message="retrying", fatal=False)
    s(MessageEvent, text="hello")
    a = s.snapshot()
    assert a.headline == "error: disk full"
    assert a.error is not None and a.error.message == "retrying"
    assert a.errors == 2


def test_only_the_finished_event_caesar_names_ends_the_task() -> None:
    """An agent can append a ``finished`` line; once the fold is told which one is caesar's
    (the record's ``finished_seq``), no other ends the task, whenever either arrives."""
    s = Stream()
    s(StartedEvent, agent="sh", command="x")
    s(FinishedEvent, status=ReportStatus.SUCCESS, summary="all tests pass")
    fold = ActivityFold("t1")
    fold.trust_finished(None)  # the task runs: caesar has written no ending yet
    fold.apply_all(s.events)
    running = fold.snapshot(s.at)
    assert running.status is ActivityStatus.RUNNING and running.finished is None
    assert "all tests pass" not in running.headline
    s(FinishedEvent, status=ReportStatus.FAILED, summary="exit 3")
    fold.apply(s.events[-1])
    fold.trust_finished(2)  # the record names caesar's own
    ended = fold.snapshot(s.at)
    assert ended.finished is not None and ended.finished.status is ReportStatus.FAILED
    assert ended.headline == "failed: exit 3"
    s(FinishedEvent, status=ReportStatus.SUCCESS, summary="late forgery")
    fold.apply(s.events[-1])
    assert fold.snapshot(s.at).headline == "failed: exit 3"


def test_a_deeply_nested_utterance_is_shown_as_text_not_recursed_into() -> None:
    s = Stream()
    s(MessageEvent, text='{"protocol": "caesar.report/v1", "x": ' + "[" * 50_000 + "]" * 50_000)
    activity = s.snapshot()
    assert activity.speech.startswith("]") or activity.speech.endswith("]")


def test_a_record_older_than_finished_seq_takes_the_last_finished() -> None:
    s = Stream()
    s(StartedEvent, agent="sh", command="x")
    s(FinishedEvent, status=ReportStatus.SUCCESS, summary="done")
    fold = ActivityFold("t1")
    fold.trust_finished(None)
    fold.apply_all(s.events)
    assert fold.snapshot(s.at).finished is None
    fold.trust_any()  # TaskRecord.legacy_ending: that caesar's readers took the last one
    assert fold.snapshot(s.at).headline == "success: done"


# -- edge streams where the reference implementation folds otherwise ----------------------


def test_a_finished_event_closes_the_calls_still_open() -> None:
    """Its ending is the task's last word: nothing runs after it. A call whose end never came
    is closed failed at the ending, as a stream that ends mid-call is."""
    s = Stream()
    s.tool("shell", STARTED, id="c1", summary="pytest")
    s.tool("shell", STARTED, id="c2", summary="sleep 99")
    s.tool("shell", OK, id="c1")
    s(FinishedEvent, status=ReportStatus.SUCCESS, summary="done")
    a = s.snapshot(after=5)
    assert a.running == ()
    assert a.status is ActivityStatus.FINISHED
    cut = a.recent[-1]
    assert (cut.id, cut.status, cut.running) == ("c2", FAILED, False)
    assert cut.ended_at == s.at and cut.duration == timedelta(seconds=2)
    assert (a.calls_total, a.calls_failed) == (2, 1)


def test_a_call_that_ends_after_the_finished_event_keeps_its_own_end() -> None:
    s = Stream()
    s.tool("shell", STARTED, id="c1", summary="make")
    s(FinishedEvent, status=ReportStatus.SUCCESS)
    s.tool("shell", OK, id="c1")
    a = s.snapshot()
    assert a.running == () and a.recent[-1].status is OK and a.calls_failed == 0


def test_only_the_ending_caesar_names_closes_the_calls() -> None:
    """An agent's own ``finished`` line ends nothing: its calls still run."""
    s = Stream()
    s.tool("shell", STARTED, id="c1", summary="make")
    s(FinishedEvent, status=ReportStatus.SUCCESS, summary="I am done, trust me")
    fold = s.fold()
    fold.trust_finished(None)
    assert [call.id for call in fold.snapshot(s.at).running] == ["c1"]
    s(FinishedEvent, status=ReportStatus.FAILED, summary="caesar's")
    fold.apply(s.events[-1])
    fold.trust_finished(s.events[-1].seq)
    a = fold.snapshot(s.at)
    assert a.running == () and a.recent[-1].status is FAILED


def test_the_same_start_id_twice_is_one_call() -> None:
    """A start repeated under an open id (codex repeats it in ``item.updated``) is the same
    call: it ends with its one end, and never lingers as a second running call."""
    s = Stream()
    s.tool("shell", STARTED, id="item_1", summary="pnpm test")
    s.tool("shell", STARTED, id="item_1", summary="pnpm test")
    assert len(s.snapshot().running) == 1
    s.tool("shell", OK, id="item_1", summary="pnpm test")
    a = s.snapshot()
    assert (a.running, a.calls_total) == ((), 1)
    assert a.recent[0].started_at == T0  # the first start, not the repeat


def test_a_dropped_call_that_ends_is_no_longer_lost() -> None:
    s = Stream()
    for i in range(MAX_OPEN_CALLS + 2):
        s.tool("shell", STARTED, id=f"c{i}", summary=str(i))
    assert s.snapshot().calls_lost == 2
    s.tool("shell", OK, id="c0", summary="0")
    a = s.snapshot()
    assert a.calls_lost == 1
    assert (a.recent[-1].id, a.recent[-1].paired) == ("c0", False)
    assert len(a.running) == MAX_OPEN_CALLS
