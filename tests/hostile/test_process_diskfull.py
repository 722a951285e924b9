"""Case 8: a write that fails (a full disk) while the agent runs or while its task concludes.

``caesar`` runs under ``prlimit --fsize``: past that size every write of caesar's fails with
``EFBIG`` (CPython ignores SIGXFSZ), exactly where a full disk fails with ``ENOSPC``, with no
real disk filled. The agent's own small files stay below the limit.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from caesar_core.store import TaskStore
from tests.hostile.conftest import BOUND_S, caesar, hostile_agent
from tests.runner.conftest import CAESAR

LIMIT = 64 * 1024
UNDER_LIMIT = ("prlimit", f"--fsize={LIMIT}", CAESAR)

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit")


def run_limited(repo: Path, *args: str) -> tuple[dict[str, object], str, int]:
    done = caesar(repo, "run", "fill", "--agent", "filler", "--json", *args, command=UNDER_LIMIT)
    assert done.stdout, done.stderr
    return json.loads(done.stdout), done.stderr, done.returncode


def test_a_failing_raw_log_never_stops_the_pump(repo: Path) -> None:
    """raw.log stops at the limit; the agent's 400 KB of output is still drained, so it is not
    blocked on a full pipe until its deadline: it finishes, and the loss is a finding."""
    hostile_agent(
        repo,
        "filler",
        """
        i=0
        while [ $i -lt 4000 ]; do
          echo "line $i of output that caesar reads while the disk is full .............."
          i=$((i+1))
        done
        printf '{"protocol":"caesar.report/v1","status":"success","summary":"all printed"}' \\
          > "$CAESAR_REPORT_PATH"
        """,
    )
    out, stderr, code = run_limited(repo, "--timeout", f"{BOUND_S}s")
    assert out["status"] == "succeeded", stderr
    assert code == 0 and "Traceback" not in stderr
    report = out["report"]
    assert isinstance(report, dict)
    [lost] = [f for f in report["findings"] if f["title"] == "Output lost"]
    assert lost["severity"] == "high"
    assert "raw.log stopped" in lost["detail"] and "File too large" in lost["detail"]
    raw_log = TaskStore(repo).paths(str(out["task_id"])).raw_log
    assert raw_log.stat().st_size <= LIMIT


def test_a_conclusion_that_cannot_be_written_ends_failed_with_the_reason(repo: Path) -> None:
    """The agent says a report bigger than the limit: caesar cannot write it back. No
    traceback, and the task is not left ``running``: it is failed, and says why."""
    hostile_agent(
        repo,
        "filler",
        """
        python3 -c 'import json; print(json.dumps({"protocol": "caesar.report/v1",
            "status": "success", "summary": "big", "details": "x" * 100000}))'
        """,
    )
    out, stderr, code = run_limited(repo)
    assert code == 1 and "Traceback" not in stderr, stderr
    assert out["status"] == "failed"
    record = TaskStore(repo).get(str(out["task_id"]))
    assert record.status.value == "failed"
    assert "could not be written: File too large" in (record.ended_reason or "")
    on_disk = json.loads(TaskStore(repo).paths(record.id).report.read_text())
    assert on_disk["status"] == "failed" and "could not be concluded" in on_disk["summary"]
