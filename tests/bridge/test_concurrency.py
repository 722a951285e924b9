"""Ten ``caesar bridge`` processes on one trace at once: no line lost, none interleaved."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.bridge.core_support import CAESAR, Bridge, valid_response

WORKERS = 10
CALLS = 3
"""Each worker makes this many pre-tool/post-tool pairs, one process per call."""


def test_ten_concurrent_processes_lose_and_interleave_nothing(tmp_path: Path) -> None:
    bridge = Bridge(tmp_path)
    begun = bridge.begin()
    adm, trace_id = begun["admission_id"], begun["trace_id"]
    requests = tmp_path / "requests"
    requests.mkdir()
    workers = []
    for worker in range(WORKERS):
        steps = []
        for call in range(CALLS):
            use = f"w{worker}-c{call}"
            long_input = {"command": f"echo {use} " + "x" * 5000}  # requests beyond a pipe buffer
            for op, extra in (
                ("pre-tool", {"tool_input": long_input}),
                (
                    "post-tool",
                    {"status": "error" if call == 0 else "success", "result": "y" * 9000},
                ),
            ):
                path = requests / f"{use}-{op}.json"
                request = {"op": op, "admission_id": adm, "tool": "Bash", "tool_use_id": use}
                path.write_text(json.dumps(request | extra))
                steps.append(f'"{CAESAR}" bridge < "{path}" >> "{requests}/w{worker}.out"')
        workers.append(
            subprocess.Popen(
                ["sh", "-c", " && ".join(steps)],
                env=bridge.process_env(),
                stderr=subprocess.PIPE,
            )
        )
    for process in workers:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert err == b"", err

    for worker in range(WORKERS):
        answers = (requests / f"w{worker}.out").read_text().splitlines()
        assert len(answers) == 2 * CALLS
        decisions = [valid_response(json.loads(line))["decision"] for line in answers]
        assert decisions == ["allow", "recorded"] * CALLS
        assert all(not json.loads(line)["warnings"] for line in answers)  # all paired

    raw = (tmp_path / "state" / "bridge" / "traces" / f"{trace_id}.jsonl").read_bytes()
    assert raw.endswith(b"\n")
    lines = [json.loads(line) for line in raw.decode().splitlines()]  # every line whole
    assert [line["seq"] for line in lines] == list(range(1, 2 + 2 * WORKERS * CALLS))
    pre = [line for line in lines if line["op"] == "pre-tool"]
    post = [line for line in lines if line["op"] == "post-tool"]
    assert len(pre) == len(post) == WORKERS * CALLS
    assert sorted(line["paired_with"] for line in post) == sorted(line["n"] for line in pre)
    by_use = {line["tool_use"]: line["n"] for line in pre}
    assert all(by_use[line["tool_use"]] == line["paired_with"] for line in post)

    final = bridge.finalize(adm)
    assert final["receipt"]["tool_calls"] == WORKERS * CALLS
    assert final["receipt"]["failures"] == WORKERS
    assert final["certification_strength"] == "project_hook"
