"""init, doctor, agents list, ps and logs through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

from caesar_core.config import GITIGNORE_LINES, load_config
from tests.runner.conftest import caesar, context, run_json, write_config


def test_init_writes_a_config_that_loads_and_completes_gitignore(repo: Path) -> None:
    result = caesar(repo, "init")
    assert result.returncode == 0, result.stderr
    assert (repo / ".caesar" / "config.toml").exists()
    assert (repo / ".caesar" / "roles" / "reviewer.md").exists()
    ignored = (repo / ".gitignore").read_text().splitlines()
    assert all(line in ignored for line in GITIGNORE_LINES)
    load_config(repo)  # the written file is valid
    again = caesar(repo, "init", "--json")
    assert json.loads(again.stdout)["written"] == []
    assert (repo / ".gitignore").read_text().count(".caesar/wt/") == 1


def test_agents_list_shows_builtins_and_declared_agents(repo: Path) -> None:
    write_config(repo, '[[agent]]\nid = "ghost"\nbin = "no-such-binary"\nargs = "{{prompt}}"\n')
    rows = {r["id"]: r for r in json.loads(caesar(repo, "agents", "list", "--json").stdout)}
    assert rows["demo"]["installed"] and rows["demo"]["version"].startswith("caesar")
    assert rows["ghost"]["installed"] is False
    assert rows["ghost"]["source"].endswith("config.toml")
    text = caesar(repo, "agents", "list").stdout
    assert "demo" in text and "missing" in text


def test_doctor_reports_each_check_with_a_remedy(repo: Path, tmp_path: Path) -> None:
    result = caesar(repo, "doctor")
    assert result.returncode == 0, result.stderr
    assert "ok  git" in result.stdout and "agent demo" in result.stdout
    outside = caesar(tmp_path, "doctor", "--json", "--root", str(tmp_path))
    checks = {c["check"]: c for c in json.loads(outside.stdout)}
    assert checks["git"]["ok"] is False and "git init" in checks["git"]["remedy"]


def test_ps_and_logs(repo: Path) -> None:
    empty = caesar(repo, "ps")
    assert "no tasks yet" in empty.stdout
    task_id = run_json(repo, "note", "--agent", "demo", "--context", context("work"))["task_id"]
    listing = caesar(repo, "ps")
    assert task_id in listing.stdout and "succeeded" in listing.stdout
    assert json.loads(caesar(repo, "ps", "--status", "failed", "--json").stdout) == []
    bad = caesar(repo, "ps", "--status", "exploded")
    assert bad.returncode == 2
    lines = caesar(repo, "logs", task_id).stdout.splitlines()
    assert "started" in lines[0] and "finished" in lines[-1]
    ndjson = [
        json.loads(line) for line in caesar(repo, "logs", task_id, "--json").stdout.splitlines()
    ]
    assert ndjson[0]["type"] == "started" and ndjson[-1]["type"] == "finished"
    raw = caesar(repo, "logs", task_id, "--raw").stdout
    assert "Noted the objective" in raw
    followed = caesar(repo, "logs", task_id, "--follow")
    assert followed.returncode == 0 and followed.stdout.splitlines()[-1] == lines[-1]
