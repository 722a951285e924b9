"""The agents caesar knows: built-in adapters, then every ``[[agent]]`` of the configuration.

An ``[[agent]]`` whose id matches a built-in replaces it, so a user can point ``codex`` at a
wrapper script without waiting for a release.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from caesar_core.agents.base import (
    Adapter,
    BestTier,
    Capabilities,
    Invocation,
    Launch,
    NetworkControl,
    ReportTier,
    SilentTranslator,
    Translator,
    read_only,
)
from caesar_core.agents.sessions import PointerTranslator
from caesar_core.config import AgentConfig, Config
from caesar_core.config.templates import uses_token

VERSION_TIMEOUT_S = 3.0


class DemoAdapter:
    """The built-in demo agent: no model, no key, follows the contract like an outside agent."""

    id = "demo"
    display_name = "caesar demo agent"
    bin = sys.executable
    capabilities = Capabilities(native_read_only=True, network=NetworkControl.TOGGLE)

    def launch(self, invocation: Invocation) -> Launch:
        argv = [self.bin, "-m", "caesar_core.agents.demo", *invocation.extra_args]
        return Launch(argv, Path(invocation.task.workspace))

    min_version = None

    def translator(self, invocation: Invocation) -> Translator:
        return SilentTranslator()

    def preferred_tier(self, channel: bool) -> ReportTier:
        return "file"


@dataclass(frozen=True)
class GenericAdapter(BestTier):
    """Any CLI declared with ``[[agent]]``: its args template, its working directory rule.

    The network is controllable when the entry says how: ``network_args`` are appended when
    the task has the network (a CLI confined without them, the reference implementation's
    meaning of the key), ``offline_args`` when it must be cut (a CLI open by default).
    """

    config: AgentConfig

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def display_name(self) -> str:
        return self.config.display_name or self.config.id

    @property
    def bin(self) -> str:
        return self.config.bin

    @property
    def capabilities(self) -> Capabilities:
        controlled = self.config.network_args or self.config.offline_args
        return Capabilities(
            native_read_only=self.config.native_read_only,
            network=NetworkControl.TOGGLE if controlled else NetworkControl.UNKNOWN,
            model=uses_token(self.config.args, "model"),
            resume=self.config.resume_args is not None,
        )

    def launch(self, invocation: Invocation) -> Launch:
        task, paths = invocation.task, invocation.paths
        values: dict[str, str | None] = {
            "prompt": invocation.prompt,
            "workspace": task.workspace,
            "taskDir": str(paths.root),
            "reportPath": str(paths.report),
            "model": invocation.model,
            "session": invocation.resume_session,
        }
        resuming = invocation.resume_session and self.config.resume_args
        if resuming:
            argv = [self.config.bin, *self.config.render_template(resuming, values)]
        else:
            argv = [self.config.bin, *self.config.render_args(values)]
        if read_only(task) and self.config.read_only_args:
            argv += self.config.render_template(self.config.read_only_args, values)
        if not invocation.network_off and self.config.network_args:
            argv += self.config.render_template(self.config.network_args, values)
        if invocation.network_off and self.config.offline_args:
            argv += self.config.render_template(self.config.offline_args, values)
        argv += list(invocation.extra_args)
        cwd = Path(task.workspace) if self.config.cwd_mode == "process" else paths.root
        return Launch(argv, cwd, dict(self.config.env))

    @property
    def min_version(self) -> str | None:
        return None

    def translator(self, invocation: Invocation) -> Translator:
        if self.config.session_from is not None:
            return PointerTranslator(self.config.session_from)
        return SilentTranslator()


_BUILTIN_HOMES: Mapping[str, tuple[str, str]] = {
    "demo": (__name__, "DemoAdapter"),
    "codex": ("caesar_core.agents.codex", "CodexAdapter"),
    "claude": ("caesar_core.agents.claude", "ClaudeAdapter"),
    "opencode": ("caesar_core.agents.opencode", "OpencodeAdapter"),
    "gemini": ("caesar_core.agents.gemini", "GeminiAdapter"),
    "copilot": ("caesar_core.agents.copilot", "CopilotAdapter"),
    "qwen": ("caesar_core.agents.qwen", "QwenAdapter"),
}
"""Each built-in adapter by id: its module and class. A task loads its own agent's module only
(``caesar run --agent jq`` loads none of these but this one): the seven modules, their
translators and their patterns cost more to import than a small agent takes to run."""
BUILTIN_IDS: tuple[str, ...] = tuple(_BUILTIN_HOMES)
"""The built-in agents' ids, in the order listings show them."""
_LOADED: dict[str, Adapter] = {}


def builtin_adapter(agent_id: str) -> Adapter:
    """The built-in adapter ``agent_id`` (one of :data:`BUILTIN_IDS`), its module imported on
    first use."""
    adapter = _LOADED.get(agent_id)
    if adapter is None:
        module, name = _BUILTIN_HOMES[agent_id]
        __import__(module)
        adapter = _LOADED[agent_id] = getattr(sys.modules[module], name)()
    return adapter


class Catalogue(Mapping[str, Adapter]):
    """Every known agent by id: built-ins first, then ``[[agent]]`` entries (an entry with a
    built-in's id replaces it in its place). A built-in's module is imported when its adapter
    is first asked for (:func:`builtin_adapter`), so looking one agent up loads one."""

    def __init__(self, declared: Mapping[str, Adapter]) -> None:
        self._declared = dict(declared)
        self._ids = [*BUILTIN_IDS, *(i for i in self._declared if i not in _BUILTIN_HOMES)]

    def __getitem__(self, agent_id: str) -> Adapter:
        if agent_id in self._declared:
            return self._declared[agent_id]
        if agent_id in _BUILTIN_HOMES:
            return builtin_adapter(agent_id)
        raise KeyError(agent_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._declared or agent_id in _BUILTIN_HOMES


def catalogue(config: Config) -> Catalogue:
    """Every known agent by id: built-ins first, then ``[[agent]]`` entries (which win)."""
    return Catalogue({entry.id: GenericAdapter(entry) for entry in config.agents})


def resolve_binary(executable: str, env: Mapping[str, str] | None = None) -> Path | None:
    """Where an agent's executable is, or None when it is not installed."""
    if os.sep in executable:
        path = Path(executable).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(executable, path=(env or os.environ).get("PATH"))
    return Path(found) if found else None


def probe_version(adapter: Adapter, timeout: float = VERSION_TIMEOUT_S) -> str | None:
    """``<bin> --version``'s first line, or None if it cannot say within ``timeout``.

    A generic agent is often a script that ignores its arguments and does its work: the probe
    runs it in an empty directory of its own, without a task's ``CAESAR_*`` variables, so that
    asking its version never touches the project (or, on a worker, the worker's directory).
    """
    if isinstance(adapter, DemoAdapter):
        from caesar_core import __version__

        return f"caesar {__version__}"
    binary = resolve_binary(adapter.bin)
    if binary is None:
        return None
    env = {name: value for name, value in os.environ.items() if not name.startswith("CAESAR_")}
    try:
        with tempfile.TemporaryDirectory(prefix="caesar-version-") as scratch:
            done = subprocess.run(
                [str(binary), "--version"],
                capture_output=True,
                text=True,
                errors="replace",  # an agent's --version may print anything
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                cwd=scratch,
                env=env,
                check=False,
            )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def version_key(text: str | None) -> tuple[int, int, int] | None:
    """The first dotted version in ``text`` (``codex-cli 0.171.0`` -> (0, 171, 0))."""
    found = _VERSION.search(text or "")
    if found is None:
        return None
    major, minor, patch = found.groups()
    return int(major), int(minor), int(patch or 0)


def outdated(adapter: Adapter, version: str | None) -> bool:
    """True when the installed version is older than the one its adapter was written from.

    An unreadable version is not called outdated: the translator copes with unknown lines,
    and a false alarm would teach users to ignore the check.
    """
    have, need = version_key(version), version_key(adapter.min_version)
    return have is not None and need is not None and have < need
