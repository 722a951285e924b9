"""Running ``caesar hook <client>`` as a client would: a real process, native payload on stdin.

Each run gets the bridge's state in a temporary directory, a project whose
``.caesar/config.toml`` holds the rules the test wants, and optionally a task directory (so
events and approvals have somewhere to go). Every bridge response the hook process produced is
collected (``CAESAR_HOOK_RESPONSES``) and validated against the seed schema's
``bridgeResponse``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator

FIXTURES = Path(__file__).parents[1] / "fixtures"
HOOK_FIXTURES = FIXTURES / "hooks"
CAESAR = shutil.which("caesar", path=str(Path(sys.executable).parent)) or "caesar"
_SCHEMA = json.loads((FIXTURES / "lifecycle.schema.json").read_text())
RESPONSE = Draft7Validator(
    {**_SCHEMA["definitions"]["bridgeResponse"], "definitions": _SCHEMA["definitions"]}
)


def fixture(client: str, case: str) -> dict[str, Any]:
    data = json.loads((HOOK_FIXTURES / client / f"{case}.json").read_text())
    assert isinstance(data, dict)
    return data


def cases(client: str) -> list[str]:
    return sorted(path.stem for path in (HOOK_FIXTURES / client).glob("*.json"))


def rule_toml(*rules: dict[str, str]) -> str:
    blocks = []
    for rule in rules:
        lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in rule.items())
        blocks.append(f"[[bridge.rule]]\n{lines}")
    return "\n".join(blocks)


def decision_of(output: dict[str, Any] | None) -> tuple[str, str]:
    """A Claude-format answer's permission decision and its reason."""
    assert output is not None
    inner = output["hookSpecificOutput"]
    return inner["permissionDecision"], inner["permissionDecisionReason"]


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str
    responses: list[dict[str, Any]]

    @property
    def output(self) -> dict[str, Any] | None:
        """stdout as JSON, or None when the hook printed nothing."""
        if not self.stdout.strip():
            return None
        data = json.loads(self.stdout)
        assert isinstance(data, dict)
        return data

    @property
    def decisions(self) -> list[tuple[str, str]]:
        return [(r["op"], r["decision"]) for r in self.responses]


@dataclass
class HookWorld:
    """A state directory, a project and (once :meth:`task` is called) a task directory."""

    root: Path
    project: Path = field(init=False)
    state: Path = field(init=False)
    task_dir: Path | None = None
    runs: int = 0

    def __post_init__(self) -> None:
        self.project = self.root / "project"
        self.state = self.root / "state"
        (self.project / ".caesar").mkdir(parents=True)
        self.state.mkdir()

    def rules(self, *rules: dict[str, str], extra: str = "") -> None:
        text = extra + "\n" + rule_toml(*rules)
        (self.project / ".caesar" / "config.toml").write_text(text)

    def task(self, task_id: str = "t-hooks") -> Path:
        self.task_dir = self.root / "tasks" / task_id
        self.task_dir.mkdir(parents=True)
        (self.task_dir / "task.json").write_text(json.dumps({"id": task_id}))
        return self.task_dir

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CAESAR_", "CLAUDE_"))}
        env.pop("GEMINI_PROJECT_DIR", None)
        env["CAESAR_STATE_DIR"] = str(self.state)
        env["XDG_CONFIG_HOME"] = str(self.root / "no-global-config")
        if self.task_dir is not None:
            env["CAESAR_TASK_DIR"] = str(self.task_dir)
            env["CAESAR_TASK_ID"] = self.task_dir.name
        env.update(extra or {})
        return env

    def localize(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The payload with its working directory in this world's project (nothing else
        changes: the fixtures stay as the clients write them)."""
        local = dict(payload)
        if "cwd" in local:
            local["cwd"] = str(self.project)
        return local

    def spawn(
        self,
        client: str,
        payload: dict[str, Any] | str,
        *argv: str,
        env: dict[str, str] | None = None,
    ) -> tuple[subprocess.Popen[str], Path, str]:
        self.runs += 1
        responses = self.root / f"responses-{self.runs}.jsonl"
        stdin = payload if isinstance(payload, str) else json.dumps(self.localize(payload))
        proc = subprocess.Popen(
            [CAESAR, "hook", client, *argv],
            cwd=self.project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env({"CAESAR_HOOK_RESPONSES": str(responses), **(env or {})}),
        )
        return proc, responses, stdin

    def run(
        self,
        client: str,
        payload: dict[str, Any] | str,
        *argv: str,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> HookRun:
        proc, responses, stdin = self.spawn(client, payload, *argv, env=env)
        out, err = proc.communicate(stdin, timeout=timeout)
        return finish(proc.returncode, out, err, responses)

    def events(self) -> list[dict[str, Any]]:
        assert self.task_dir is not None
        path = self.task_dir / "events.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def all_files_text(self) -> str:
        """Every byte the bridge and the hooks left behind, for canary checks."""
        chunks = []
        for base in (self.state, *([self.task_dir] if self.task_dir else [])):
            for path in sorted(base.rglob("*")):
                if path.is_file():
                    chunks.append(path.read_bytes().decode("utf-8", "replace"))
        return "\n".join(chunks)


def finish(code: int, out: str, err: str, responses: Path) -> HookRun:
    found = []
    if responses.exists():
        found = [json.loads(line) for line in responses.read_text().splitlines() if line]
    for response in found:
        errors = sorted(RESPONSE.iter_errors(response), key=str)
        assert not errors, f"response not schema-valid: {response}: {errors[0].message}"
    return HookRun(code, out, err, found)


def collect(proc: subprocess.Popen[str], responses: Path, timeout: float = 60) -> HookRun:
    """The outcome of a hook process whose stdin was already written and closed."""
    assert proc.stdout is not None and proc.stderr is not None
    with proc.stdout, proc.stderr:
        proc.wait(timeout=timeout)
        out, err = proc.stdout.read(), proc.stderr.read()
    return finish(proc.returncode, out, err, responses)
