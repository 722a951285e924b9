"""``caesar bridge`` and ``caesar hook claude-code`` fed hypothesis-made hostile payloads.

Payloads carry lone surrogates, control characters, terminal escapes, deep nesting, wrong types
in every field, invalid UTF-8, and real-looking secrets glued to word characters in every string
field. What must hold, whatever the payload:

* the bridge answers exactly one line, a schema-valid ``bridgeResponse``, and exits 0;
* the hook exits 0 or 2, prints nothing or one JSON object, fails closed at ``PreToolUse`` (a
  call goes through only when the bridge allowed it; an unreadable payload is denied, exit 2);
* no file under the state directory, the task directory or the hook's response log holds a
  planted secret, and no answer repeats one.

Most examples run the in-process entries the ``caesar`` console script calls
(``caesar_core.bridge.cli.main`` with real byte streams on stdin and stdout, so an unencodable
answer fails as it would in a process); a handful spawn real processes.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caesar_core.bridge import cli
from tests.bridge.core_support import CAESAR, valid_response

# (before, core, after): the core must never reach a file or an answer. Cores are spelled
# backwards here because hypothesis also draws strings from the literals of the source: a bare
# core drawn as ordinary text is no secret, and would be kept (rightly) as it came.
PARTS: list[tuple[str, str, str]] = [
    ("AKIA", "3TR5NXW2LPM4KZ7Q", ""),
    ("ghp_", "i8Ue2As0Yj6Hf3Cb5Zw1Tp7Nv4Lx9Qm2Kd8R", ""),
    ("glpat-", "cB6zW1pT4kR9vN2mL7qX", ""),
    ("xoxb-", "yT7rE8wQ-71539-1482", ""),
    ("sk-ant-api03-", "2hT3jR4kE5lW6qM7nB8vC9xZ", ""),
    ("sk-proj-", "8hH7gG6fF5eE4dD3cC2bB1aA", ""),
    ("sk_live_", "cd7pdz1TtjraDWjyLqH93Ce4", ""),
    ("AIza", "YWBMFkj0WSZe7a-XMnMQuoP27ekrSt9-DyS", ""),
    ("https://deploy:", "9yranaC2retnuH", "@git.example.com"),
    ("aws_secret_access_key=", "1YEKYRANACYCifRxPb/GNEDM7K/IMEFntUXrlaJw", ""),
    (
        "-----BEGIN RSA PRIVATE KEY-----\n",
        "ydoByranacAEQACKAAABIwoEIIM",
        "\n-----END RSA PRIVATE KEY-----",
    ),
]
SECRETS = [before + core[::-1] + after for before, core, after in PARTS]
CORES = [core[::-1] for _, core, _ in PARTS]
STRANGE = ["\ud800", "\udfff", "\udc80x", "\x00", "\x1b]0;title\x07", "\r", "\b", "\x7f", "\u202e"]

glue = st.text(alphabet="aZ09_é-/:=\"' ", max_size=4)
planted = st.builds(lambda a, s, b: a + s + b, glue, st.sampled_from(SECRETS), glue)
strange = st.lists(st.sampled_from(STRANGE), min_size=1, max_size=3).map("".join)
text = st.one_of(
    st.text(max_size=30),
    planted,
    strange,
    st.builds(lambda a, b, c: a + b + c, st.text(max_size=8), strange, planted),
    st.sampled_from(["Bash", "Write", "deploy now", "Danger", "", "PreToolUse"]),
)
scalar = st.one_of(
    text, st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.just(-1)
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)
field = st.one_of(text, text, value)
"""Mostly strings (where secrets hide), sometimes any JSON value (the wrong type)."""


def deep(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def nested(depth: int) -> object:
    """A value nested ``depth`` levels (beyond the bridge's 64, within json's own limit)."""
    value: object = {"command": "ls"}
    for _ in range(depth):
        value = [value]
    return value


ADM = "adm_" + "0" * 32


@contextmanager
def world() -> Iterator[tuple[Path, dict[str, str]]]:
    """A state dir, a task dir (task.json), a project whose rules hold and deny, and the env."""
    with tempfile.TemporaryDirectory(prefix="caesar-fuzz-") as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".caesar").mkdir(parents=True)
        (project / ".caesar" / "config.toml").write_text(
            '[bridge]\napproval_timeout = "1ms"\n\n'
            '[[bridge.rule]]\ntool = "Danger*"\ndecision = "deny"\n\n'
            '[[bridge.rule]]\ntool = "*"\nmatch = "deploy*"\ndecision = "require_approval"\n'
        )
        task = root / "task"
        task.mkdir()
        (task / "task.json").write_text(json.dumps({"id": "t-fuzz", "mode": "write"}))
        env = {
            "CAESAR_STATE_DIR": str(root / "state"),
            "CAESAR_TASK_DIR": str(task),
            "CAESAR_TASK_ID": "t-fuzz",
            "CAESAR_HOOK_RESPONSES": str(root / "responses.jsonl"),
            "XDG_CONFIG_HOME": str(root / "config-home"),
            "HOME": str(root / "home"),
            "CLAUDE_PROJECT_DIR": "",
        }
        yield project, env


def strings(value: object) -> Iterator[str]:
    if isinstance(value, bytes):
        raw = value
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            value = raw.decode("utf-8", "replace")
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def planted_in(*sent: object) -> list[str]:
    """The cores of the secrets planted whole in what was sent. (Hypothesis may also shrink a
    string down to a bare core, which is no secret and may rightly be kept.)"""
    joined = "\0".join(text for value in sent for text in strings(value))
    return [
        core
        for secret, core in zip(SECRETS, CORES, strict=True)
        if secret in joined and joined.count(core) == joined.count(secret)
    ]


def assert_no_secret_left(root: Path, sent: list[object], answers: list[str]) -> None:
    cores = planted_in(*sent)
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.name != "config.toml":
            data = path.read_bytes()
            for core in cores:
                assert core.encode() not in data, f"{core!r} written to {path}"
    for answer in answers:
        for core in cores:
            assert core not in answer, f"{core!r} repeated in an answer: {answer[:300]}"


@contextmanager
def process_env(env: dict[str, str]) -> Iterator[None]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CAESAR_", "CLAUDE_"))}
    with mock.patch.dict(os.environ, {**clean, **env}, clear=True):
        yield


def stream(data: bytes = b"", errors: str = "strict") -> io.TextIOWrapper:
    """A text stream over bytes, encoded as a real stdin/stdout is (UTF-8, strict)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, write_through=True)


def output_of(wrapper: io.TextIOWrapper) -> str:
    buffer = wrapper.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


# -- caesar bridge --------------------------------------------------------------------------


def bridge_in_process(stdin: bytes, env: dict[str, str]) -> dict[str, Any]:
    out = stream()
    with process_env(env):
        code = cli.bridge([], io.BytesIO(stdin), out)
    assert code == 0
    lines = output_of(out).splitlines()
    assert len(lines) == 1, lines
    return valid_response(json.loads(lines[0]))


def begin_request(project: Path, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "op": "begin",
        "client": "claude-code",
        "prompt": "list the files",
        "project": str(project),
        "integration_mode": "project_hook",
        **fields,
    }


BEGIN_FIELDS = ("client_version", "adapter_version", "session", "actor", "turn", "prompt")
FOLLOW = {
    "pre-tool": ("tool", "tool_input", "tool_use_id", "project"),
    "post-tool": ("tool", "tool_use_id", "result", "status", "duration_ms"),
    "telemetry": ("model", "cost_currency", "cost_amount", "input_tokens", "cost_source"),
    "finalize": ("assistant_summary", "changed_files", "stop_reason"),
    "abort": ("reason",),
}


@st.composite
def lifecycle(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """A begin (its fields fuzzed, project hostile sometimes) and ops on its admission."""
    begin: dict[str, Any] = {}
    for name in draw(st.sets(st.sampled_from(BEGIN_FIELDS))):
        begin[name] = draw(text if name in ("prompt", "turn") else field)
    if draw(st.booleans()):
        begin["project_suffix"] = draw(text)
    ops = []
    for op in draw(st.lists(st.sampled_from(sorted(FOLLOW)), max_size=4)):
        fields = {}
        for name in FOLLOW[op]:
            if draw(st.booleans()):
                fields[name] = draw(field)
        if op in ("pre-tool", "post-tool") and draw(st.booleans()):
            fields["tool"] = draw(text)
        ops.append((op, fields))
    return begin, ops


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(lifecycle())
def test_bridge_answers_every_lifecycle_validly_and_writes_no_secret(
    plan: tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]],
) -> None:
    begin, ops = plan
    with world() as (project, env):
        suffix = begin.pop("project_suffix", None)
        where = project if suffix is None else f"{project}/{suffix}"
        request = begin_request(project, begin) | {"project": str(where)}
        first = bridge_in_process(json.dumps(request).encode(), env)
        sent: list[object] = [request]
        answers = [json.dumps(first)]
        admission = first.get("admission_id") or ADM
        for op, fields in ops:
            request = {"op": op, "admission_id": admission, **fields}
            response = bridge_in_process(json.dumps(request).encode(), env)
            sent.append(request)
            answers.append(json.dumps(response))
        assert_no_secret_left(project.parent, sent, answers)


raw_request = st.one_of(
    st.binary(max_size=64),
    st.builds(lambda s: json.dumps({"op": s}).encode(), text),
    st.builds(lambda n: deep(n).encode(), st.integers(1, 5000)),
    st.builds(
        lambda n: (
            f'{{"op":"pre-tool","admission_id":"{ADM}","tool":"Bash","tool_input":{deep(n)}}}'
        ).encode(),
        st.integers(1, 3000),
    ),
    st.builds(
        lambda b: b'{"op":"begin","client":"claude-code","prompt":"' + b + b'"}', st.binary()
    ),
    st.builds(lambda v: json.dumps(v).encode(), value),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw_request)
def test_bridge_answers_any_bytes_with_one_valid_response(stdin: bytes) -> None:
    with world() as (project, env):
        response = bridge_in_process(stdin, env)
        assert_no_secret_left(project.parent, [stdin], [json.dumps(response)])


# -- caesar hook claude-code ----------------------------------------------------------------

EVENTS = [
    "UserPromptSubmit",
    "PreToolUse",
    "PreToolUse",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "SessionEnd",
    "Notification",
    "SessionStart",
]
HOOK_FIELDS = (
    "tool_name",
    "tool_input",
    "tool_use_id",
    "prompt",
    "prompt_id",
    "tool_response",
    "error",
    "is_interrupt",
    "last_assistant_message",
    "title",
    "message",
    "reason",
    "duration_ms",
    "session_id",
    "cwd",
)


@st.composite
def hook_payload(draw: st.DrawFn) -> dict[str, Any]:
    event = draw(st.sampled_from(EVENTS)) if draw(st.integers(0, 7)) else draw(field)
    payload: dict[str, Any] = {"hook_event_name": event, "session_id": "fuzz-session"}
    if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        payload["tool_name"] = draw(text)
        payload["tool_input"] = draw(
            st.one_of(
                st.fixed_dictionaries({"command": text}),
                value,
                st.just({}),
                st.integers(65, 400).map(nested),  # the bridge refuses it: an error to render
            )
        )
    if draw(st.integers(0, 9)) == 0:  # a path the bridge refuses: begin answers an error
        payload["cwd"] = draw(st.sampled_from(["/tmp/a\x00b", "\x00"]))
        payload["tool_use_id"] = draw(text)
    if event == "UserPromptSubmit":
        payload["prompt"] = draw(text)
    for name in draw(st.sets(st.sampled_from(HOOK_FIELDS), max_size=4)):
        payload[name] = draw(field)
    return payload


def hook_in_process(stdin: bytes, env: dict[str, str]) -> tuple[int, str]:
    """``caesar hook claude-code`` as its process would run it; (exit code, stdout)."""
    out, err = stream(), stream(errors="backslashreplace")
    with (
        process_env(env),
        mock.patch.object(sys, "stdin", stream(stdin)),
        mock.patch.object(sys, "stdout", out),
        mock.patch.object(sys, "stderr", err),
    ):
        try:
            code = cli.main(["hook", "claude-code"])
        except Exception:  # what the process would die of: a traceback and exit 1
            code = 1
    return code, output_of(out)


def responses(env: dict[str, str]) -> list[dict[str, Any]]:
    path = Path(env["CAESAR_HOOK_RESPONSES"])
    if not path.exists():
        return []
    found = [json.loads(line) for line in path.read_text().splitlines() if line]
    for response in found:
        valid_response(response)
    return found


def check_hook_answer(code: int, stdout: str, event: object, new: list[dict[str, Any]]) -> None:
    """Exit codes as documented, and closed at PreToolUse unless the bridge allowed."""
    assert code in (0, 2), code
    output = json.loads(stdout) if stdout.strip() else None
    assert output is None or isinstance(output, dict)
    if code == 2:  # failing closed: a deny Claude can read, whatever the event
        assert output is not None
    if event != "PreToolUse":
        return
    specific = (output or {}).get("hookSpecificOutput") or {}
    decision = specific.get("permissionDecision")
    if decision not in ("deny", "ask"):  # the call goes through: the bridge must have allowed
        assert decision in (None, "allow"), output
        pre_tools = [r for r in new if r["op"] == "pre-tool"]
        assert pre_tools and pre_tools[-1]["decision"] == "allow", (output, new)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(hook_payload(), min_size=1, max_size=4))
def test_hook_fails_closed_on_any_payload_and_writes_no_secret(
    payloads: list[dict[str, Any]],
) -> None:
    with world() as (project, env):
        answers = []
        for payload in payloads:
            payload.setdefault("cwd", str(project))
            seen = len(responses(env))
            code, stdout = hook_in_process(json.dumps(payload).encode(), env)
            check_hook_answer(code, stdout, payload.get("hook_event_name"), responses(env)[seen:])
            answers.append(stdout)
        assert_no_secret_left(project.parent, list(payloads), answers)


unreadable = st.one_of(
    st.binary(max_size=40).filter(lambda b: not b.strip().startswith(b"{")),
    st.just(b""),
    st.just(b"\xff\xfe{"),
    st.builds(lambda n: deep(n).encode(), st.integers(900, 5000)),
    st.builds(lambda v: json.dumps(v).encode(), st.one_of(scalar, st.lists(scalar, max_size=3))),
    st.just(b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": ' + b"[" * 3000),
)


@settings(max_examples=60, deadline=None)
@given(unreadable)
def test_an_unreadable_hook_payload_is_denied_with_exit_2(stdin: bytes) -> None:
    with world() as (_, env):
        code, stdout = hook_in_process(stdin, env)
        assert code == 2
        specific = json.loads(stdout)["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"


# -- a few real processes -------------------------------------------------------------------


def spawned(
    args: list[str], stdin: bytes, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CAESAR_", "CLAUDE_"))}
    return subprocess.run(
        [CAESAR, *args],
        input=stdin,
        capture_output=True,
        env={**base, **env},
        timeout=60,
        check=False,
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(raw_request, st.builds(lambda p: json.dumps(p).encode(), hook_payload())))
def test_real_processes_answer_as_the_in_process_entries_do(stdin: bytes) -> None:
    with world() as (project, env):
        done = spawned(["bridge"], stdin, env)
        assert done.returncode == 0, done.stderr
        assert done.stderr == b""
        (line,) = done.stdout.decode("utf-8").splitlines()
        valid_response(json.loads(line))
        hooked = spawned(["hook", "claude-code"], stdin, env)
        event = None
        with suppress(ValueError, AttributeError, RecursionError):
            event = json.loads(stdin).get("hook_event_name")
        check_hook_answer(hooked.returncode, hooked.stdout.decode("utf-8"), event, responses(env))
        answers = [done.stdout.decode(), hooked.stdout.decode()]
        assert_no_secret_left(project.parent, [stdin], answers)
