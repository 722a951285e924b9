"""``caesar bridge`` and ``caesar hook`` run once per tool call: they must not load the CLI
framework, pydantic, the screen or git, nor the standard library modules that cost more than
the work. Proven in fresh interpreters running the real console-script entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bridge.core_support import Bridge
from tests.bridge.hookkit import HookWorld, fixture

FORBIDDEN = {"textual", "rich", "pygit2", "mcp", "click", "pydantic", "pydantic_core", "caesar_tui"}
COSTLY = {
    # Each costs 1-8 ms to import, against the ~10 ms the interpreter takes to start.
    "typing", "dataclasses", "pathlib", "datetime", "tempfile", "decimal", "secrets", "random",
    "json",  # imports re (caesar_core.bridge.cjson calls the C accelerator _json directly)
    "re", "enum", "functools", "collections",  # re compiles through enum and functools
    "hashlib", "_hashlib", "hmac",  # OpenSSL (state.hmac_sha256_key uses the built-in SHA-256)
    "fnmatch",  # imports re: loaded only for a project with [[bridge.rule]] entries
    "importlib", "warnings",  # the adapter is imported by name with __import__
    "importlib.metadata", "email", "zipfile", "inspect", "ast", "tokenize",
}  # fmt: skip
PROBE = """
import io, sys
sys.argv = ["caesar", *sys.argv[1:]]
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.stdin.buffer.read()))
from caesar_core.cli.entry import main
try:
    main()
except SystemExit:
    pass
sys.stdout.write("\\n" + " ".join(sorted(sys.modules)) + "\\n")
"""
"""Runs ``caesar`` as its console script does and prints, after its output, every module it
loaded (the probe itself loads nothing: ``io`` and ``sys`` are there before any code runs)."""


def loaded(env: dict[str, str], stdin: bytes, *args: str) -> tuple[str, set[str]]:
    """What the command printed and the modules it loaded (full dotted names)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    output, _, modules = done.stdout.decode().rstrip("\n").rpartition("\n")
    return output, set(modules.split())


def tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def bridge_loaded(bridge: Bridge, request: object) -> set[str]:
    stdin = request if isinstance(request, bytes) else json.dumps(request).encode()
    output, modules = loaded(bridge.process_env(), stdin, "bridge")
    assert json.loads(output)["decision"] != "error" or "not JSON" in output
    return modules


@pytest.fixture
def opened(tmp_path: Path) -> tuple[Bridge, str]:
    bridge = Bridge(tmp_path)
    return bridge, bridge.begin()["admission_id"]


def test_every_per_call_op_imports_nothing_heavy(opened: tuple[Bridge, str]) -> None:
    bridge, adm = opened
    for request in (
        {"op": "pre-tool", "admission_id": adm, "tool": "Bash", "tool_input": {"command": "ls"}},
        {"op": "post-tool", "admission_id": adm, "tool": "Bash", "result": "x"},
        {"op": "telemetry", "admission_id": adm, "input_tokens": 1, "cost_source": "session_delta"},
        {"op": "finalize", "admission_id": adm},
    ):
        modules = tops(bridge_loaded(bridge, request))
        assert "caesar_core" in modules
        assert not modules & FORBIDDEN, (request["op"], modules & FORBIDDEN)


def test_bad_input_imports_nothing_heavy_either(opened: tuple[Bridge, str]) -> None:
    bridge, _ = opened
    assert not tops(bridge_loaded(bridge, b"not json")) & FORBIDDEN


def test_the_per_call_ops_skip_costly_stdlib_modules_too(opened: tuple[Bridge, str]) -> None:
    """pre-tool, post-tool and telemetry; finalize writes the receipt indented (``json``)."""
    bridge, adm = opened
    for request in (
        {"op": "pre-tool", "admission_id": adm, "tool": "Bash", "tool_input": {"x": 1}},
        {"op": "pre-tool", "admission_id": adm, "tool": "WebFetch", "tool_input": "https://a.b/"},
        {"op": "pre-tool", "admission_id": adm, "tool": "Edit", "tool_input": {"path": "é.py"}},
        {"op": "post-tool", "admission_id": adm, "tool": "Bash", "result": "x"},
        {"op": "telemetry", "admission_id": adm, "input_tokens": 1, "cost_source": "session_delta"},
    ):
        modules = bridge_loaded(bridge, request)
        assert not modules & COSTLY, (request, modules & COSTLY)


@pytest.mark.parametrize(
    ("client", "prompt", "pre_tool"),
    [
        ("claude-code", "user_prompt", "pre_tool_bash"),
        ("codex", "user_prompt", "pre_tool_bash"),
        ("gemini", "before_agent", "before_tool_shell"),
    ],
)
def test_a_hook_pre_tool_on_an_open_admission_skips_them_too(
    tmp_path: Path, client: str, prompt: str, pre_tool: str
) -> None:
    world = HookWorld(tmp_path)
    world.run(client, fixture(client, prompt))
    payload = json.dumps(world.localize(fixture(client, pre_tool))).encode()
    _, modules = loaded(world.env(), payload, "hook", client)
    assert "caesar_core.bridge.core" in modules  # the bridge did answer
    assert not tops(modules) & FORBIDDEN
    assert not modules & COSTLY, modules & COSTLY
