"""require_approval: the held tool call answered through ``caesar approve`` (real processes),
and one timing out under a project's ``[bridge] approval_timeout = "1s"``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from caesar_core.protocol.approvals import Approval, ApprovalAnswer
from caesar_core.store import TaskStore
from caesar_core.store.approvals import answer_file, approvals
from tests.bridge.core_support import CAESAR, Bridge, finish
from tests.runner.conftest import wait_for
from tests.store.conftest import make_record

RULE = '[[bridge.rule]]\ntool = "Bash"\nmatch = "git push*"\ndecision = "require_approval"\n'
RULE_WITH_REASON = RULE + 'reason = "pushing needs a person"\n'


def task(tmp_path: Path, config: str) -> tuple[Bridge, str, Path]:
    """A real task in a project's store, and a bridge admitted inside it."""
    project = tmp_path / "project"
    project.mkdir()
    store = TaskStore(project)
    record = make_record()
    task_dir = store.create(record).root
    (task_dir / "task.json").write_text(json.dumps({"id": record.id, "mode": "write"}))
    bridge = Bridge(tmp_path, task_dir=task_dir)
    bridge.config(config)
    return bridge, record.id, task_dir


def approve(
    project: Path, task_id: str, approval_id: str, decision: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CAESAR, "approve", task_id, approval_id, decision, "--root", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def hold(
    bridge: Bridge, adm: str, task_dir: Path, command: str
) -> tuple[subprocess.Popen[bytes], tuple[Approval, ApprovalAnswer | None]]:
    """A Bash pre-tool call the rule holds, and the first approval request once it is there."""
    held = bridge.spawn(
        {
            "op": "pre-tool",
            "admission_id": adm,
            "tool": "Bash",
            "tool_input": {"command": command},
        }
    )
    pending = wait_for(lambda: approvals(task_dir), what="the approval request")
    return held, pending[0]


@pytest.mark.parametrize("decision", ["allow", "deny"])
def test_an_approval_answered_with_caesar_approve(tmp_path: Path, decision: str) -> None:
    bridge, task_id, task_dir = task(tmp_path, RULE_WITH_REASON)
    adm = bridge.begin()["admission_id"]
    held, (asked, answer) = hold(bridge, adm, task_dir, "git push origin main")
    assert answer is None
    assert (asked.tool, asked.summary, asked.reason) == (
        "Bash",
        "git push origin main",
        "pushing needs a person",
    )
    assert asked.admission_id == adm
    assert asked.timeout_s == 120
    assert held.poll() is None  # still waiting for a person

    done = approve(bridge.project, task_id, asked.id, decision)
    assert done.returncode == 0, done.stderr
    response = finish(held)
    assert response["decision"] == decision
    verb = "allowed" if decision == "allow" else "denied"
    assert response["reason"] == f"approval {asked.id} {verb} by cli"

    again = approve(bridge.project, task_id, asked.id, "allow")
    assert again.returncode == 1
    assert "already answered by cli" in again.stderr
    line = bridge.trace_lines(response["trace_id"])[-1]
    assert (line["decision"], line["approval_id"]) == (decision, asked.id)


def test_an_approval_times_out_to_on_approval_timeout(tmp_path: Path) -> None:
    bridge, task_id, task_dir = task(tmp_path, '[bridge]\napproval_timeout = "1s"\n\n' + RULE)
    adm = bridge.begin()["admission_id"]
    response = bridge.run(
        json.dumps(
            {
                "op": "pre-tool",
                "admission_id": adm,
                "tool": "Bash",
                "tool_input": {"command": "git push --force"},
            }
        )
    )
    assert response["decision"] == "deny"
    assert "timed out after 1s: on_approval_timeout = deny" in response["reason"]
    ((asked, answer),) = approvals(task_dir)
    assert answer is not None
    assert (answer.decision, answer.answered_by) == ("deny", "timeout")
    late = approve(bridge.project, task_id, asked.id, "allow")
    assert late.returncode == 1
    assert "already answered by timeout" in late.stderr


def test_on_approval_timeout_allow(tmp_path: Path) -> None:
    config = '[bridge]\napproval_timeout = "1s"\non_approval_timeout = "allow"\n\n' + RULE
    bridge, _, _ = task(tmp_path, config)
    adm = bridge.begin()["admission_id"]
    response = bridge.pre(adm, "Bash", {"command": "git push"})
    assert response["decision"] == "allow"
    assert "on_approval_timeout = allow" in response["reason"]


def test_other_calls_go_on_while_one_is_held(tmp_path: Path) -> None:
    bridge, task_id, task_dir = task(tmp_path, RULE)
    adm = bridge.begin()["admission_id"]
    held, (asked, _) = hold(bridge, adm, task_dir, "git push")
    assert bridge.pre(adm, "Read", {"file_path": "a"})["decision"] == "allow"  # not blocked
    assert approve(bridge.project, task_id, asked.id, "allow").returncode == 0
    assert finish(held)["decision"] == "allow"


def test_caesar_approve_refuses_unknown_tasks_and_approvals(tmp_path: Path) -> None:
    bridge, task_id, _ = task(tmp_path, RULE)
    unknown = approve(bridge.project, task_id, "ap_000000000000", "allow")
    assert unknown.returncode == 1
    assert "no approval" in unknown.stderr
    assert approve(bridge.project, task_id, "ap_1", "maybe").returncode == 2


def test_an_approval_cannot_outlive_a_halt(tmp_path: Path) -> None:
    halt = '[[bridge.rule]]\ntool = "Bash"\nmatch = "shutdown*"\ndecision = "halt"\n'
    bridge, task_id, task_dir = task(tmp_path, RULE + "\n" + halt)
    adm = bridge.begin()["admission_id"]
    held, (asked, _) = hold(bridge, adm, task_dir, "git push")
    assert bridge.pre(adm, "Bash", {"command": "shutdown now"})["decision"] == "halt"
    assert approve(bridge.project, task_id, asked.id, "allow").returncode == 0
    response = finish(held)
    assert response["decision"] == "deny"
    assert response["reason"].endswith("allowed by cli; but halted")


def test_a_linked_approvals_folder_is_refused_not_written_through(tmp_path: Path) -> None:
    """The agent can write its task directory: ``approvals/`` replaced by a link to a folder
    outside gets nothing written there, and the held call is denied with the reason."""
    bridge, _, task_dir = task(tmp_path, RULE)
    outside = tmp_path / "outside"
    outside.mkdir()
    (task_dir / "approvals").symlink_to(outside, target_is_directory=True)
    adm = bridge.begin()["admission_id"]
    response = bridge.run(
        json.dumps(
            {
                "op": "pre-tool",
                "admission_id": adm,
                "tool": "Bash",
                "tool_input": {"command": "git push"},
            }
        )
    )
    assert response["decision"] == "deny"
    assert "could not be asked" in response["reason"]
    assert list(outside.iterdir()) == []


def test_a_fifo_answer_is_no_answer_and_never_waited_on(tmp_path: Path) -> None:
    bridge, _, task_dir = task(tmp_path, '[bridge]\napproval_timeout = "1s"\n\n' + RULE)
    adm = bridge.begin()["admission_id"]
    held, (asked, _) = hold(bridge, adm, task_dir, "git push")
    fifo = answer_file(task_dir, asked.id)
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    response = finish(held, timeout=30)
    assert response["decision"] == "deny"
    assert "timed out" in response["reason"]


def test_the_agent_cannot_approve_its_own_held_call(tmp_path: Path) -> None:
    """The task directory is the agent's to write: an answer it drops beside the ask is no
    answer. Answers live in caesar's state directory, out of the agent's reach."""
    bridge, _, task_dir = task(tmp_path, '[bridge]\napproval_timeout = "1s"\n\n' + RULE)
    adm = bridge.begin()["admission_id"]
    held, (asked, _) = hold(bridge, adm, task_dir, "git push --force")
    forged = {"id": asked.id, "decision": "allow", "answered_by": "cli"}
    (task_dir / "approvals" / f"{asked.id}.answer.json").write_text(json.dumps(forged))
    response = finish(held, timeout=30)
    assert response["decision"] == "deny"
    assert "timed out" in response["reason"]
    assert answer_file(task_dir, asked.id).is_relative_to(
        tmp_path / "project" / ".caesar" / "state"
    )
    ((_, answer),) = approvals(task_dir)
    assert answer is not None and answer.answered_by == "timeout"
