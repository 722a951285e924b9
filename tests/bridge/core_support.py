"""Driving the bridge core: in-process through ``handle`` and as the real ``caesar bridge``.

Every response either way is validated against the seed schema's ``bridgeResponse`` (the copy
in ``tests/fixtures``), so no test can pass on a response a client could not parse.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator

from caesar_core.bridge.core import handle

FIXTURES = Path(__file__).parents[1] / "fixtures"
CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
SEED = json.loads((FIXTURES / "lifecycle.schema.json").read_text())
REQUEST = Draft7Validator(SEED)
RESPONSE = Draft7Validator(
    {**SEED["definitions"]["bridgeResponse"], "definitions": SEED["definitions"]}
)


def valid_response(response: object) -> dict[str, Any]:
    errors = sorted(RESPONSE.iter_errors(response), key=str)
    assert not errors, f"{errors[0].message} in {response}"
    assert isinstance(response, dict)
    return response


class Bridge:
    """One isolated bridge: its own state dir, config home, project and (optional) task dir."""

    def __init__(self, tmp: Path, *, task_dir: Path | None = None) -> None:
        self.state = tmp / "state"
        self.project = tmp / "project"
        self.project.mkdir(exist_ok=True)
        self.task_dir = task_dir
        self.env = {
            "CAESAR_STATE_DIR": str(self.state),
            "XDG_CONFIG_HOME": str(tmp / "config-home"),
            "HOME": str(tmp / "home"),
        }
        if task_dir is not None:
            self.env["CAESAR_TASK_DIR"] = str(task_dir)

    def config(self, text: str) -> None:
        (self.project / ".caesar").mkdir(exist_ok=True)
        (self.project / ".caesar" / "config.toml").write_text(text)

    def __call__(self, request: object, now: Callable[[], float] = time.time) -> dict[str, Any]:
        return valid_response(handle(request, env=self.env, now=now))

    def begin(self, prompt: str = "list the files", **fields: Any) -> dict[str, Any]:
        request = {
            "op": "begin",
            "client": "claude-code",
            "prompt": prompt,
            "project": str(self.project),
            "integration_mode": "project_hook",
            **fields,
        }
        return self(request)

    def pre(self, admission: str, tool: str, tool_input: object = None, **more: Any) -> Any:
        return self(
            {"op": "pre-tool", "admission_id": admission, "tool": tool, "tool_input": tool_input}
            | more
        )

    def post(self, admission: str, tool: str, status: str = "success", **more: Any) -> Any:
        return self(
            {"op": "post-tool", "admission_id": admission, "tool": tool, "status": status} | more
        )

    def telemetry(self, admission: str, **numbers: Any) -> dict[str, Any]:
        return self({"op": "telemetry", "admission_id": admission, **numbers})

    def finalize(self, admission: str, **more: Any) -> dict[str, Any]:
        return self({"op": "finalize", "admission_id": admission, **more})

    def process_env(self) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("CAESAR_")}
        return {**base, **self.env}

    def run(self, stdin: bytes | str, *args: str, timeout: float = 60) -> dict[str, Any]:
        """The real ``caesar bridge``: exit 0, nothing on stderr, one schema-valid line."""
        data = stdin.encode() if isinstance(stdin, str) else stdin
        done = subprocess.run(
            [CAESAR, "bridge", *args],
            input=data,
            capture_output=True,
            env=self.process_env(),
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr == b"", done.stderr
        lines = done.stdout.decode().splitlines()
        assert len(lines) == 1, done.stdout
        return valid_response(json.loads(lines[0]))

    def spawn(self, request: dict[str, Any]) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [CAESAR, "bridge"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.process_env(),
        )
        assert process.stdin is not None
        process.stdin.write(json.dumps(request).encode())
        process.stdin.close()
        process.stdin = None  # sent whole; communicate() must not touch it again
        return process

    def trace_lines(self, trace_id: str) -> list[dict[str, Any]]:
        path = self.state / "bridge" / "traces" / f"{trace_id}.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()]

    def admission(self, admission_id: str) -> dict[str, Any]:
        data = json.loads(
            (self.state / "bridge" / "admissions" / f"{admission_id}.json").read_text()
        )
        assert isinstance(data, dict)
        return data


def finish(process: subprocess.Popen[bytes], timeout: float = 60) -> dict[str, Any]:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    assert err == b"", err
    return valid_response(json.loads(out))


def write_task(task_dir: Path, **fields: Any) -> Path:
    task_dir.mkdir(parents=True, exist_ok=True)
    body = {"id": "t-1", "mode": "write", "network": True, **fields}
    (task_dir / "task.json").write_text(json.dumps(body))
    return task_dir
