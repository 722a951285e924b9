"""``caesar hooks install CLIENT``: register ``caesar hook CLIENT`` in the client's hook settings.

Every client nests hooks the same way (event -> matcher group -> handlers) in a JSON file of the
project. Ours are the handlers whose command runs ``caesar hook``; they are replaced (wherever
they are), every other handler, group, event and key is kept as it was. A file we cannot read
is refused and left untouched: it may hold a user's only copy of their other hooks.

Files (all in the project, so they travel with it and are reviewed like code):

* claude-code: ``.claude/settings.json``. VS Code agent hooks read this file too; their payloads
  reach ``caesar hook claude-code``, which hands them to the VS Code adapter.
* codex: ``.codex/hooks.json``, in its ``{"hooks": {...}}`` shape. codex 0.171.0 reads it only
  in a trusted project (``codex exec --trust``, or trusting it in the TUI: a worktree counts as
  its repository), and runs each hook only once trusted by hash (``/hooks``), or for one run
  with ``--dangerously-bypass-hook-trust``; an untrusted hook is skipped without a word.
* gemini: ``.gemini/settings.json`` (``timeout`` in milliseconds there: long enough for a person
  to answer an approval). Gemini CLI 0.61.0 reads a project's settings, hooks included, only
  in a trusted workspace (its trusted folders, or ``GEMINI_CLI_TRUST_WORKSPACE=true``);
  ``--skip-trust`` runs an untrusted one with them ignored.
* copilot: ``.github/hooks/caesar.json``, a file of its own among the project's hook files, in
  Copilot CLI's shape (``{"version": 1, "hooks": {event: [handler]}}``, the command under
  ``bash``, ``timeoutSec``; no matcher groups), under PascalCase event names so that the
  payloads are Claude-format. Copilot CLI 1.0.102 runs a project's hooks only in a folder it
  trusts (``--trust-folder``, which caesar passes for its runs, or trusting it interactively),
  and skips them without a word otherwise.
* qwen: ``.qwen/settings.json`` (Claude Code's events and nesting, ``timeout`` in seconds), with
  ``"$version": 4``: without it Qwen Code 0.24.4 migrates the file, rewriting it, at its next
  start (a change in every task's diff).

The live tests ``tests/live/test_{claude,codex,gemini,copilot,qwen}_hooks.py`` run the real
CLIs with these files.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from caesar_core.clientfiles import (
    QWEN_SETTINGS_VERSION,
    ClientFileUnreadableError,
    Installation,
    installation,
    json_object,
    json_text,
)
from caesar_core.errors import CaesarError, ExitCode
from caesar_core.executable import caesar_command

CLIENTS = ("claude-code", "codex", "gemini", "copilot", "qwen")
APPROVAL_WAIT_S = 600
"""How long a pre-tool hook may run: an approval waits up to ``[bridge] approval_timeout``
(120 s by default), and a client that kills the hook first lets the call run."""
ADAPTERS = ("claude-code", "codex", "gemini", "vscode", "copilot", "qwen")


@dataclass(frozen=True)
class Target:
    path: str
    events: tuple[str, ...]
    handler_extra: tuple[tuple[str, Any], ...] = ()
    timeouts: tuple[tuple[str, int], ...] = ()
    grouped: bool = True
    """Handlers in matcher groups (``event -> [{matcher, hooks: [handler]}]``); else straight
    under their event (Copilot CLI)."""
    command_key: str = "command"
    timeout_key: str = "timeout"
    defaults: tuple[tuple[str, Any], ...] = ()
    """Top-level keys written when the file has none (the version of its format)."""


TARGETS = {
    "claude-code": Target(
        ".claude/settings.json",
        (
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop",
            "StopFailure",
            "SessionEnd",
            "Notification",
        ),
        # Claude's default, written out because VS Code reads this file with a 30 s default:
        # a hook killed while an approval waits is non-blocking, i.e. the call would run.
        timeouts=(("PreToolUse", APPROVAL_WAIT_S),),
    ),
    "codex": Target(
        ".codex/hooks.json",
        ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"),
        timeouts=(("PreToolUse", APPROVAL_WAIT_S),),
    ),
    "gemini": Target(
        ".gemini/settings.json",
        ("BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "AfterModel", "SessionEnd"),
        handler_extra=(("name", "caesar"),),
        # Gemini's default is 60 s; an approval may wait up to [bridge] approval_timeout.
        timeouts=(("BeforeTool", APPROVAL_WAIT_S * 1000),),
    ),
    "copilot": Target(
        ".github/hooks/caesar.json",
        (
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop",
            "SessionEnd",
            "ErrorOccurred",
        ),
        # Copilot's default is 30 s, and a hook it kills lets the call run.
        timeouts=(("PreToolUse", APPROVAL_WAIT_S),),
        grouped=False,
        command_key="bash",
        timeout_key="timeoutSec",
        defaults=(("version", 1),),
    ),
    "qwen": Target(
        ".qwen/settings.json",
        (
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop",
            "StopFailure",
            "SessionEnd",
            "Notification",
        ),
        timeouts=(("PreToolUse", APPROVAL_WAIT_S),),
        defaults=(("$version", QWEN_SETTINGS_VERSION),),
    ),
}


def hook_command(client: str) -> str:
    """The shell command a client runs: an absolute ``caesar``, since clients have their own
    PATH (``caesar_command``, as ``caesar mcp install`` registers)."""
    return shlex.join([*caesar_command(), "hook", client])


def is_caesar_hook(command: object) -> bool:
    """A handler command that runs ``caesar hook <adapter>`` (any path, any python -m form)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for index, word in enumerate(words[:-1]):
        if word == "hook" and words[index + 1] in ADAPTERS and index > 0:
            before = words[index - 1]
            if Path(before).name == "caesar" or before in ("caesar_core", "caesar_core.cli"):
                return True
    return False


def plan(client: str, root: Path) -> Installation:
    """What installing for ``client`` would write; nothing is written here."""
    if client not in TARGETS:
        raise CaesarError(
            f"unknown client {client!r}",
            f"use one of: {', '.join(CLIENTS)}",
            exit_code=ExitCode.USAGE,
        )
    target = TARGETS[client]
    command = hook_command(client)
    return installation(
        client, root / target.path, lambda text: merge(text, target, command), HooksUnreadableError
    )


class HooksUnreadableError(ClientFileUnreadableError):
    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, detail, kind="settings", command="caesar hooks install")


def merge(text: str | None, target: Target, command: str) -> str:
    data = json_object(text)
    for key, value in target.defaults:
        data.setdefault(key, value)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("'hooks' is not an object")
    for event, entries in list(hooks.items()):
        if target.grouped:
            hooks[event] = _without_ours(event, entries)
        else:
            hooks[event] = _handlers_not_ours(event, entries, target.command_key)
        if not hooks[event] and event in target.events:
            del hooks[event]  # re-added below, at the end, with ours
    timeouts = dict(target.timeouts)
    for event in target.events:
        handler: dict[str, Any] = {"type": "command", target.command_key: command}
        handler.update(target.handler_extra)
        if event in timeouts:
            handler[target.timeout_key] = timeouts[event]
        entry = {"matcher": "*", "hooks": [handler]} if target.grouped else handler
        hooks.setdefault(event, []).append(entry)
    return json_text(data)


def _handlers_not_ours(event: str, handlers: object, command_key: str) -> list[Any]:
    """An event's handlers (no groups: Copilot CLI) without ours."""
    if not isinstance(handlers, list):
        raise ValueError(f"hooks.{event} is not a list")
    return [h for h in handlers if not (isinstance(h, dict) and is_caesar_hook(h.get(command_key)))]


def _without_ours(event: str, groups: object) -> list[Any]:
    if not isinstance(groups, list):
        raise ValueError(f"hooks.{event} is not a list")
    kept: list[Any] = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            kept.append(group)  # not a shape we know: not ours to judge
            continue
        others = [
            h for h in handlers if not (isinstance(h, dict) and is_caesar_hook(h.get("command")))
        ]
        if others or not handlers:
            kept.append({**group, "hooks": others} if len(others) != len(handlers) else group)
    return kept
