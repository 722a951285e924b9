"""The models on their own: bridge rule matching, safety nets for configs built in code."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from caesar_core.config import AgentConfig, Bridge, BridgeRule, Config, Policy, Role, Worktree
from caesar_core.protocol.task import Mode


def rule(tool: str, match: str | None = None, decision: str = "deny") -> BridgeRule:
    return BridgeRule.model_validate({"tool": tool, "match": match, "decision": decision})


def test_bridge_rules_match_tool_and_input_globs() -> None:
    push = rule("Bash", "git push*", "require_approval")
    assert push.matches("Bash", "git push origin main")
    assert not push.matches("Bash", "git status")
    assert not push.matches("Bash")  # a rule with `match` needs an input to apply
    assert not push.matches("bash", "git push")  # case matters: tool names are exact
    assert rule("mcp__*").matches("mcp__github__create_issue", None)


def test_the_first_matching_rule_wins() -> None:
    bridge = Bridge.model_validate(
        {
            "rule": [
                {"tool": "Bash", "match": "rm *", "decision": "block"},
                {"tool": "*", "decision": "allow"},
            ]
        }
    )
    first = bridge.first_match("Bash", "rm -rf /")
    assert first is not None and first.decision == "block"
    other = bridge.first_match("Edit", "src/x.py")
    assert other is not None and other.decision == "allow"
    assert Bridge().first_match("Bash", "ls") is None


def test_the_python_names_are_not_the_toml_keys() -> None:
    """``[[agent]]`` is read as ``agents``; the Python name is not a TOML key."""
    with pytest.raises(ValidationError, match="Extra inputs"):
        Config.model_validate({"agents": []})
    with pytest.raises(ValidationError, match="Extra inputs"):
        Bridge.model_validate({"rules": []})


def test_duplicate_entries_are_refused_even_when_built_in_code() -> None:
    agent = {"id": "x", "bin": "b"}
    with pytest.raises(ValidationError, match="two \\[\\[agent\\]\\] entries are named 'x'"):
        Config.model_validate({"agent": [agent, agent]})


def test_sections_are_immutable() -> None:
    policy = Policy()
    with pytest.raises(ValidationError):
        policy.max_parallel = 9
    worktree = Worktree(copy=[".env"])
    with pytest.raises(AttributeError):
        worktree.copy = []  # type: ignore[misc]
    assert worktree.copy == [".env"]


def test_strict_types_refuse_what_lax_ones_would_coerce() -> None:
    for bad in ({"max_parallel": "4"}, {"max_parallel": True}, {"allow_inplace_write": 1}):
        with pytest.raises(ValidationError):
            Policy.model_validate(bad)


def test_role_defaults_and_model_for() -> None:
    role = Role.model_validate({"name": "docs", "agents": ["claude"], "mode": "read-only"})
    assert role.mode is Mode.READ_ONLY
    assert (role.isolation, role.network, role.timeout_ms) == ("auto", "auto", 600_000)
    assert (role.purpose, role.system_prompt_file, role.model) == ("", None, None)
    config = Config.model_validate({"models": {"claude": "opus"}})
    assert config.model_for("claude", role) == "opus"
    assert config.model_for("codex", role) is None
    with pytest.raises(ValidationError, match=r"relative to \.caesar"):
        Role.model_validate({**role.model_dump(), "system_prompt_file": "/etc/prompt.md"})


def test_agent_defaults() -> None:
    agent = AgentConfig.model_validate({"id": "x", "bin": "x"})
    assert (agent.cwd_mode, agent.native_read_only, agent.display_name) == ("process", False, None)
    assert (agent.read_only_args, agent.network_args, agent.env) == (None, None, {})
