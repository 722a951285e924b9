"""Which decision a tool call gets: the built-in rules, then ``[[bridge.rule]]``, then allow.

Order, first answer wins:

1. The admission's own state: a quarantined admission denies every call ("quarantined"), a
   halted one too ("halted"), one blocked at begin too ("blocked at begin").
2. Built-in rules from the task (``CAESAR_TASK_DIR``'s ``task.json``, read at begin):
   ``mode: "read-only"`` denies the clients' file-writing tools (:data:`WRITE_TOOLS`);
   ``network: false`` denies their network tools (:data:`NETWORK_TOOLS`). Shell commands are
   NOT classified: ``Bash``/``run_shell_command`` are not guessed to write or to reach the
   network (a guess would be wrong both ways); write a ``[[bridge.rule]]`` with a ``match``
   glob for the commands you mean.
3. ``[[bridge.rule]]`` entries of the layered configuration, in file order, first match wins:
   ``tool`` is a case-sensitive glob on the client's tool name, ``match`` (optional) a glob on
   the REDACTED summary (command, path or URL, see :func:`caesar_core.bridge.scan.summary`).
   A rule whose ``tool`` or ``match`` holds a secret is ignored, with a warning at begin: no
   redacted summary can show it, and the admission keeps the rule only redacted (nothing the
   bridge writes holds a secret), which would change what the glob means.
4. Otherwise allow.

What the rules need is resolved once, at begin (:func:`settings`, :func:`task_constraints`),
and stored in the admission as plain data: pre-tool must not import pydantic (~85 ms) to read
the configuration again on every call. A configuration changed mid-turn applies from the next
begin.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

WRITE_TOOLS: frozenset[str] = frozenset(
    {
        # Claude Code
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        # Codex
        "apply_patch",
        # Gemini CLI
        "write_file",
        "replace",
        # VS Code / Copilot agent
        "editFiles",
        "createFile",
        "create_file",
        "createDirectory",
        "create_directory",
        "replace_string_in_file",
        "multi_replace_string_in_file",
        "insert_edit_into_file",
        "editNotebook",
        "edit_notebook_file",
        # Copilot CLI
        "create",
        "edit",
    }
)
"""Tools that write files, by their client's own name; denied in a read-only task."""

NETWORK_TOOLS: frozenset[str] = frozenset(
    {
        # Claude Code
        "WebFetch",
        "WebSearch",
        # Codex
        "web_search",
        # Gemini CLI
        "web_fetch",
        "google_web_search",
        # VS Code / Copilot
        "fetch",
        "fetch_webpage",
        "fetchWebPage",
        "vscode_fetchWebPage",
        "githubRepo",
    }
)
"""Tools that reach the network, by their client's own name; denied when ``network: false``."""

ENV_TASK_DIR = "CAESAR_TASK_DIR"


class PolicyError(Exception):
    """The policy cannot be resolved (a broken configuration): begin answers ``error``."""


class Ruling:
    """A decision, why, and what gave it: ``state``, ``builtin``, ``rule N`` (1-based, in
    merged file order) or ``default``. (A plain class: dataclasses costs ~7 ms to import.)"""

    __slots__ = ("decision", "reason", "source")

    def __init__(self, decision: str, reason: str, source: str) -> None:
        self.decision = decision
        self.reason = reason
        self.source = source

    def __repr__(self) -> str:
        return f"Ruling({self.decision!r}, {self.reason!r}, {self.source!r})"


def decide(admission: Mapping[str, Any], tool: str, summary: str) -> Ruling:
    """The decision for one call of ``tool`` whose redacted summary is ``summary``."""
    refusal = stopped(admission)
    if refusal is not None:
        return refusal
    task = admission.get("task") or {}
    if task.get("read_only") and tool in WRITE_TOOLS:
        return Ruling("deny", f"read-only task: {tool} writes files", "builtin")
    if task.get("network") is False and tool in NETWORK_TOOLS:
        return Ruling(
            "deny", f"network is off for this task: {tool} reaches the network", "builtin"
        )
    rule = first_match(admission.get("rules") or [], tool, summary)
    if rule is not None:
        index, found = rule
        decision = str(found["decision"])
        reason = str(found.get("reason") or "") or f"[[bridge.rule]] #{index} ({found['tool']})"
        return Ruling(decision, reason, f"rule {index}")
    return Ruling("allow", "", "default")


def first_match(
    rules: Sequence[Mapping[str, Any]], tool: str, summary: str
) -> tuple[int, Mapping[str, Any]] | None:
    """Same semantics as ``config.model.Bridge.first_match``, without pydantic."""
    if not rules:
        return None
    import fnmatch  # imports re: only for a project that has rules

    for index, rule in enumerate(rules, start=1):
        if rule.get("ignored") or not fnmatch.fnmatchcase(tool, str(rule.get("tool", ""))):
            continue
        pattern = rule.get("match")
        if pattern is None or fnmatch.fnmatchcase(summary, str(pattern)):
            return index, rule
    return None


def stopped(admission: Mapping[str, Any]) -> Ruling | None:
    """The denial every call of a quarantined, halted or blocked admission gets, if any."""
    if admission.get("quarantined"):
        return Ruling("deny", f"quarantined: {admission.get('quarantine_reason') or ''}", "state")
    if admission.get("halted"):
        return Ruling("deny", "halted", "state")
    if admission.get("begin_decision") == "block":
        return Ruling("deny", "blocked at begin", "state")
    return None


# -- resolved once, at begin --------------------------------------------------------------------


def settings(project: str, env: Mapping[str, str]) -> dict[str, Any]:
    """The layered configuration's bridge settings, resolved once per begin.

    When not one layer file exists (no global file, no ``.caesar/config.toml`` nor
    ``config.local.toml``), ``load_config`` reads nothing and the configuration is its
    defaults: :func:`default_settings`, without pydantic. That is the first tool call of a
    session in a project that configured nothing, which would otherwise pay ~85 ms to learn
    the defaults. Any file there, even empty or broken, goes through ``load_config`` (the one
    parser, which refuses what it must): no second reader of the configuration's meaning
    exists, and the defaults both paths answer are the same constants
    (``config.defaults.BRIDGE_*``, which ``config.model.Bridge`` declares as its defaults;
    ``tests/bridge`` checks the two answers are equal).
    """
    from pathlib import Path

    from caesar_core.config.paths import layer_paths, no_layer_exists
    from caesar_core.layout import project_of_task

    xdg = env.get("XDG_CONFIG_HOME", "")
    home = Path(xdg) if xdg and Path(xdg).is_absolute() else Path(env.get("HOME", "~")) / ".config"
    home = home.expanduser()
    # Inside a caesar task, the rules of the project that made it: the worktree the agent
    # runs in has no .caesar/ of its own.
    folder = env.get(ENV_TASK_DIR, "")
    root = (project_of_task(Path(folder)) if folder else None) or Path(project)
    if no_layer_exists(layer_paths(root, home)):
        return default_settings()
    return configured_settings(root, home)


def default_settings() -> dict[str, Any]:
    """The bridge settings of a configuration no file changed (stdlib: ``config.defaults``)."""
    from caesar_core.config.defaults import BRIDGE_APPROVAL_TIMEOUT_MS, BRIDGE_ON_APPROVAL_TIMEOUT

    return {
        "rules": [],
        "approval_timeout_s": BRIDGE_APPROVAL_TIMEOUT_MS / 1000,
        "on_approval_timeout": BRIDGE_ON_APPROVAL_TIMEOUT,
    }


def configured_settings(root: Path, home: Path) -> dict[str, Any]:
    """The bridge settings ``load_config`` resolves for ``root`` (pydantic is loaded here)."""
    from caesar_core.bridge.scan import secret_kinds
    from caesar_core.config import ConfigError, load_config

    try:
        bridge = load_config(root, config_home=home).config.bridge
    except ConfigError as problem:
        raise PolicyError(f"configuration refused: {problem}") from None
    rules: list[dict[str, Any]] = []
    for rule in bridge.rules:
        entry = {"tool": rule.tool, "match": rule.match, "decision": rule.decision}
        found = secret_kinds(f"{rule.tool}\n{rule.match or ''}")
        if found:
            entry["ignored"] = f"its tool or match glob holds a secret ({', '.join(found)})"
        rules.append(entry | {"reason": rule.reason})
    return {
        "rules": rules,
        "approval_timeout_s": bridge.approval_timeout.seconds,
        "on_approval_timeout": bridge.on_approval_timeout,
    }


def ignored_rules(settings: Mapping[str, Any]) -> list[str]:
    """A warning for each rule :func:`settings` found unusable."""
    return [
        f"[[bridge.rule]] #{index} ignored: {rule['ignored']}"
        for index, rule in enumerate(settings["rules"], start=1)
        if rule.get("ignored")
    ]


def task_constraints(env: Mapping[str, str]) -> tuple[dict[str, Any] | None, list[str]]:
    """The task constraints from ``CAESAR_TASK_DIR``'s task.json (two fields), read the safe
    way (an agent can write its task directory: no link followed, no FIFO waited on, depth
    bounded)."""
    folder = env.get(ENV_TASK_DIR, "")
    if not folder:
        return None, []
    from pathlib import Path  # begin only: it loads the configuration (pydantic) anyway

    from caesar_core.safefs import read_json

    task_dir = os.path.realpath(folder)
    try:
        data = read_json(Path(task_dir), "task.json")
    except (OSError, ValueError) as problem:
        warning = f"task.json unreadable ({type(problem).__name__}): no task constraints applied"
        return {"dir": task_dir, "id": None, "read_only": False, "network": True}, [warning]
    data = data if isinstance(data, dict) else {}
    return {
        "dir": task_dir,
        "id": data.get("id") if isinstance(data.get("id"), str) else None,
        "read_only": data.get("mode") == "read-only",
        "network": data.get("network") is not False,
    }, []
