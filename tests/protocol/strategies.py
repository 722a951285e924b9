"""Hypothesis strategies for every protocol model, shared by the round-trip tests."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import strategies as st

from caesar_core.protocol import (
    EVENT_V1,
    REPORT_V1,
    TASK_V1,
    AnswerEvent,
    Artifact,
    Change,
    ChangeAction,
    Channel,
    CommandRun,
    ErrorEvent,
    FileChangedEvent,
    Finding,
    FinishedEvent,
    Isolation,
    MailboxAnswer,
    MailboxQuestion,
    MessageEvent,
    Mode,
    ProgressEvent,
    Question,
    QuestionEvent,
    Report,
    ReportStatus,
    Severity,
    StartedEvent,
    Task,
    ThinkingEvent,
    ToolStatus,
    ToolUseEvent,
    Usage,
)

text = st.text(max_size=40)
name = st.text(min_size=1, max_size=40)
counts = st.integers(min_value=0, max_value=2**53)
moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
optional = st.none

changes = st.builds(Change, path=name, action=st.sampled_from(ChangeAction), summary=text)
commands = st.builds(
    CommandRun, command=name, exit_code=st.none() | st.integers(-255, 255), note=text
)
findings = st.builds(
    Finding,
    severity=st.sampled_from(Severity),
    title=name,
    file=st.none() | name,
    line=st.none() | st.integers(1, 10**6),
    detail=text,
)
report_questions = st.builds(Question, id=name, question=name, options=st.lists(text, max_size=4))
artifacts = st.builds(Artifact, path=name, description=text)
usages = st.builds(
    Usage,
    input_tokens=st.none() | counts,
    output_tokens=st.none() | counts,
    cost_usd=st.none() | st.floats(0, 1e6, allow_nan=False),
    duration_ms=st.none() | counts,
)

reports = st.builds(
    Report,
    protocol=st.just(REPORT_V1),
    task_id=text,
    status=st.sampled_from(ReportStatus),
    summary=name,
    details=text,
    changes=st.lists(changes, max_size=3),
    commands_run=st.lists(commands, max_size=3),
    findings=st.lists(findings, max_size=3),
    questions=st.lists(report_questions, max_size=2),
    next_steps=st.lists(text, max_size=3),
    artifacts=st.lists(artifacts, max_size=2),
    usage=st.none() | usages,
)

channels = st.builds(Channel, command=name, args=st.lists(text, max_size=3), server_name=name)

tasks = st.builds(
    Task,
    protocol=st.just(TASK_V1),
    id=name,
    created_at=moments,
    role=st.none() | name,
    agent=name,
    objective=name,
    context=text,
    constraints=st.lists(text, max_size=3),
    acceptance_criteria=st.lists(text, max_size=3),
    mode=st.sampled_from(Mode),
    isolation=st.sampled_from(Isolation),
    network=st.booleans(),
    workspace=name,
    base_ref=st.none() | st.text("0123456789abcdef", min_size=40, max_size=40),
    deadline_ms=st.integers(1, 10**9),
    depth=st.integers(0, 10),
    report_path=name,
    events_path=name,
    channel=st.none() | channels,
)


def _envelope() -> dict[str, st.SearchStrategy[object]]:
    return {
        "protocol": st.just(EVENT_V1),
        "seq": counts,
        "at": moments,
        "task_id": text,
    }


events = st.one_of(
    st.builds(StartedEvent, agent=name, command=text, **_envelope()),
    st.builds(ThinkingEvent, text=text, **_envelope()),
    st.builds(MessageEvent, text=text, **_envelope()),
    st.builds(
        ToolUseEvent,
        tool=text,
        id=text,
        input_summary=text,
        status=st.sampled_from(ToolStatus),
        **_envelope(),
    ),
    st.builds(FileChangedEvent, path=text, action=st.sampled_from(ChangeAction), **_envelope()),
    st.builds(
        ProgressEvent,
        message=text,
        pct=st.none() | st.floats(0, 100, allow_nan=False),
        **_envelope(),
    ),
    st.builds(
        QuestionEvent, id=text, question=text, options=st.lists(text, max_size=3), **_envelope()
    ),
    st.builds(AnswerEvent, id=text, answer=text, **_envelope()),
    st.builds(ErrorEvent, message=text, fatal=st.booleans(), **_envelope()),
    st.builds(
        FinishedEvent,
        status=st.sampled_from(ReportStatus),
        summary=text,
        exit_code=st.none() | st.integers(-255, 255),
        **_envelope(),
    ),
)

mailbox_questions = st.builds(
    MailboxQuestion, id=name, question=name, options=st.lists(text, max_size=3), asked_at=moments
)
mailbox_answers = st.builds(
    MailboxAnswer, id=name, answer=text, answered_at=moments, answered_by=text
)
