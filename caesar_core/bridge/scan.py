"""What the bridge looks for in text it must not keep: secrets and prompt-injection markers.

Secrets are looked for in the prompt at begin and in each tool input at pre-tool; injection
markers in the prompt only (tool inputs are the model's own words). A result is a list of
KINDS (``aws_access_key``, ``ignore_previous_instructions``), never the matched text, so a
verdict can be stored and shown without repeating the secret. :func:`redact` replaces every
secret with ``[REDACTED:<kind>]``; summaries are made from redacted text only.

Secret kinds (regular expressions, deliberately specific to keep false positives rare):

* ``private_key``: a PEM ``-----BEGIN ... PRIVATE KEY-----`` block (the whole block)
* ``aws_access_key``: ``AKIA``/``ASIA``/``AGPA``/``AIDA``/``AROA``/``ANPA``/``ANVA``/``AIPA`` + 16
* ``aws_secret_key``: ``aws_secret_access_key`` followed by a 40-character value
* ``google_api_key``: ``AIza`` + 35
* ``github_token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36, ``github_pat_...``
* ``gitlab_token``: ``glpat-`` + 20
* ``slack_token``: ``xoxa-``/``xoxb-``/``xoxp-``/``xoxr-``/``xoxs-`` + 10
* ``anthropic_key``: ``sk-ant-`` + 20
* ``openai_key``: ``sk-`` (optionally ``proj-``/``svcacct-``/``admin-``) + 20
* ``stripe_key``: ``sk_live_``/``rk_live_`` + 16
* ``url_password``: ``scheme://user:password@host`` (the credentials part)

Injection markers (case-insensitive):

* ``ignore_previous_instructions``: "ignore (all|any) (the) previous|prior|above|earlier
  instructions|prompts|rules"
* ``disregard_instructions``: "disregard (all|the|your) system prompt|previous
  instructions|instructions|rules"
* ``forget_instructions``: "forget (all|everything|your) (previous|prior) instructions"
* ``role_override``: "you are now a|an|DAN|jailbroken|unrestricted|in developer mode|no longer"
* ``hidden_system_tag``: ``<system>``, ``</system>``, ``<system_prompt>``, ``<|im_start|>system``
* ``prompt_exfiltration``: "reveal|print|show|repeat your|the system prompt"
"""

from __future__ import annotations

import re

SUMMARY_MAX = 200

SECRETS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*)",
            re.DOTALL,
        ),
    ),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    (
        "aws_secret_key",
        re.compile(r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"),
    ),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("stripe_key", re.compile(r"\b[rs]k_live_[A-Za-z0-9]{16,}")),
    ("url_password", re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)")),
)

INJECTION_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "ignore_previous_instructions",
        r"\bignore\s+(?:all\s+|any\s+)?(?:the\s+|of\s+the\s+)?(?:previous|prior|above|earlier)"
        r"\s+(?:instructions|prompts?|rules|directions)",
    ),
    (
        "disregard_instructions",
        r"\bdisregard\s+(?:all\s+|the\s+|your\s+|any\s+)*(?:system\s+prompt|previous\s+"
        r"instructions|prior\s+instructions|instructions|rules)",
    ),
    (
        "forget_instructions",
        r"\bforget\s+(?:all\s+|everything\s+|your\s+)*(?:previous\s+|prior\s+)?"
        r"(?:instructions|rules)",
    ),
    (
        "role_override",
        r"\byou\s+are\s+now\s+(?:a|an|DAN|jailbroken|unrestricted|in\s+developer\s+mode"
        r"|no\s+longer)\b",
    ),
    (
        "hidden_system_tag",
        r"<\s*/?\s*system(?:[_-]?prompt)?\s*>|<\|im_start\|>\s*system",
    ),
    (
        "prompt_exfiltration",
        r"\b(?:reveal|print|show|repeat)\s+(?:me\s+)?(?:your|the)\s+system\s+prompt",
    ),
)
"""Compiled on first use (begin only): pre-tool, the hot path, never needs them."""


def secret_kinds(text: str) -> tuple[str, ...]:
    """The kinds of secret in ``text``, in table order, each once."""
    return tuple(kind for kind, pattern in SECRETS if pattern.search(text))


def injection_kinds(text: str) -> tuple[str, ...]:
    """The prompt-injection markers in ``text``, in table order, each once."""
    return tuple(
        kind
        for kind, pattern in INJECTION_PATTERNS
        if re.search(pattern, text, re.IGNORECASE)  # re caches the compiled patterns
    )


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    for kind, pattern in SECRETS:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    return text


def clip(text: str, limit: int = SUMMARY_MAX) -> str:
    """At most ``limit`` characters, on one line, an ellipsis showing a cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_SUBJECT_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "absolute_path",
    "dir_path",
    "url",
    "query",
    "pattern",
    "files",
)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.MULTILINE)


def summary(tool_input: object) -> str:
    """A redacted, clipped description of a tool call: its command, path or URL.

    This is what ``[[bridge.rule]] match`` globs see and what approvals show. A patch envelope
    (codex ``apply_patch``) is summarised by the files it touches, not its content; an input
    without a known subject key gives its key names only, never values we cannot classify.
    """
    subject = _subject(tool_input)
    return clip(redact(subject))


def _subject(tool_input: object) -> str:
    if isinstance(tool_input, str):
        return _patch_files(tool_input) or tool_input
    if isinstance(tool_input, list):
        return " ".join(item for item in tool_input if isinstance(item, str))
    if not isinstance(tool_input, dict):
        return ""
    for key in _SUBJECT_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _patch_files(value) or value
        if isinstance(value, list) and value:  # argv arrays, lists of files
            return " ".join(item for item in value if isinstance(item, str))
    keys = sorted(str(key) for key in tool_input)
    return "{" + ", ".join(keys) + "}" if keys else ""


def _patch_files(text: str) -> str:
    if "*** Begin Patch" not in text:
        return ""
    files = [f"{verb} {name.strip()}" for verb, name in _PATCH_FILE.findall(text)]
    return "patch: " + ", ".join(files) if files else "patch"
