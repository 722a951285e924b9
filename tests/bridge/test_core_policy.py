"""pre-tool: the policy matrix (built-ins, rules first match, the redacted summary, each
decision) and what is stored of a tool call."""

from __future__ import annotations

from pathlib import Path

import pytest

from caesar_core.bridge.policy import NETWORK_TOOLS, WRITE_TOOLS
from tests.bridge.core_support import Bridge, write_task

TOKEN = "ghp_" + "T" * 36


def rules(*entries: dict[str, str]) -> str:
    out = []
    for entry in entries:
        body = "".join(f'{key} = "{value}"\n' for key, value in entry.items())
        out.append(f"[[bridge.rule]]\n{body}")
    return "\n".join(out)


def opened(tmp_path: Path, config: str = "", **task: object) -> tuple[Bridge, str]:
    task_dir = write_task(tmp_path / "task", **task) if task else None
    bridge = Bridge(tmp_path, task_dir=task_dir)
    if config:
        bridge.config(config)
    return bridge, bridge.begin()["admission_id"]


@pytest.mark.parametrize("tool", sorted(WRITE_TOOLS))
def test_a_read_only_task_denies_every_writing_tool(tmp_path: Path, tool: str) -> None:
    bridge, adm = opened(tmp_path, mode="read-only")
    response = bridge.pre(adm, tool, {"file_path": "a.py"})
    assert response["decision"] == "deny"
    assert "read-only task" in response["reason"]


@pytest.mark.parametrize("tool", ["Read", "Grep", "Bash", "run_shell_command", "read_file"])
def test_a_read_only_task_lets_reading_tools_and_shells_through(tmp_path: Path, tool: str) -> None:
    """Shell commands are not guessed to write: a rule with ``match`` is how to deny them."""
    bridge, adm = opened(tmp_path, mode="read-only")
    assert bridge.pre(adm, tool, {"command": "rm -rf build"})["decision"] == "allow"


def test_a_write_task_allows_writing_tools(tmp_path: Path) -> None:
    bridge, adm = opened(tmp_path, mode="write")
    assert bridge.pre(adm, "Write", {"file_path": "a"})["decision"] == "allow"


@pytest.mark.parametrize("tool", sorted(NETWORK_TOOLS))
def test_network_false_denies_every_network_tool(tmp_path: Path, tool: str) -> None:
    bridge, adm = opened(tmp_path, network=False)
    response = bridge.pre(adm, tool, {"url": "https://example.com"})
    assert response["decision"] == "deny"
    assert "network is off" in response["reason"]


def test_network_true_allows_network_tools(tmp_path: Path) -> None:
    bridge, adm = opened(tmp_path, network=True)
    assert bridge.pre(adm, "WebFetch", {"url": "https://x"})["decision"] == "allow"


def test_built_ins_come_before_rules(tmp_path: Path) -> None:
    bridge, adm = opened(
        tmp_path, rules({"tool": "*", "decision": "allow"}), mode="read-only", network=False
    )
    assert bridge.pre(adm, "Edit", {"file_path": "a"})["decision"] == "deny"
    assert bridge.pre(adm, "WebSearch", {"query": "x"})["decision"] == "deny"
    assert bridge.pre(adm, "Read", {"file_path": "a"})["decision"] == "allow"


def test_rules_first_match_wins_and_default_is_allow(tmp_path: Path) -> None:
    bridge, adm = opened(
        tmp_path,
        rules(
            {"tool": "Bash", "match": "git push*", "decision": "deny", "reason": "no pushing"},
            {"tool": "Bash", "decision": "allow"},
            {"tool": "Bash", "decision": "deny", "reason": "never reached"},
            {"tool": "mcp__*", "decision": "block"},
        ),
    )
    pushed = bridge.pre(adm, "Bash", {"command": "git push origin main"})
    assert (pushed["decision"], pushed["reason"]) == ("deny", "no pushing")
    assert bridge.pre(adm, "Bash", {"command": "git status"})["decision"] == "allow"
    assert bridge.pre(adm, "mcp__memory__create", {"x": 1})["decision"] == "block"
    assert bridge.pre(adm, "Glob", {"pattern": "*.py"})["decision"] == "allow"
    # globs are case-sensitive on the client's own tool name
    assert bridge.pre(adm, "bash", {"command": "git push"})["decision"] == "allow"


def test_match_sees_the_redacted_summary_never_the_secret(tmp_path: Path) -> None:
    bridge, adm = opened(
        tmp_path,
        rules(
            {"tool": "Bash", "match": f"*{TOKEN}*", "decision": "allow"},
            {"tool": "Bash", "match": "*[[]REDACTED:github_token]*", "decision": "deny"},
        ),
    )
    response = bridge.pre(adm, "Bash", {"command": f"curl -H 'token {TOKEN}' api"})
    assert response["decision"] == "deny"
    line = bridge.trace_lines(bridge.admission(adm)["trace_id"])[-1]
    assert line["summary"] == "curl -H 'token [REDACTED:github_token]' api"
    assert line["secrets"] == ["github_token"]
    assert len(line["input_hash"]) == 64


def test_a_rule_holding_a_secret_is_ignored_with_a_warning_and_kept_redacted(
    tmp_path: Path,
) -> None:
    """The admission stores its rules redacted; a glob holding a secret would change meaning
    (``*[REDACTED:...]*`` is a character class), and no redacted summary shows a secret."""
    bridge, _ = opened(
        tmp_path,
        rules(
            {"tool": f"mcp__{TOKEN}", "decision": "allow"},
            {"tool": "*", "match": f"*{TOKEN}*", "decision": "allow"},
            {"tool": "*", "decision": "deny", "reason": f"never {TOKEN}"},
        ),
    )
    begun = bridge.begin()
    assert [w.split(":")[0] for w in begun["warnings"]] == [
        "[[bridge.rule]] #1 ignored",
        "[[bridge.rule]] #2 ignored",
    ]
    assert all("github_token" in w and TOKEN not in w for w in begun["warnings"])
    adm = begun["admission_id"]
    refused = bridge.pre(adm, f"mcp__{TOKEN}", {"command": f"x {TOKEN}"})
    assert refused["decision"] == "deny"
    stored = (bridge.state / "bridge" / "admissions" / f"{adm}.json").read_text()
    assert TOKEN not in stored and "[REDACTED:github_token]" in stored


@pytest.mark.parametrize(
    ("tool_input", "summary"),
    [
        ({"command": "ls -la"}, "ls -la"),
        ({"file_path": "/src/a.py", "content": "SECRET BODY"}, "/src/a.py"),
        ({"filePath": "src/main.ts"}, "src/main.ts"),
        ({"url": "https://u:pw@example.com/x"}, "https://[REDACTED:url_password]@example.com/x"),
        ({"files": ["a.ts", "b.ts"]}, "a.ts b.ts"),
        ({"command": ["bash", "-lc", "make test"]}, "bash -lc make test"),
        ({"content": "opaque", "mode": 1}, "{content, mode}"),
        (
            {"command": "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch"},
            "patch: Update a.py",
        ),
        ("x" * 500, "x" * 199 + "…"),
        (None, ""),
    ],
)
def test_the_summary_is_a_redacted_command_path_or_url(
    tmp_path: Path, tool_input: object, summary: str
) -> None:
    bridge, adm = opened(tmp_path)
    bridge.pre(adm, "Tool", tool_input)
    assert bridge.trace_lines(bridge.admission(adm)["trace_id"])[-1]["summary"] == summary


def test_halt_marks_the_admission_and_later_calls_are_denied(tmp_path: Path) -> None:
    bridge, adm = opened(
        tmp_path, rules({"tool": "Bash", "match": "rm -rf /*", "decision": "halt"})
    )
    assert bridge.pre(adm, "Bash", {"command": "rm -rf /"})["decision"] == "halt"
    later = bridge.pre(adm, "Read", {"file_path": "a"})
    assert (later["decision"], later["reason"]) == ("deny", "halted")


def test_quarantine_by_rule_marks_the_admission(tmp_path: Path) -> None:
    bridge, adm = opened(
        tmp_path, rules({"tool": "WebFetch", "decision": "quarantine", "reason": "untrusted web"})
    )
    assert bridge.pre(adm, "WebFetch", {"url": "https://x"})["decision"] == "quarantine"
    later = bridge.pre(adm, "Read", {"file_path": "a"})
    assert (later["decision"], later["reason"]) == ("deny", "quarantined: untrusted web")
    assert bridge.finalize(adm)["decision"] == "non_certified"


@pytest.mark.parametrize("decision", ["allow", "deny", "block"])
def test_plain_decisions_are_answered_as_written(tmp_path: Path, decision: str) -> None:
    bridge, adm = opened(tmp_path, rules({"tool": "Bash", "decision": decision}))
    response = bridge.pre(adm, "Bash", {"command": "x"})
    assert response["decision"] == decision
    assert bridge.pre(adm, "Read", {})["decision"] == "allow"  # not sticky


def test_require_approval_without_a_task_denies_saying_no_one_can_approve(
    tmp_path: Path,
) -> None:
    bridge, adm = opened(tmp_path, rules({"tool": "Bash", "decision": "require_approval"}))
    response = bridge.pre(adm, "Bash", {"command": "x"})
    assert response["decision"] == "deny"
    assert "no one can approve" in response["reason"]


def test_unknown_and_closed_admissions_are_errors(tmp_path: Path) -> None:
    bridge, adm = opened(tmp_path)
    unknown = bridge.pre("adm_" + "f" * 32, "Bash")
    assert unknown["decision"] == "error"
    assert "unknown admission" in unknown["reason"]
    bridge.finalize(adm)
    closed = bridge.pre(adm, "Bash")
    assert closed["decision"] == "error"
    assert "closed (finalize)" in closed["reason"]
