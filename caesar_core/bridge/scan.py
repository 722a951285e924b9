"""What the bridge looks for in text it must not keep: secrets and prompt-injection markers.

Secrets are looked for in the prompt at begin and in each tool input at pre-tool; injection
markers in the prompt only (tool inputs are the model's own words). A result is a list of
KINDS (``aws_access_key``, ``ignore_previous_instructions``), never the matched text, so a
verdict can be stored and shown without repeating the secret. :func:`redact` replaces every
secret with ``[REDACTED:<kind>]``; summaries are made from redacted text only. :func:`dumps`
is how the bridge serializes anything it writes (state, trace, spool, approvals, task events,
answers): every string of the document, keys included, goes through :func:`redact`.

Secret kinds (regular expressions, deliberately specific to keep false positives rare). A key
is found inside a word too (``FOO_AKIA…``, ``AKIA…x``, ``TOKEN_ghp_…``, ``éAKIA…``): no pattern
needs a word boundary, except that an ``sk``-prefixed key glued to a preceding word character
(``task-…``, ``desk_live_…``) counts only when it is shaped like a key, with an uppercase
letter, a lowercase letter and a digit, so kebab-case names pass.

* ``private_key``: a PEM ``-----BEGIN ... PRIVATE KEY-----`` block (the whole block)
* ``aws_access_key``: ``AKIA``/``ASIA``/``AGPA``/``AIDA``/``AROA``/``ANPA``/``ANVA``/``AIPA`` + 16
* ``aws_secret_key``: ``aws_secret_access_key`` followed by a 40-character value
* ``google_api_key``: ``AIza`` + 35
* ``github_token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36, ``github_pat_`` + 22...
* ``gitlab_token``: ``glpat-`` + 20
* ``slack_token``: ``xoxa-``/``xoxb-``/``xoxp-``/``xoxr-``/``xoxs-`` + 10
* ``anthropic_key``: ``sk-ant-`` + 20
* ``openai_key``: ``sk-`` (optionally ``proj-``/``svcacct-``/``admin-``) + 20
* ``stripe_key``: ``sk_live_``/``rk_live_`` + 16
* ``url_password``: ``scheme://user:password@host`` (the credentials part)

Every scan is linear in the length of the text (no pattern can backtrack quadratically), and
text holding none of the keys' prefixes (:data:`TRIGGERS`) costs a few substring searches,
without importing ``re`` (with ``enum``, more instructions than the interpreter's own start):
only text holding a prefix meets the regular expressions, first their combined pattern.

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

from caesar_core.bridge import cjson
from caesar_core.bridge.inputs import text as well_formed_text
from caesar_core.humanize import one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from re import Match, Pattern
    from typing import Any

SUMMARY_MAX = 200

_SK = r"[A-Za-z0-9_\-]{20,}"
SECRETS: tuple[tuple[str, str], ...] = (
    (
        "private_key",
        r"(?s)-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
        r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*)",
    ),
    ("aws_access_key", r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}"),
    ("aws_secret_key", r"(?i)aws_secret_access_key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"),
    ("google_api_key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("github_token", r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9]{22}[A-Za-z0-9_]*"),
    ("gitlab_token", r"glpat-[A-Za-z0-9_\-]{20,}"),
    ("slack_token", r"xox[abprs]-[A-Za-z0-9\-]{10,}"),
    ("anthropic_key", r"\bsk-ant-" + _SK),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?" + _SK),
    ("stripe_key", r"\b[rs]k_live_[A-Za-z0-9]{16,}"),
    ("url_password", r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
)
"""Each kind's pattern; the ``sk`` families here only at a word boundary (see GLUED). Compiled
on first use (``re`` caches them): text without any key prefix, the common case on the hot
path, is settled by :func:`_suspect` and never needs them."""

GLUED: tuple[tuple[str, str], ...] = (
    ("anthropic_key", r"sk-ant-" + _SK),
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-)?" + _SK),
    ("stripe_key", r"[rs]k_live_[A-Za-z0-9]{16,}"),
)
"""The ``sk`` families anywhere, each match counted only when :func:`_shaped` like a key.
A match takes the whole run of key characters, so a run that fails the shape test is left in
one step: the scan stays linear, and a shorter key inside that run would fail the test too."""

_KINDS = tuple(kind for kind, _ in SECRETS)

_AWS = ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")
TRIGGERS: tuple[tuple[str, str], ...] = (
    *((prefix, "[A-Z0-9]{16}") for prefix in _AWS),
    ("AIza", r"[0-9A-Za-z_\-]{35}"),
    *((f"gh{letter}_", "[A-Za-z0-9]{36}") for letter in "pousr"),
    ("github_pat_", "[A-Za-z0-9]{22}"),
    ("glpat-", r"[A-Za-z0-9_\-]{20}"),
    *((f"xox{letter}-", r"[A-Za-z0-9\-]{10}") for letter in "abprs"),
    ("sk-", r"[A-Za-z0-9_\-]{20}"),
    ("sk_live_", "[A-Za-z0-9]{16}"),
    ("rk_live_", "[A-Za-z0-9]{16}"),
    ("_secret_access_key", ""),
    ("-----BEGIN ", "(?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    ("://", r"[^/\s:@]+:[^/\s@]+@"),
)
"""The combined pattern, as (literal prefix, what follows it): wherever some kind's pattern
matches, one of these does, also in the JSON text of a document holding the secret in a
string (escapes never split a key), which lets :func:`dumps` skip clean documents. The
:data:`ANY_CASE` prefix is matched with its ASCII letters in either case."""
ANY_CASE = "_secret_access_key"
PREFILTER_MAX = 1 << 16
"""Text longer than this goes to the combined pattern at once: one pass of the regular
expression engine instead of a substring search per prefix, and the import is small next to
the scan."""


def _suspect(text: str) -> bool:
    """Whether ``text`` may hold a secret: it holds a :data:`TRIGGERS` prefix (or is long).

    Never False where the combined pattern matches: a match starts with its prefix (and a
    ``://`` match holds an ``@`` after it, so a plain URL is settled here too). So False
    settles "no secret" without ``re``.
    """
    if len(text) > PREFILTER_MAX:
        return True
    for prefix, _ in TRIGGERS:
        if prefix == ANY_CASE:
            if prefix in text.lower():
                return True
        elif prefix == "://":
            start = text.find(prefix)
            if start >= 0 and text.find("@", start) >= 0:
                return True
        elif prefix in text:
            return True
    return False


_COMBINED: list[Pattern[str]] = []
"""The compiled combined pattern, once :func:`_combined` has been called."""


def _combined() -> Pattern[str]:
    """The combined pattern of :data:`TRIGGERS`, compiled on first use."""
    if not _COMBINED:
        import re

        def literal(text: str, any_case: bool) -> str:
            # In any case, ASCII letters only ([sS]...): what text.lower() in _suspect() sees.
            return "".join(
                f"[{char}{char.upper()}]" if any_case and char.isalpha() else re.escape(char)
                for char in text
            )

        branches: dict[str, list[str]] = {}
        for prefix, rest in TRIGGERS:
            branches.setdefault(prefix[0], []).append(
                literal(prefix[1:], prefix == ANY_CASE) + rest
            )
        # One branch per first character: the engine skips to those characters, then tries
        # only the alternatives that can start there.
        _COMBINED.append(
            re.compile(
                "|".join(
                    f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in branches.items()
                )
            )
        )
    return _COMBINED[0]


def _any(text: str) -> bool:
    """Whether the combined pattern matches in ``text``: the test before any kind's own."""
    return _suspect(text) and _combined().search(text) is not None


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
    if not _any(text):
        return ()
    import re

    found = {kind for kind, pattern in SECRETS if re.search(pattern, text)}
    found.update(
        kind
        for kind, pattern in GLUED
        if kind not in found and any(_shaped(m) for m in re.finditer(pattern, text))
    )
    return tuple(kind for kind in _KINDS if kind in found)


def injection_kinds(text: str) -> tuple[str, ...]:
    """The prompt-injection markers in ``text``, in table order, each once."""
    import re

    return tuple(
        kind
        for kind, pattern in INJECTION_PATTERNS
        if re.search(pattern, text, re.IGNORECASE)  # re caches the compiled patterns
    )


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    if not _any(text):
        return text
    import re

    for kind, pattern in SECRETS:
        text = re.sub(pattern, f"[REDACTED:{kind}]", text)
    for kind, pattern in GLUED:
        text = re.sub(pattern, _Marker(f"[REDACTED:{kind}]"), text)
    return text


class _Marker:
    """The replacement of a glued match: the kind's mark when it is shaped like a key."""

    __slots__ = ("mark",)

    def __init__(self, mark: str) -> None:
        self.mark = mark

    def __call__(self, match: Match[str]) -> str:
        return self.mark if _shaped(match) else match.group()


def _shaped(match: Match[str]) -> bool:
    """Shaped like a key: an uppercase letter, a lowercase letter and a digit after ``sk``."""
    import re

    body = match.group()[3:]
    return all(re.search(test, body) for test in ("[A-Z]", "[a-z]", "[0-9]"))


def scrubbed(value: Any) -> Any:
    """A copy of a JSON value with every string (keys too) redacted and well-formed."""
    if isinstance(value, str):
        return well_formed_text(redact(value))
    if isinstance(value, dict):
        return {scrubbed(key): scrubbed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrubbed(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)`` of :func:`scrubbed` ``value``: what the bridge writes.

    A document whose JSON text holds no key prefix and no lone surrogate (the usual case) is
    dumped once and scanned once, as a whole.
    """
    text = cjson.dumps(value, **options)
    if not _any(text) and well_formed_text(text) is text:
        return text
    return cjson.dumps(scrubbed(value), **options)


def clip(text: str, limit: int = SUMMARY_MAX) -> str:
    """A summary: on one line, at most ``limit`` characters (``humanize.one_line``)."""
    return one_line(text, limit)


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
_PATCH_FILE = r"(?m)^\*\*\* (Add|Update|Delete) File: (.+)$"


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
    import re

    files = [f"{verb} {name.strip()}" for verb, name in re.findall(_PATCH_FILE, text)]
    return "patch: " + ", ".join(files) if files else "patch"
