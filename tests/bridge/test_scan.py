"""The scanner finds secrets glued inside words, passes ordinary identifiers untouched, stays
linear on hostile text, and :func:`scan.dumps` redacts every string of a document it writes."""

from __future__ import annotations

import json
import random
import time

import pytest

from caesar_core.bridge import policy, scan

# Shaped like real keys (mixed case and digits where the real ones have them).
KEYS = {
    "aws_access_key": "AKIAQ7ZK4MPL2WXN5RT3",
    "github_token": "ghp_R8dK2mQ9xL4vN7pT1wZ5bC3fH6jY0sA2eU8i",
    "gitlab_token": "glpat-Xq7Lm2Nv9Rk4Tp1Wz6Bc",
    "slack_token": "xoxb-2841-93517-Qw8Er7Ty",
    "anthropic_key": "sk-ant-api03-Zx9Cv8Bn7Mq6Wl5Ek4Rj3Th2",
    "openai_key": "sk-proj-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8",
    "stripe_key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "google_api_key": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
}

GLUES = [
    ("FOO_", ""),
    ("", "x"),
    ("TOKEN_", ""),
    ("é", ""),
    ("é", "é"),
    ("abc", "_suffix"),
    ("123", "Z9"),
    ("export MY_KEY=", ";"),
]


@pytest.mark.parametrize(("before", "after"), GLUES, ids=[f"{b}|{a}" for b, a in GLUES])
@pytest.mark.parametrize(("kind", "key"), KEYS.items(), ids=list(KEYS))
def test_a_key_glued_to_word_characters_is_found_and_redacted(
    kind: str, key: str, before: str, after: str
) -> None:
    text = f"run {before}{key}{after} now"
    assert kind in scan.secret_kinds(text)
    redacted = scan.redact(text)
    assert key not in redacted
    assert f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "FOO_AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLEx",
        "TOKEN_ghp_" + "a1B2" * 9,
        "éAKIAIOSFODNN7EXAMPLE",
    ],
)
def test_the_issues_examples(text: str) -> None:
    assert scan.secret_kinds(text)
    assert "IOSFODNN7EXAMPLE" not in scan.redact(text)
    assert "a1B2" * 9 not in scan.redact(text)


ORDINARY = [
    *sorted(policy.WRITE_TOOLS | policy.NETWORK_TOOLS),
    "Bash",
    "Read",
    "Glob",
    "Grep",
    "Task",
    "TodoWrite",
    "run_shell_command",
    "shell",
    "mcp__github__create_pull_request",
    "mcp__filesystem__read_multiple_files",
    "mcp__aws-knowledge__search_documentation",
    "/home/dev/src/task-management-system-2024/disk-usage-report-20240115.py",
    "~/projects/flask-sqlalchemy-migrations-20240115/README.md",
    "C:\\Users\\dev\\AppData\\Local\\risk-assessment-dashboard-v2\\cache",
    "/var/lib/caesar/tasks/task-20250101-abcdef0123456789/report.json",
    "feature/ASIA-region-support",
    "task-1234-fix-the-login-flow-for-sso-users-2025",
    "desk_live_reload_handler_configuration_v2",
    "my_github_pat_environment_variable_name",
    "550e8400-e29b-41d4-a716-446655440000",
    "f47ac10b-58cc-4372-a567-0e02b2c3d479",
    "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
    "toolu_01A09q90qw90lq917835lq9",
    "toolu_01D7FLrfh4GYq7yT1ULFeyMV",
    "call_Jx8n2QkR5vT1mW9pL3aZ",
    "claude-sonnet-4-5-20250929",
    "gpt-5-codex",
    "gemini-2.5-pro",
    "2.0.14 (Claude Code)",
    "caesar-hook-claude-code/0.1.0",
    "adm_0123456789abcdef0123456789abcdef",
    "USD",
    "@aws-sdk/client-s3",
    "https://github.com/anthropics/claude-code/issues/1234",
    "git@github.com:org/repo.git",
    "Use the key id from the AKIA docs page",
    "a task-oriented ask-me-anything risk-free desk-bound whisk-based kiosk-mode flask-app",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_identifiers_pass_unredacted(text: str) -> None:
    assert scan.secret_kinds(text) == ()
    assert scan.redact(text) == text
    assert scan.dumps({"tool": text, text: [text]}) == json.dumps({"tool": text, text: [text]})


@pytest.mark.parametrize(
    "hostile",
    [
        "sk-" * 300_000,
        "task-" * 200_000,
        "x_sk-" + "a" * 900_000,
        "AKIA" * 250_000,
        "ghp_" * 250_000,
        "-----BEGIN RSA PRIVATE KEY-----" * 30_000,
        "://a:" * 200_000,
    ],
    ids=["sk", "task", "long-glued", "akia", "ghp", "pem", "url"],
)
def test_scanning_hostile_text_stays_linear(hostile: str) -> None:
    start = time.monotonic()
    scan.secret_kinds(hostile)
    scan.redact(hostile)
    elapsed = time.monotonic() - start
    # Linear work on ~1 MB is well under a second; quadratic backtracking would take minutes.
    assert elapsed < 20, elapsed


def test_dumps_redacts_every_string_and_key_of_a_document() -> None:
    key = KEYS["github_token"]
    document = {
        "tool": f"mcp__{key}",
        "nested": [{"deep": [f"é{KEYS['aws_access_key']}x"]}],
        f"key_{key}": 1,
        "quoted": f'aws_secret_access_key: "{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"',
        "number": 3,
        "none": None,
    }
    for options in ({}, {"ensure_ascii": False}, {"indent": 1, "sort_keys": True}):
        text = scan.dumps(document, **options)
        assert key not in text
        assert KEYS["aws_access_key"] not in text
        assert "wJalrXUtnFEMI" not in text
        back = json.loads(text)
        assert back["number"] == 3 and back["none"] is None
        assert back["tool"] == "mcp__[REDACTED:github_token]"


def test_dumps_leaves_a_clean_document_byte_identical() -> None:
    document = {"op": "pre-tool", "tool": "Bash", "summary": "git status", "n": [1, 2.5, None]}
    assert scan.dumps(document, sort_keys=True) == json.dumps(document, sort_keys=True)


def test_dumps_replaces_lone_surrogates() -> None:
    text = scan.dumps({"tool": "a\ud800b", "\udfff": "x"}, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate left to fail encoding
    assert json.loads(text) == {"tool": "a\ufffdb", "\ufffd": "x"}


def test_the_prefilter_never_passes_text_the_combined_pattern_matches() -> None:
    """:func:`scan._suspect` is what spares clean text the regular expressions: it must say
    "maybe" wherever the combined pattern matches (here over random mixes of the prefixes,
    key characters, separators and case tricks), and the pattern must find every kind."""
    fragments = [
        *(prefix for prefix, _ in scan.TRIGGERS),
        "_SECRET_ACCESS_KEY", "_Secret_Access_Key", "_ſecret_access_\u212aey", "https://",
        "u:p", "@", "/", " ", ":", "-", "_", "é", "A", "Z9", "q", "0" * 8, "Ab1" * 6, "X" * 16,
        "PRIVATE KEY-----", "RSA ", "\n",
    ]  # fmt: skip
    pattern = scan._combined()
    rng = random.Random(17)
    matched = 0
    for _ in range(20_000):
        text = "".join(rng.choice(fragments) for _ in range(rng.randint(1, 12)))
        if pattern.search(text):
            matched += 1
            assert scan._suspect(text), text
    assert matched > 1_000  # the mixes do reach the pattern
    for key in [*KEYS.values(), "aws_SECRET_access_KEY = x", "https://user:pw@host"]:
        assert scan._suspect(key) and pattern.search(key), key


@pytest.mark.parametrize(
    "text",
    ["git status", '{"command": "npm test"}', "fetch https://example.com/a?b=c", "task_1234"],
)
def test_ordinary_text_is_settled_by_the_prefilter_alone(text: str) -> None:
    assert not scan._suspect(text)
    assert scan.secret_kinds(text) == () and scan.redact(text) is text
