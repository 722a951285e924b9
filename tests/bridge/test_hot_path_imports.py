"""``caesar bridge`` runs once per tool call: it must not load the CLI framework, pydantic, the
screen or git. Proven in fresh interpreters running the real console-script entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bridge.core_support import Bridge

FORBIDDEN = {"textual", "rich", "pygit2", "mcp", "click", "pydantic", "pydantic_core", "caesar_tui"}
PROBE = """
import io, json, sys
sys.argv = ["caesar", *sys.argv[1:]]
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.stdin.buffer.read()))
from caesar_core.cli.entry import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def loaded(bridge: Bridge, request: object, *args: str) -> set[str]:
    stdin = request if isinstance(request, bytes) else json.dumps(request).encode()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        env=bridge.process_env(),
        timeout=60,
        check=True,
    )
    response, modules = done.stdout.decode().splitlines()
    assert json.loads(response)["decision"] != "error" or b"not JSON" in done.stdout
    return set(json.loads(modules))


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
        modules = loaded(bridge, request, "bridge")
        assert "caesar_core" in modules
        assert not modules & FORBIDDEN, (request["op"], modules & FORBIDDEN)


def test_bad_input_imports_nothing_heavy_either(opened: tuple[Bridge, str]) -> None:
    bridge, _ = opened
    assert not loaded(bridge, b"not json", "bridge") & FORBIDDEN


def test_the_hot_path_skips_costly_stdlib_modules_too(opened: tuple[Bridge, str]) -> None:
    """Each of these costs 2-8 ms to import, against a budget of ~30 ms per process."""
    bridge, adm = opened
    request = {"op": "pre-tool", "admission_id": adm, "tool": "Bash", "tool_input": {"x": 1}}
    modules = loaded(bridge, request, "bridge")
    assert not modules & {"typing", "dataclasses", "pathlib", "datetime", "tempfile", "decimal"}
