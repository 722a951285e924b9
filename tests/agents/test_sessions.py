"""Each CLI's session id, taken from its recorded stream, and handed back with its own flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caesar_core.agents.base import Adapter
from caesar_core.agents.claude import ClaudeAdapter, ClaudeTranslator
from caesar_core.agents.codex import CodexAdapter, CodexTranslator
from caesar_core.agents.gemini import GeminiAdapter, GeminiTranslator
from caesar_core.agents.opencode import OpencodeAdapter, OpencodeTranslator
from caesar_core.agents.registry import GenericAdapter
from caesar_core.agents.sessions import PointerTranslator, session_id
from caesar_core.agents.stream import JsonStreamTranslator
from caesar_core.config import AgentConfig
from caesar_core.protocol import Mode
from tests.agents.replay import STREAMS, WORKSPACE, invocation_for, replay_into

CAPTURED = {
    "codex-0.171.0.jsonl": (CodexTranslator(WORKSPACE), "01a22aea-a0fa-7e82-903b-72852e3605bb"),
    "claude-2.1.332.jsonl": (ClaudeTranslator(WORKSPACE), "a00e2e24-3e1a-4237-986d-9501b092efd7"),
    "opencode-1.18.33.jsonl": (OpencodeTranslator(WORKSPACE), "ses_dd50b806dffe8cPDVNmq7QCoGK"),
    "gemini-0.61.0.jsonl": (GeminiTranslator(WORKSPACE), "76c84f26-01a1-49a5-87a8-9ab7b7ce7b85"),
}


@pytest.mark.parametrize("capture", sorted(CAPTURED))
def test_each_cli_names_its_session_in_its_stream(capture: str) -> None:
    translator, expected = CAPTURED[capture]
    lines = (STREAMS / capture).read_text().splitlines()
    replayed, _ = replay_into(translator, lines)
    assert replayed.session == expected


@pytest.mark.parametrize(
    "value",
    ["-rf", "--dangerously-bypass-approvals-and-sandbox", "a b", "x" * 129, "", "a\nb", 42, None],
)
def test_a_session_id_that_could_be_an_option_or_worse_is_not_kept(value: object) -> None:
    assert session_id(value) is None
    translator = CodexTranslator(WORKSPACE)
    translator.feed(json.dumps({"type": "thread.started", "thread_id": value}))
    assert translator.session is None


def test_the_last_valid_session_named_wins() -> None:
    translator: JsonStreamTranslator = OpencodeTranslator(WORKSPACE)
    for value in ("ses_one", "-bad", "ses_two"):
        translator.feed(json.dumps({"type": "step_start", "sessionID": value}))
    assert translator.session == "ses_two"


def resumed(adapter: Adapter, tmp_path: Path) -> list[str]:
    invocation = invocation_for(
        adapter.id,
        tmp_path,
        tmp_path / "ws",
        mode=Mode.WRITE,
        tier="file",
        prompt="the next message",
        resume_session="sess-1",
    )
    return adapter.launch(invocation).argv


def test_codex_resumes_with_exec_resume_after_the_exec_options(tmp_path: Path) -> None:
    argv = resumed(CodexAdapter(), tmp_path)
    at = argv.index("resume")
    assert argv[at : at + 2] == ["resume", "sess-1"]
    assert argv.index("-s") < at and argv.index("-o") < at and argv.index("-C") < at
    assert argv[-2:] == ["--", "the next message"]


@pytest.mark.parametrize(
    ("adapter", "flag"),
    [
        (ClaudeAdapter(), "--resume"),
        (OpencodeAdapter(), "--session"),
        (GeminiAdapter(), "--resume"),
    ],
)
def test_the_other_clis_resume_with_their_own_flag(
    adapter: Adapter, flag: str, tmp_path: Path
) -> None:
    argv = resumed(adapter, tmp_path)
    assert argv[argv.index(flag) + 1] == "sess-1"
    assert adapter.capabilities.resume


def test_a_generic_agent_resumes_with_its_resume_args_and_finds_its_session(
    tmp_path: Path,
) -> None:
    config = AgentConfig(
        id="mine",
        bin="mine",
        args="run {{prompt}}",
        session_from="/meta/session",
        resume_args="run --resume {{session}} {{prompt}}",
    )
    adapter = GenericAdapter(config)
    assert adapter.capabilities.resume
    assert resumed(adapter, tmp_path) == ["mine", "run", "--resume", "sess-1", "the next message"]
    plain = GenericAdapter(AgentConfig(id="plain", bin="plain"))
    assert not plain.capabilities.resume

    translator = adapter.translator(
        invocation_for("mine", tmp_path, tmp_path, mode=Mode.WRITE, tier="file", prompt="p")
    )
    assert isinstance(translator, PointerTranslator)
    for line in ('{"meta": {"session": "abc"}}', "not json", '{"meta": {"session": "-x"}}', "[1]"):
        translator.feed(line)
    assert translator.session == "abc"
    assert translator.final_text == "[1]"


def test_a_session_pointer_line_nested_too_deep_is_only_output() -> None:
    translator = PointerTranslator("/session_id")
    translator.feed("{" * 100 + "}" * 100)
    translator.feed('{"session_id": ["not a string"]}')
    assert translator.session is None
