"""Applying what an agent left (case 17 of issue 11): a second apply, an empty ``--path``, and
symbolic links that point outside the repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hostile.conftest import BOUND_S, caesar, git, hostile_agent, run_json

WRITES_A_FILE = """
echo "the agent's line" > a.txt
echo "another" > b.txt
"""


REPORT = """
printf '{"protocol":"caesar.report/v1","status":"success","summary":"done"}' > "$CAESAR_REPORT_PATH"
"""


def task_of(repo: Path, name: str, body: str) -> str:
    hostile_agent(repo, name, body + REPORT)
    out = run_json(repo, "x", "--agent", name, "--isolation", "worktree")
    assert out["_exit"] == 0, out["_stderr"]
    return str(out["task_id"])


def test_a_second_apply_says_already_applied(repo: Path) -> None:
    task_id = task_of(repo, "writer", WRITES_A_FILE)
    first = caesar(repo, "apply", task_id, timeout=BOUND_S)
    second = caesar(repo, "apply", task_id, timeout=BOUND_S)
    again = caesar(repo, "apply", task_id, "--json", timeout=BOUND_S)

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert "already applied" in second.stdout and "local changes" not in second.stderr
    assert "  a.txt" in second.stdout and "  b.txt" in second.stdout
    verdict = json.loads(again.stdout)
    assert verdict["applied"] is True and verdict["already_applied"] == ["a.txt", "b.txt"]
    assert (repo / "a.txt").read_text() == "the agent's line\n"


def test_a_file_changed_since_is_still_refused_after_an_apply(repo: Path) -> None:
    task_id = task_of(repo, "writer", WRITES_A_FILE)
    assert caesar(repo, "apply", task_id, timeout=BOUND_S).returncode == 0
    (repo / "a.txt").write_text("the user's own edit\n")

    refused = caesar(repo, "apply", task_id, timeout=BOUND_S)

    assert refused.returncode == 1 and "local changes" in refused.stderr
    assert "a.txt" in refused.stderr and "b.txt" not in refused.stderr.split("remedy")[0]
    assert (repo / "a.txt").read_text() == "the user's own edit\n"


def test_an_empty_path_is_refused_not_read_as_everything(repo: Path) -> None:
    task_id = task_of(repo, "writer", WRITES_A_FILE)

    for paths in (("--path", ""), ("--path", "a.txt", "--path", "  ")):
        refused = caesar(repo, "apply", task_id, *paths, timeout=BOUND_S)
        assert refused.returncode == 2, refused.stderr
        assert "empty path" in refused.stderr and "remedy" in refused.stderr
    assert not (repo / "a.txt").exists() and not (repo / "b.txt").exists()


LINKS_OUT = """
ln -s "$HOME/.ssh" keys
ln -s ../../outside escape
ln -s app.py inside
"""


def test_links_pointing_outside_are_listed_and_refused_unless_allowed(repo: Path) -> None:
    task_id = task_of(repo, "linker", LINKS_OUT)
    home_ssh = os.path.expanduser("~/.ssh")

    stat = caesar(repo, "diff", task_id, "--stat", timeout=BOUND_S)
    patch = caesar(repo, "diff", task_id, timeout=BOUND_S)
    listed = json.loads(caesar(repo, "diff", task_id, "--json", timeout=BOUND_S).stdout)
    refused = caesar(repo, "apply", task_id, timeout=BOUND_S)

    assert f"keys  +1 -0  symlink -> {home_ssh} (points outside the repository)" in stat.stdout
    assert "escape  +1 -0  symlink -> ../../outside (points outside" in stat.stdout
    assert "inside  +1 -0  symlink -> app.py\n" in stat.stdout
    assert f"keys is a symlink -> {home_ssh} (points outside" in patch.stderr
    links = {f["path"]: (f["link_target"], f["link_outside"]) for f in listed["files"]}
    assert links == {
        "keys": (home_ssh, True),
        "escape": ("../../outside", True),
        "inside": ("app.py", False),
    }
    assert refused.returncode == 1
    assert "symbolic link(s) pointing outside the repository" in refused.stderr
    assert f"keys -> {home_ssh}" in refused.stderr and "--allow-outside-links" in refused.stderr
    assert not any(os.path.lexists(repo / name) for name in ("keys", "escape", "inside"))

    subset = caesar(repo, "apply", task_id, "--path", "inside", timeout=BOUND_S)
    assert subset.returncode == 0, subset.stderr
    assert os.readlink(repo / "inside") == "app.py"
    allowed = caesar(repo, "apply", task_id, "--allow-outside-links", "--json", timeout=BOUND_S)
    assert allowed.returncode == 0, allowed.stderr
    shown = {link["path"]: link["outside"] for link in json.loads(allowed.stdout)["links"]}
    assert shown == {"keys": True, "escape": True, "inside": False}
    assert os.readlink(repo / "keys") == home_ssh
    assert git(repo, "status", "--porcelain").count("??") == 3
