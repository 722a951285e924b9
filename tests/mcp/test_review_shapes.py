"""``caesar diff --json`` / ``caesar apply --json`` and the MCP ``caesar_diff`` /
``caesar_apply`` answer with one JSON shape: real CLI processes and a real MCP client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from caesar_core.store import TaskStore
from tests.mcp.conftest import error_text, result_json, session
from tests.runner.conftest import caesar, context, run_json

FILE_KEYS = {
    "path",
    "old_path",
    "action",
    "additions",
    "deletions",
    "binary",
    "link_target",
    "link_outside",
    "patch_span",
    "hunks",
}
HUNK_KEYS = {
    "id",
    "header",
    "old_start",
    "old_lines",
    "new_start",
    "new_lines",
    "added",
    "removed",
    "whole",
}
DIFF_KEYS = {"task_id", "base", "tree", "is_empty", "files", "patch"}
APPLY_KEYS = {
    "task_id",
    "applied",
    "files",
    "written",
    "already_applied",
    "conflicts",
    "digest",
    "hunks",
    "already_applied_hunks",
    "links",
}


def cli_json(cwd: Path, *args: str) -> Any:
    done = caesar(cwd, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def work_task(repo: Path) -> str:
    out = run_json(repo, "note it", "--agent", "demo", "--context", context("work"))
    assert out["_exit"] == 0, out["_stderr"]
    return str(out["task_id"])


async def test_a_diff_reads_the_same_from_the_cli_and_from_mcp(repo: Path) -> None:
    task_id = work_task(repo)
    from_cli = cli_json(repo, "diff", task_id)
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        from_mcp = result_json(await client.call_tool("caesar_diff", {"task_id": task_id}))

    assert from_cli == from_mcp
    assert set(from_cli) == DIFF_KEYS
    assert not from_cli["is_empty"] and len(from_cli["base"]) == 40
    files = {f["path"]: f for f in from_cli["files"]}
    assert set(files) == {"DEMO_NOTES.md", "README.md"}
    assert all(set(f) == FILE_KEYS for f in files.values())
    notes = files["DEMO_NOTES.md"]
    assert (notes["action"], notes["old_path"], notes["binary"]) == ("created", None, False)
    assert notes["additions"] > 0 and notes["deletions"] == 0
    (created,) = notes["hunks"]
    assert set(created) == HUNK_KEYS and created["id"].startswith("h_")
    assert (created["old_start"], created["old_lines"], created["removed"]) == (0, 0, 0)
    assert created["added"] == notes["additions"] == created["new_lines"]
    patch = from_cli["patch"]
    for change in files.values():
        span = change["patch_span"]
        section = patch[span["start"] : span["end"]]
        assert section.startswith(f"diff --git a/{change['path']} b/{change['path']}\n")
        lines = patch.split("\n")[span["first_line"] : span["first_line"] + span["line_count"]]
        assert "\n".join(lines) + "\n" == section


async def test_an_apply_answers_the_same_keys_from_the_cli_and_from_mcp(repo: Path) -> None:
    task_id = work_task(repo)
    from_cli = cli_json(repo, "apply", task_id)
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        again = result_json(await client.call_tool("caesar_apply", {"task_id": task_id}))

    assert set(from_cli) == set(again) == APPLY_KEYS
    assert from_cli["applied"] is True and from_cli["conflicts"] == []
    assert (
        sorted(from_cli["written"]) == sorted(from_cli["files"]) == ["DEMO_NOTES.md", "README.md"]
    )
    assert len(from_cli["digest"]) == 64 and from_cli["links"] == []
    # The second apply (through MCP) finds it all there already and writes nothing.
    assert again["applied"] is True and again["written"] == []
    assert again["already_applied"] == from_cli["files"] == again["files"]
    assert again["digest"] == from_cli["digest"]


async def test_without_git_both_say_no_diff_the_same_way(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    out = run_json(project, "look", "--agent", "demo", "--context", context("quick"))
    task_id = str(out["task_id"])
    from_cli = cli_json(project, "diff", task_id)
    async with session("mcp", "serve", "--root", str(project), cwd=project) as client:
        from_mcp = result_json(await client.call_tool("caesar_diff", {"task_id": task_id}))

    assert from_cli == from_mcp
    expected: dict[str, Any] = {
        "base": None,
        "tree": None,
        "is_empty": True,
        "files": [],
        "patch": "",
    }
    assert from_cli == {"task_id": task_id, **expected}


async def test_hunks_apply_and_reject_through_mcp(repo: Path) -> None:
    task_id = work_task(repo)
    diff = cli_json(repo, "diff", task_id)
    by_path = {f["path"]: [h["id"] for h in f["hunks"]] for f in diff["files"]}
    (notes,) = by_path["DEMO_NOTES.md"]
    (readme,) = by_path["README.md"]
    worktree = Path(TaskStore(repo).get(task_id).worktree_path or "")
    async with session("mcp", "serve", "--root", str(repo), cwd=repo) as client:
        applied = result_json(
            await client.call_tool("caesar_apply", {"task_id": task_id, "hunks": [notes]})
        )
        stale = await client.call_tool(
            "caesar_apply", {"task_id": task_id, "hunks": ["h_000000000000"]}
        )
        bad = await client.call_tool("caesar_reject", {"task_id": task_id, "hunks": ["nope"]})
        rejected = result_json(
            await client.call_tool(
                "caesar_reject", {"task_id": task_id, "hunks": [readme], "reason": "not this"}
            )
        )
        after = result_json(await client.call_tool("caesar_diff", {"task_id": task_id}))

    assert set(applied) == APPLY_KEYS and applied["hunks"] == [notes]
    assert applied["written"] == ["DEMO_NOTES.md"] and (repo / "DEMO_NOTES.md").exists()
    assert "no such hunk" in error_text(stale) and readme in error_text(stale)
    assert "not a hunk selection" in error_text(bad)
    assert rejected == {
        "task_id": task_id,
        "rejected": True,
        "hunks": [readme],
        "files": ["README.md"],
        "reason": "not this",
    }
    assert [f["path"] for f in after["files"]] == ["DEMO_NOTES.md"]
    assert (worktree / "README.md").read_text() == (repo / "README.md").read_text()
