"""Bad input: a one-line reason, a remedy, exit 2, and nothing created on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runner.conftest import caesar, git, write_config


def nothing_created(root: Path) -> bool:
    tasks = root / ".caesar" / "tasks"
    return not tasks.exists() or not any(tasks.iterdir())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--agent", "nobody"], "unknown agent 'nobody' (known: demo"),
        (["--role", "poet"], "unknown role 'poet' (known: reviewer"),
        ([], "pass --agent ID or --role NAME"),
        (["--agent", "demo", "--timeout", "soon"], "--timeout"),
        (["--agent", "demo", "--isolation", "inplace"], "allow_inplace_write"),
    ],
)
def test_refused_requests_create_nothing(repo: Path, args: list[str], says: str) -> None:
    result = caesar(repo, "run", "do it", *args)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr
    assert nothing_created(repo)


def test_inplace_refusal_names_where_the_value_came_from(repo: Path) -> None:
    write_config(repo, '[policy]\ndefault_isolation = "inplace"\n')
    result = caesar(repo, "run", "do it", "--agent", "demo")
    assert result.returncode == 2
    assert "policy.default_isolation" in result.stderr and "config.toml" in result.stderr
    assert "remedy:" in result.stderr


def test_missing_agent_binary(repo: Path) -> None:
    write_config(repo, '[[agent]]\nid = "ghost"\nbin = "ghost-agent-cli"\nargs = "{{prompt}}"\n')
    result = caesar(repo, "run", "do it", "--agent", "ghost")
    assert result.returncode == 2 and "ghost-agent-cli" in result.stderr
    assert nothing_created(repo)


def test_malformed_config_points_at_the_line(repo: Path) -> None:
    write_config(repo, "[policy]\nmax_paralel = 2\n")
    result = caesar(repo, "run", "do it", "--agent", "demo")
    assert result.returncode == 2
    assert "config.toml:2:1: policy.max_paralel" in result.stderr
    assert nothing_created(repo)


def test_worktree_isolation_outside_git(tmp_path: Path) -> None:
    result = caesar(
        tmp_path,
        "run",
        "do it",
        "--agent",
        "demo",
        "--isolation",
        "worktree",
        "--root",
        str(tmp_path),
    )
    assert result.returncode == 2 and "git init" in result.stderr
    assert nothing_created(tmp_path)


def test_worktree_isolation_without_a_commit(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    result = caesar(
        tmp_path,
        "run",
        "do it",
        "--agent",
        "demo",
        "--isolation",
        "worktree",
        "--root",
        str(tmp_path),
    )
    assert result.returncode == 2 and "first commit" in result.stderr


def test_extra_arguments_need_the_double_dash(repo: Path) -> None:
    result = caesar(repo, "run", "do it", "stray", "--agent", "demo")
    assert result.returncode == 2 and "after `--`" in result.stderr


@pytest.mark.parametrize("command", ["logs", "cancel", "diff", "discard"])
@pytest.mark.parametrize("task_id", ["t_" + "0" * 32, "../../etc", "t_../x"])
def test_unknown_or_malformed_task_ids(repo: Path, command: str, task_id: str) -> None:
    result = caesar(repo, command, task_id)
    assert result.returncode == 2, result.stderr
    assert "remedy:" in result.stderr
    assert nothing_created(repo)
