"""opencode: ``opencode run --format json``, written from opencode-ai 1.18.33's real stream.

opencode has no sandbox and no output schema; what it has is a permission system, read
from its config files and, merged last, ``OPENCODE_PERMISSION`` (JSON), with each agent's
own rules (``OPENCODE_CONFIG_CONTENT``) appended after those. That is the lever: a
read-only task denies ``bash`` (the tool is then not even offered) and every edit, then
lets the primary agents edit the report file alone, so the refusal is opencode's own, not
the model's goodwill. In ``run`` mode a permission that would *ask* is refused on the spot,
and ``external_directory`` asks by default, so the task directory (outside the workspace,
where the report goes) is allowed by name. The network cannot be cut: denying the web
tools leaves ``bash``.

The stream shows a tool only once it has finished (``tool_use`` with state ``completed`` or
``error``), so each such line yields both edges of the call. ``step_finish`` carries each
model call's tokens and cost; ``error`` is fatal (the process exits 1 after it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from caesar_core.agents.base import (
    CHANNEL_SERVER,
    BestTier,
    Capabilities,
    Invocation,
    Launch,
    McpInjection,
    NetworkControl,
    read_only,
)
from caesar_core.agents.stream import JsonStreamTranslator, as_float, as_int, summarize
from caesar_core.protocol.event import Error, EventPayload, FileChanged, Message, Thinking
from caesar_core.protocol.report import ChangeAction

_EDIT_TOOLS = {"edit", "write", "patch", "multiedit", "apply_patch"}
"""The tools opencode's ``edit`` permission covers: the ones that change files."""
_PATCH_ACTIONS = {
    "add": ChangeAction.CREATED,
    "delete": ChangeAction.DELETED,
    "move": ChangeAction.RENAMED,
    "update": ChangeAction.MODIFIED,
}
_NETWORK_TOOLS = ("webfetch", "websearch", "codesearch")
_PRIMARY_AGENTS = ("build", "plan")
"""opencode's built-in primary agents: a read-only task lets these write its report."""
_QUIET = {"step_start", "done"}
"""Known lines with nothing to show (``done`` is newer versions' end of run)."""


class OpencodeTranslator(JsonStreamTranslator):
    """``task_dir``: files written there (the report) are caesar's, not changes to the work,
    even when a task in place has its directory inside the workspace."""

    agent = "opencode"

    def __init__(self, workspace: str | Path, task_dir: str | Path | None = None) -> None:
        super().__init__(workspace)
        self.task_dir = Path(os.path.abspath(task_dir)) if task_dir else None

    def handle(self, obj: dict[str, Any]) -> list[EventPayload]:
        kind = obj.get("type")
        if "sessionID" in obj:  # every line names it; `opencode run --session` takes it
            self.saw_session(obj["sessionID"])
        part = obj.get("part")
        part = part if isinstance(part, dict) else {}
        if kind in _QUIET:
            return self.ignore()
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str) or not text.strip():
                return self.ignore()
            self.said(text)
            return [Message(text=text)]
        if kind == "reasoning":
            text = part.get("text")
            return [Thinking(text=text)] if isinstance(text, str) and text.strip() else []
        if kind == "tool_use":
            return self._tool(part)
        if kind == "step_finish":
            self._usage_of(part)
            return self.ignore()
        if kind == "error":
            return self._error(obj.get("error"))
        return self.unknown()

    def _tool(self, part: dict[str, Any]) -> list[EventPayload]:
        state = part.get("state")
        state = state if isinstance(state, dict) else {}
        tool = str(part.get("tool") or "")
        call_id = str(part.get("callID") or part.get("id") or "")
        if not tool or not call_id:
            return self.unknown()
        given = state.get("input")
        given = given if isinstance(given, dict) else {}
        status = state.get("status")
        if tool == "invalid":
            # The model called a tool opencode does not offer (bash in a read-only task):
            # show the call it attempted, refused.
            asked = given.get("tool")
            tool = asked if isinstance(asked, str) and asked else tool
            return self.end_call(call_id, False, tool, summarize(given.get("error")))
        summary = self._summary(given)
        if status == "completed":
            # a command that exits non-zero is a completed call to opencode, a failure to us
            meta = state.get("metadata")
            code = meta.get("exit") if isinstance(meta, dict) else None
            ok = not isinstance(code, int) or isinstance(code, bool) or code == 0
            return [*self.end_call(call_id, ok, tool, summary), *self._changes(tool, state)]
        if status == "error":
            return self.end_call(call_id, False, tool, summary)
        return self.start_call(call_id, tool, summary)

    def _summary(self, given: dict[str, Any]) -> str:
        """A file tool's path as the workspace sees it; anything else as usual."""
        path = given.get("filePath")
        if isinstance(path, str) and path and "command" not in given:
            return summarize(self.relative(path))
        return summarize(given)

    def _changes(self, tool: str, state: dict[str, Any]) -> list[EventPayload]:
        """The files a finished edit tool changed, inside the workspace only (the report in
        the task directory is not a change to the work)."""
        if tool not in _EDIT_TOOLS:
            return []
        given = state.get("input")
        given = given if isinstance(given, dict) else {}
        meta = state.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        found: list[tuple[str, ChangeAction]] = []
        files = meta.get("files")
        if isinstance(files, list):  # apply_patch: one entry per file of the patch
            for entry in files:
                if not isinstance(entry, dict):
                    continue
                path = entry.get("movePath") or entry.get("filePath")
                action = _PATCH_ACTIONS.get(str(entry.get("type")), ChangeAction.MODIFIED)
                if isinstance(path, str):
                    found.append((path, action))
        else:
            filediff = meta.get("filediff")
            filediff = filediff if isinstance(filediff, dict) else {}
            path = given.get("filePath") or meta.get("filepath") or filediff.get("file")
            if isinstance(path, str):
                # write says whether the file was there before; an edit changes what exists
                created = tool == "write" and meta.get("exists") is False
                found.append((path, ChangeAction.CREATED if created else ChangeAction.MODIFIED))
        changes: list[EventPayload] = []
        for path, action in found:
            relative = self.relative(path)
            outside = relative.startswith(("/", "../")) or relative in ("", "..")
            if not outside and not self._caesars(path):
                changes.append(FileChanged(path=relative, action=action))
        return changes

    def _caesars(self, path: str) -> bool:
        if self.task_dir is None:
            return False
        absolute = Path(os.path.abspath(self.workspace / path))
        return absolute == self.task_dir or self.task_dir in absolute.parents

    def _usage_of(self, part: dict[str, Any]) -> None:
        """One model call's numbers. opencode splits them: ``input`` excludes the cached
        tokens and ``output`` the reasoning ones, so they are added back to match what the
        provider counted and billed."""
        tokens = part.get("tokens")
        tokens = tokens if isinstance(tokens, dict) else {}
        cache = tokens.get("cache")
        cache = cache if isinstance(cache, dict) else {}
        fresh = as_int(tokens.get("input"))
        output = as_int(tokens.get("output"))
        cost = as_float(part.get("cost"))
        if fresh is None and output is None and cost is None:
            return
        cached = (as_int(cache.get("read")) or 0) + (as_int(cache.get("write")) or 0)
        reasoning = as_int(tokens.get("reasoning")) or 0
        self.add_usage(
            None if fresh is None else fresh + cached,
            None if output is None else output + reasoning,
            cost,
        )

    def _error(self, error: object) -> list[EventPayload]:
        message = ""
        if isinstance(error, dict):
            data = error.get("data")
            found = data.get("message") if isinstance(data, dict) else None
            found = found or error.get("message") or error.get("name")
            message = found if isinstance(found, str) else ""
        elif isinstance(error, str):
            message = error
        message = message.strip() or "opencode reported an error"
        self.failure = message
        return [Error(message=message, fatal=True)]


class OpencodeAdapter(BestTier):
    id = "opencode"
    display_name = "opencode"
    bin = "opencode"
    min_version: str | None = "1.18.33"
    capabilities = Capabilities(
        json_events=True,
        native_read_only=True,
        network=NetworkControl.OPEN,
        mcp=McpInjection.ENVIRONMENT,
        model=True,
        resume=True,
    )

    def launch(self, invocation: Invocation) -> Launch:
        """``opencode run``; the prompt goes last, after ``--``, as one argument.

        opencode joins its message arguments and wraps any that holds a space in double
        quotes (escaping the quotes inside); splitting the prompt on spaces would avoid that
        but breaks on a bare number, which its argument parser turns into a non-string.
        ``--thinking`` is display only: it makes the stream carry ``reasoning`` parts.
        ``--dir`` (and ``PWD``) because opencode takes its directory from ``$PWD`` before the
        process's working directory, and an inherited ``PWD`` names the orchestrator's.
        """
        workspace = Path(invocation.task.workspace)
        argv = [self.bin, "run", "--format", "json", "--thinking", "--dir", str(workspace)]
        if invocation.model:
            argv += ["--model", invocation.model]
        if invocation.resume_session:
            argv += ["--session", invocation.resume_session]
        argv += [*invocation.extra_args, "--", invocation.prompt]
        env = {"PWD": str(workspace)}
        env["OPENCODE_PERMISSION"] = _layered("OPENCODE_PERMISSION", permissions(invocation))
        config = inline_config(invocation)
        if config:
            env["OPENCODE_CONFIG_CONTENT"] = _layered("OPENCODE_CONFIG_CONTENT", config)
        return Launch(argv, workspace, env)

    def translator(self, invocation: Invocation) -> OpencodeTranslator:
        return OpencodeTranslator(invocation.task.workspace, invocation.paths.root)


def permissions(invocation: Invocation) -> dict[str, Any]:
    """The rules every agent of the run gets, over the user's own: the task directory
    reachable, and in a read-only task no shell and no edit at all.

    ``external_directory`` patterns are a file's directory, then ``/*``. Read-only rules are
    plain strings on purpose: a string replaces the user's patterns for that permission,
    where an object would be merged into them, keeping the order of the user's keys (the
    last matching pattern wins), so a user's ``"docs/*": "allow"`` would survive.
    """
    task_dir = invocation.paths.root
    rules: dict[str, Any] = {
        "external_directory": {f"{spelling}/*": "allow" for spelling in _spellings(task_dir)}
    }
    if read_only(invocation.task):
        rules.update(edit="deny", bash="deny")
    if invocation.network_off:
        rules.update(dict.fromkeys(_NETWORK_TOOLS, "deny"))
    return rules


def inline_config(invocation: Invocation) -> dict[str, Any]:
    """``OPENCODE_CONFIG_CONTENT``: the channel server, and a read-only task's one exception.

    An agent's own permission rules are appended after the global ones, so the primary
    agents may write the report even though every edit is denied above. An edit's pattern
    is its path relative to opencode's project root (see ``project_root``).
    """
    config: dict[str, Any] = {}
    if read_only(invocation.task):
        report = Path(invocation.task.report_path)
        root = project_root(Path(invocation.task.workspace))
        edits = {"*": "deny"}
        for spell in (os.path.abspath, os.path.realpath):
            edits[os.path.relpath(spell(report), spell(root))] = "allow"
        rules = {"permission": {"edit": edits, "bash": "deny"}}
        config["agent"] = dict.fromkeys(_PRIMARY_AGENTS, rules)
    if invocation.channel_command:
        server = {"type": "local", "command": list(invocation.channel_command), "enabled": True}
        config["mcp"] = {CHANNEL_SERVER: server}
    return config


def project_root(workspace: Path) -> Path:
    """Where opencode anchors relative paths: the nearest directory holding ``.git`` (a
    linked worktree has a ``.git`` file, and is its own top level), else the root."""
    start = Path(os.path.abspath(workspace))
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return Path(start.anchor or "/")


def _layered(name: str, ours: dict[str, Any]) -> str:
    """``ours`` over what the user already set in ``name`` (kept underneath, when JSON)."""
    try:
        theirs = json.loads(os.environ.get(name) or "{}")
    except ValueError:
        theirs = {}
    return json.dumps(_merged(theirs, ours) if isinstance(theirs, dict) else ours)


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = _merged(below, value)
        else:
            merged[key] = value
    return merged


def _spellings(path: Path) -> list[str]:
    """A path as given and with symlinks resolved, which opencode may use instead."""
    given = os.path.abspath(path)
    resolved = os.path.realpath(path)
    return [given] if resolved == given else [given, resolved]
