"""Configuration and documents that used to crash or be misread (cases 9 and 17 of issue 11).

Config problems exit 2 in the ``file:line:col: problem`` shape; ``protocol validate`` lists a
document nested too deeply as a problem of its line (exit 1, invalid), never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.conftest import BOUND_S, caesar
from tests.runner.conftest import write_config

CONFIG = ".caesar/config.toml"


def refused(repo: Path) -> str:
    """``caesar agents list`` refusing the project's configuration: its stderr."""
    result = caesar(repo, "agents", "list", timeout=BOUND_S)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert "remedy:" in result.stderr
    return result.stderr


def test_arrays_nested_500_deep_are_refused_where_they_start(repo: Path) -> None:
    write_config(repo, "[policy]\nallowed = " + "[" * 500 + "]" * 500 + "\n")
    assert f"{CONFIG}:2:75: arrays and inline tables nest deeper than 64 levels" in refused(repo)


def test_keys_nested_deeper_than_the_limit_are_refused(repo: Path) -> None:
    write_config(repo, "[policy]\n" + ".".join(["a"] * 200) + " = 1\n")
    assert "nests deeper than 64 levels" in refused(repo)


def test_brackets_in_strings_and_comments_do_not_count(repo: Path) -> None:
    write_config(repo, '[policy]\ndenied = ["' + "[" * 100 + '"] # ' + "{" * 100 + "\n")
    listed = caesar(repo, "agents", "list", timeout=BOUND_S)
    assert listed.returncode == 2 and "is not a valid name" in listed.stderr  # read, then judged


def test_a_byte_order_mark_is_accepted(repo: Path) -> None:
    (repo / ".caesar").mkdir()
    (repo / CONFIG).write_bytes(b"\xef\xbb\xbf[policy]\nmax_parallel = 2\n")
    listed = caesar(repo, "agents", "list", timeout=BOUND_S)
    assert listed.returncode == 0, listed.stderr
    (repo / CONFIG).write_bytes(b"\xef\xbb\xbf[policy]\nmax_paralel = 2\n")
    assert f"{CONFIG}:2:1: policy.max_paralel: unknown key" in refused(repo)


def test_a_dangling_config_link_is_refused_naming_the_link(repo: Path, tmp_path: Path) -> None:
    (repo / ".caesar").mkdir()
    (repo / CONFIG).symlink_to(tmp_path / "gone.toml")
    problem = refused(repo)
    assert f"{CONFIG}:1:1: is a symbolic link to {tmp_path / 'gone.toml'}" in problem
    assert "which does not exist" in problem


def test_durations_are_bounded(repo: Path) -> None:
    write_config(repo, '[policy]\ndefault_timeout = "99999999999999999h"\n')
    problem = refused(repo)
    assert f"{CONFIG}:2:1: policy.default_timeout:" in problem
    assert "longer than 168h" in problem
    flag = caesar(repo, "run", "x", "--agent", "demo", "--timeout", "9999h", timeout=BOUND_S)
    assert flag.returncode == 2 and "longer than 168h" in flag.stderr


EVENT = {
    "protocol": "caesar.event/v1",
    "seq": 0,
    "at": "2026-01-01T00:00:00Z",
    "task_id": "t_" + "0" * 32,
    "type": "progress",
    "message": "fine",
}


def test_validate_lists_a_deeply_nested_line_as_a_problem(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    deep = "[" * 5000 + "]" * 5000
    events.write_text(f"{json.dumps(EVENT)}\n{deep}\n" + '{"a":' * 3000 + "1" + "}" * 3000 + "\n")
    first_deep = tmp_path / "deep.jsonl"
    first_deep.write_text(f"{deep}\n{json.dumps(EVENT)}\n")
    report = tmp_path / "report.json"
    report.write_text('{"protocol": "caesar.report/v1", "x": ' + deep + "}")

    shown = caesar(tmp_path, "protocol", "validate", str(events), timeout=BOUND_S)
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    assert "line 2: refused: JSON nested 5000 levels deep; at most 64 are read" in shown.stderr
    assert "line 3: refused: JSON nested 3000 levels deep" in shown.stderr
    for path, line, depth in ((first_deep, 1, 5000), (report, None, 5001)):
        result = caesar(tmp_path, "protocol", "validate", str(path), "--json", timeout=BOUND_S)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        [problem] = json.loads(result.stdout)["problems"]
        assert problem["line"] == line
        assert f"JSON nested {depth} levels deep" in problem["message"]


def test_a_client_file_nested_too_deeply_is_refused_untouched(repo: Path) -> None:
    """An in-place agent can write the project's ``.mcp.json``; ``mcp install`` reads it."""
    deep = '{"mcpServers": ' + "[" * 5000 + "]" * 5000 + "}"
    (repo / ".mcp.json").write_text(deep)

    result = caesar(repo, "mcp", "install", "claude", timeout=BOUND_S)

    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "nested 5001 levels deep" in result.stderr
    assert (repo / ".mcp.json").read_text() == deep
