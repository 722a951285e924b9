"""A fixed project for the app's snapshots and README screenshots: same ids, same times,
same content on every machine, and no process or git behind it (the diff is canned)."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from caesar_core.events import EventWriter
from caesar_core.fs import atomic_write, create_exclusive, dump_json
from caesar_core.git import FileChange, TreeDiff
from caesar_core.protocol import (
    REPORT_V1,
    ChangeAction,
    Error,
    FileChanged,
    Finished,
    Isolation,
    Message,
    Mode,
    Progress,
    ReportStatus,
    Started,
    Thinking,
    ToolStatus,
    ToolUse,
)
from caesar_core.protocol.event import EventPayload
from caesar_core.protocol.report import Change, CommandRun, Finding, Report, Severity, Usage
from caesar_core.store import (
    ReportSource,
    TaskRecord,
    TaskStatus,
    TaskStore,
    VerifiedBy,
    ask,
)
from caesar_core.store.record import CheckResult, Checks, ChecksState
from caesar_core.store.record import TaskRecord as Record
from caesar_tui.app import CaesarApp, make_app
from caesar_tui.clock import fixed_clock
from tests.tui.screen import reviewable

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
IMPLEMENTER = "t_1a2b3c4d000000000000000000000001"
HELPER = "t_5e6f7a8b000000000000000000000002"
REVIEWER = "t_9c0d1e2f000000000000000000000003"
FLAKY = "t_3a4b5c6d000000000000000000000004"
TURN_1 = "t_7e8f9a0b000000000000000000000005"
TURN_2 = "t_2c3d4e5f000000000000000000000006"
"""A task and its follow-up turn (``caesar continue``), only in the comments screen."""

PARSER_PY = """\
diff --git a/src/parser.py b/src/parser.py
index 27ee63e..fb56f86 100644
--- a/src/parser.py
+++ b/src/parser.py
@@ -6,11 +6,14 @@ SEPARATOR = ","
\x20
\x20
 def parse(text: str) -> list[str]:
-    return text.split(SEPARATOR)
+    \"\"\"Split a comma list; an empty input is an empty list, not [''].\"\"\"
+    if not text.strip():
+        return []
+    return [part.strip() for part in text.split(SEPARATOR)]
\x20
\x20
 def parse_pairs(text: str) -> dict[str, str]:
-    return dict(item.split("=") for item in parse(text))
+    return dict(item.split("=", 1) for item in parse(text))
\x20
\x20
 def render(items: list[str]) -> str:
@@ -21,5 +24,6 @@ def render_pairs(pairs: dict[str, str]) -> str:
     return render([f"{key}={value}" for key, value in pairs.items()])
\x20
\x20
-def count(text: str) -> int:
-    return len(parse(text))
+def count(text: str, *, unique: bool = False) -> int:
+    items = parse(text)
+    return len(set(items)) if unique else len(items)
"""
TEST_PARSER_PY = """\
diff --git a/tests/test_parser.py b/tests/test_parser.py
new file mode 100644
index 0000000..c4a7e01
--- /dev/null
+++ b/tests/test_parser.py
@@ -0,0 +1,6 @@
+from src.parser import parse
+
+
+def test_empty_input_is_an_empty_list() -> None:
+    assert parse("") == []
+    assert parse("   ") == []
"""

DIFF = reviewable(
    "3f2a91c" + "0" * 33,
    "8d1e2b4" + "0" * 33,
    [
        (FileChange("src/parser.py", ChangeAction.MODIFIED, None, 8, 4), PARSER_PY),
        (FileChange("tests/test_parser.py", ChangeAction.CREATED, None, 6, 0), TEST_PARSER_PY),
    ],
)


EXPORT_OLD = """\
import csv
import sys


def export(rows: list[dict[str, str]]) -> None:
    writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
"""
EXPORT_NEW = """\
import csv
import json
import sys


def export(rows: list[dict[str, str]], *, as_json: bool = False) -> None:
    if not rows:
        return
    if as_json:
        json.dump(rows, sys.stdout, indent=2)
        return
    writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
"""
EXPORT_PY = """\
diff --git a/src/export.py b/src/export.py
index 4c1d2e3..9a8b7c6 100644
--- a/src/export.py
+++ b/src/export.py
@@ -1,8 +1,14 @@
 import csv
+import json
 import sys
\x20
\x20
-def export(rows: list[dict[str, str]]) -> None:
+def export(rows: list[dict[str, str]], *, as_json: bool = False) -> None:
+    if not rows:
+        return
+    if as_json:
+        json.dump(rows, sys.stdout, indent=2)
+        return
     writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
     writer.writeheader()
     writer.writerows(rows)
"""
TURNS_DIFF = reviewable(
    "3f2a91c" + "0" * 33,
    "5b6c7d8" + "0" * 33,
    [(FileChange("src/export.py", ChangeAction.MODIFIED, None, 7, 1), EXPORT_PY)],
)


def canned_diff(record: Record) -> TreeDiff | None:
    if record.id in (TURN_1, TURN_2):
        return TURNS_DIFF
    return DIFF if record.id == IMPLEMENTER else TreeDiff(base="0" * 40, tree="0" * 40)


def _at(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def _record(store: TaskStore, task_id: str, ago: float, **fields: object) -> Path:
    defaults: dict[str, object] = {
        "id": task_id,
        "created_at": _at(ago),
        "started_at": _at(ago - 1),
        "workspace": "/work/project",
        "isolation": Isolation.WORKTREE,
        "mode": Mode.WRITE,
        "status": TaskStatus.RUNNING,
        "base_ref": "3f2a91c" + "0" * 33,
        "worktree_path": f"/work/project/.caesar/wt/{task_id}",
        "branch": f"caesar/{task_id[2:10]}",
    }
    defaults.update(fields)
    return store.create(TaskRecord.model_validate(defaults)).root


def _events(
    path: Path, task_id: str, start: float, payloads: list[tuple[float, EventPayload]]
) -> None:
    moments = iter([_at(start - offset) for offset, _ in payloads])
    with EventWriter(path / "events.jsonl", task_id, clock=lambda: next(moments)) as writer:
        for _, payload in payloads:
            writer.append(payload)


def build_scene(root: Path) -> Path:
    """Write the scene's project under ``root`` (which must be empty) and return it."""
    store = TaskStore(root)
    implementer = _record(
        store,
        IMPLEMENTER,
        300,
        agent="codex",
        role="implementer",
        objective="Fix the parser regression on empty inputs",
    )
    _events(
        implementer,
        IMPLEMENTER,
        299,
        [
            (0, Started(agent="codex", command="codex exec --json -s workspace-write <brief>")),
            (
                2,
                Thinking(
                    text="The parser returns [''] for an empty string; the fix belongs in parse()."
                ),
            ),
            (
                4,
                ToolUse(
                    tool="bash",
                    id="item_1",
                    input_summary="rg -n 'def parse' src",
                    status=ToolStatus.STARTED,
                ),
            ),
            (
                5,
                ToolUse(
                    tool="bash",
                    id="item_1",
                    input_summary="rg -n 'def parse' src",
                    status=ToolStatus.SUCCEEDED,
                ),
            ),
            (
                9,
                ToolUse(
                    tool="apply_patch",
                    id="item_2",
                    input_summary="src/parser.py",
                    status=ToolStatus.STARTED,
                ),
            ),
            (
                10,
                ToolUse(
                    tool="apply_patch",
                    id="item_2",
                    input_summary="src/parser.py",
                    status=ToolStatus.SUCCEEDED,
                ),
            ),
            (10, FileChanged(path="src/parser.py", action=ChangeAction.MODIFIED)),
            (14, FileChanged(path="tests/test_parser.py", action=ChangeAction.CREATED)),
            (15, Progress(message="fix written, running the tests", pct=70)),
            (
                16,
                ToolUse(
                    tool="bash",
                    id="item_3",
                    input_summary="pytest -q tests/test_parser.py",
                    status=ToolStatus.STARTED,
                ),
            ),
            (
                40,
                ToolUse(
                    tool="bash",
                    id="item_3",
                    input_summary="pytest -q tests/test_parser.py",
                    status=ToolStatus.FAILED,
                ),
            ),
            (41, Message(text="One test failed: parse_pairs splits on every '='. ")),
            (42, Message(text="Fixing that too.")),
            (
                280,
                ToolUse(
                    tool="bash", id="item_4", input_summary="pytest -q", status=ToolStatus.STARTED
                ),
            ),
        ],
    )
    helper = _record(
        store,
        HELPER,
        200,
        agent="demo",
        parent_id=IMPLEMENTER,
        depth=2,
        objective="Decide whether the old behaviour must be kept",
    )
    _events(
        helper,
        HELPER,
        199,
        [
            (0, Started(agent="demo", command="python -m caesar_core.agents.demo")),
            (1, Thinking(text="This changes a public function's result.")),
        ],
    )
    ask(
        store.paths(HELPER),
        "Should the old behavior be kept?",
        ["yes", "no"],
        now=_at(190),
        question_id="q_kept",
    )
    reviewer = _record(
        store,
        REVIEWER,
        900,
        agent="claude",
        role="reviewer",
        mode=Mode.READ_ONLY,
        isolation=Isolation.INPLACE,
        status=TaskStatus.SUCCEEDED,
        ended_at=_at(700),
        worktree_path=None,
        branch=None,
        base_ref=None,
        exit_code=0,
        report_source=ReportSource.FILE,
        changes_verified_by=VerifiedBy.GIT,
        report_status=ReportStatus.SUCCESS,
        objective="Review the error handling in src/io.py",
        checks=Checks(
            state=ChecksState.PASSED,
            started_at=_at(702),
            ended_at=_at(700),
            results=[CheckResult(command="pytest -q", exit_code=0, duration_ms=1840)],
        ),
    )
    _events(
        reviewer,
        REVIEWER,
        899,
        [
            (0, Started(agent="claude", command="claude -p <brief> --output-format stream-json")),
            (
                3,
                ToolUse(
                    tool="Read", id="toolu_01", input_summary="src/io.py", status=ToolStatus.STARTED
                ),
            ),
            (4, ToolUse(tool="", id="toolu_01", status=ToolStatus.SUCCEEDED)),
            (
                190,
                Finished(
                    status=ReportStatus.SUCCESS,
                    summary="Two findings; nothing blocking.",
                    exit_code=0,
                ),
            ),
        ],
    )
    report = Report(
        protocol=REPORT_V1,
        task_id=REVIEWER,
        status=ReportStatus.SUCCESS,
        summary="Two findings; nothing blocking.",
        details="Errors are caught at the boundary, but two paths lose the cause.",
        findings=[
            Finding(
                severity=Severity.MEDIUM,
                title="Exception cause dropped",
                file="src/io.py",
                line=42,
                detail="`raise IOError(msg)` inside `except` loses the original.",
            ),
            Finding(
                severity=Severity.LOW,
                title="Bare except",
                file="src/io.py",
                line=88,
                detail="Catches KeyboardInterrupt too.",
            ),
        ],
        commands_run=[CommandRun(command="pytest -q", exit_code=0)],
        next_steps=["Chain the cause with `raise ... from error`."],
        usage=Usage(input_tokens=48210, output_tokens=2150, cost_usd=0.31, duration_ms=190000),
        changes=[Change(path="src/io.py", action=ChangeAction.MODIFIED, summary="nothing")][:0],
    )
    atomic_write(store.paths(REVIEWER).report, dump_json(report.to_json_dict()))
    flaky = _record(
        store,
        FLAKY,
        1500,
        agent="opencode",
        status=TaskStatus.FAILED,
        ended_at=_at(1400),
        exit_code=1,
        report_source=ReportSource.SYNTHESIZED,
        report_status=ReportStatus.FAILED,
        objective="Make the integration suite pass",
        checks=Checks(
            state=ChecksState.FAILED,
            started_at=_at(1402),
            ended_at=_at(1400),
            results=[
                CheckResult(
                    command="npm test",
                    exit_code=127,
                    duration_ms=12,
                    output_tail="/bin/sh: 1: npm: not found\n",
                )
            ],
        ),
    )
    _events(
        flaky,
        FLAKY,
        1499,
        [
            (0, Started(agent="opencode", command="opencode run --format json <brief>")),
            (20, ToolUse(tool="bash", input_summary="npm test", status=ToolStatus.FAILED)),
            (21, Error(message="npm: command not found", fatal=True)),
            (
                22,
                Finished(
                    status=ReportStatus.FAILED, summary="npm is not installed here.", exit_code=1
                ),
            ),
        ],
    )
    return root


APPROVAL = "ap_5e6f7a8b0001"


def hold_approval(root: Path) -> None:
    """A tool call of the helper held by the bridge for a person (asked 30 s before NOW, with
    the default 120 s timeout), written as the bridge writes it. Only the approvals snapshot
    adds it: the other baselines show the scene without it."""
    directory = TaskStore(root).paths(HELPER).root / "approvals"
    directory.mkdir()
    body = {
        "id": APPROVAL,
        "admission_id": "adm_" + "5e6f7a8b" * 4,
        "tool": "Bash",
        "summary": "git push --force origin main",
        "reason": "rule: force pushes need a person",
        "asked_at": _at(30).isoformat(),
        "timeout_s": 120,
    }
    create_exclusive(directory / f"{APPROVAL}.json", json.dumps(body).encode())


def add_turns(root: Path) -> None:
    """A task sent back once (``r``, ``caesar continue``): turn 1 and turn 2 in one worktree
    (real, so the comments are placed in its file), and two review comments, kept where caesar
    keeps them: one made on turn 1 whose line turn 2 rewrote (addressed), one made on turn 2
    (open). Only the comments screen adds them."""
    store = TaskStore(root)
    worktree = root / ".caesar" / "wt" / TURN_1
    (worktree / "src").mkdir(parents=True)
    (worktree / "src" / "export.py").write_text(EXPORT_NEW)
    shared: dict[str, object] = {
        "agent": "codex",
        "status": TaskStatus.SUCCEEDED,
        "exit_code": 0,
        "report_status": ReportStatus.SUCCESS,
        "worktree_path": str(worktree),
        "branch": f"caesar/{TURN_1[2:10]}",
    }
    objective = "Add a --json flag to the export command"
    first = _record(
        store, TURN_1, 2400, ended_at=_at(2300), continued_by=TURN_2, objective=objective, **shared
    )
    again = "Address the review comments: - src/export.py:7: an empty list is falsy"
    second = _record(
        store,
        TURN_2,
        2000,
        ended_at=_at(1950),
        continues=TURN_1,
        chain=TURN_1,
        turn=2,
        objective=again,
        **shared,
    )
    for path, task_id, ago, summary in (
        (first, TURN_1, 2400, "Added --json: rows dumped as a JSON list."),
        (second, TURN_2, 2000, "Empty input checked with `if not rows`, before either format."),
    ):
        _events(
            path,
            task_id,
            ago - 1,
            [
                (0, Started(agent="codex", command="codex exec --json <brief>")),
                (40, Finished(status=ReportStatus.SUCCESS, summary=summary, exit_code=0)),
            ],
        )
    made = {"path": "src/export.py", "author": "ann", "state": "open"}
    comments = [
        {
            **made,
            "id": "c_0a1b2c3d",
            "start_line": 7,
            "end_line": 7,
            "anchor": ["    if rows == []:"],
            "text": "an empty list is falsy: `if not rows`",
            "created_at": _at(2200).isoformat(),
            "turn": TURN_1,
        },
        {
            **made,
            "id": "c_4e5f6a7b",
            "start_line": 10,
            "end_line": 10,
            "anchor": ["        json.dump(rows, sys.stdout, indent=2)"],
            "text": "end the JSON with a newline, as the CSV ends",
            "created_at": _at(1900).isoformat(),
            "turn": TURN_2,
        },
    ]
    kept = root / ".caesar" / "state" / "comments" / f"{TURN_1}.json"
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({"protocol": "caesar.comments/v1", "comments": comments}))


def scene_app(root: Path, *, with_approval: bool = False, with_turns: bool = False) -> CaesarApp:
    """The app over the scene: fixed clock, canned diff, no bell, UTC times on screen."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    build_scene(root)
    if with_approval:
        hold_approval(root)
    if with_turns:
        add_turns(root)
    return make_app(root, clock=fixed_clock(NOW), diff_provider=canned_diff)
