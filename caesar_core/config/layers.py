"""Finding, reading, validating and merging the three configuration layers.

Layers, most specific last: global (``$XDG_CONFIG_HOME/caesar/config.toml``), project
(``<root>/.caesar/config.toml``, committed) and local (``<root>/.caesar/config.local.toml``,
personal). Each layer is validated on its own before merging so an error names the file and
line where the bad key was written, not the merged result where it no longer has a place.

Merge rules: tables merge key by key, the later layer winning; a list in a later layer
replaces the earlier list whole (a union could never *remove* an agent from ``allowed``);
``[[agent]]`` entries merge by ``id`` and ``[[role]]`` entries by ``name``: a later entry with
a known key replaces the whole earlier entry (half of one agent's command line mixed with
half of another's would be nobody's intent), a new key is appended.
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from caesar_core.config.defaults import BUILTIN_ROLES
from caesar_core.config.depth import MAX_TOML_DEPTH, deepest_path, too_deep_at
from caesar_core.config.errors import ConfigError, ConfigProblem
from caesar_core.config.locate import KeyPath, Position, key_positions, locate
from caesar_core.config.model import Config
from caesar_core.config.paths import layer_paths
from caesar_core.config.problems import KEYED, describe, duplicate_entries, known_keys, label

DEFAULT_SOURCE = "default"
"""What :meth:`LoadedConfig.source_of` answers for a value no file set."""


@dataclass(frozen=True)
class LoadedConfig:
    """The effective configuration, the files it came from, and which file set which value."""

    config: Config = field(default_factory=Config)
    layers: list[Path] = field(default_factory=list)
    """The files actually read, least specific first."""
    sources: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    """Key path (entries by id/name: ``("agent", "jq")``) -> file path, for values set."""
    root: Path | None = None

    def source_of(self, dotted: str) -> str:
        """Where the effective value of ``dotted`` came from: ``"default"`` or a file path.

        Keys are written as in the file: ``policy.allow_inplace_write``, ``models.codex``;
        entries by their id or name: ``agent.jqagent`` or ``role.reviewer.timeout`` (an entry
        comes whole from one layer; an id no file defines, like a built-in agent's, answers
        ``"default"``). A table (``policy``) answers the most specific file that set anything
        in it. A key the schema does not have raises :class:`KeyError`, so a typo in a caller
        cannot pass for "default".
        """
        parts = tuple(dotted.split("."))
        if not _known_key(parts):
            raise KeyError(f"no configuration key {dotted!r}")
        for end in range(len(parts), 0, -1):
            found = self.sources.get(parts[:end])
            if found is not None:
                return found
        inside = [source for path, source in self.sources.items() if path[: len(parts)] == parts]
        if inside:
            order = [str(path) for path in self.layers]
            return max(inside, key=lambda source: order.index(source) if source in order else -1)
        return DEFAULT_SOURCE


def load_config(
    root: Path | None,
    *,
    config_home: Path | None = None,
    texts: Mapping[Path, str] | None = None,
) -> LoadedConfig:
    """Read the global layer, and the project and local layers when ``root`` is given.

    Missing files are fine (defaults apply); anything else wrong raises :class:`ConfigError`
    located in the file where it was written. ``texts``: a layer's file read from this text
    instead of the disk (an edit checked whole before it is written, ``config.edit``).
    """
    paths = layer_paths(root, config_home)
    replaced = texts or {}
    read = [layer for layer in (_read(path, replaced.get(path)) for path in paths) if layer]
    for layer in read:
        _validate_layer(layer)
    merged: dict[str, Any] = {"role": [dict(role) for role in BUILTIN_ROLES]}
    sources: dict[tuple[str, ...], str] = {}
    for layer in read:
        _merge(merged, layer.data, str(layer.path), sources)
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:  # a rule about the whole: locate it where the value came from
        raise ConfigError(
            [_merged_problem(err, merged, sources, read) for err in exc.errors()]
        ) from None
    return LoadedConfig(config, [layer.path for layer in read], sources, root)


# -- one layer ---------------------------------------------------------------------------------


@dataclass
class _Layer:
    path: Path
    text: str
    data: dict[str, Any]
    _positions: dict[KeyPath, Position] | None = None

    def problem(self, path: KeyPath, message: str, hint: str = "") -> ConfigProblem:
        if self._positions is None:
            self._positions = key_positions(self.text)
        where = locate(self._positions, path)
        return ConfigProblem(
            self.path, where.line, where.col, label(path, self.data), message, hint
        )


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)$")


def _read(path: Path, text: str | None = None) -> _Layer | None:
    """The layer's text and data, None when the file does not exist.

    A link to nothing is refused rather than read as "no configuration"; a UTF-8 byte order
    mark is skipped; nesting deeper than ``MAX_TOML_DEPTH`` is refused before parsing.
    ``text``: what the file would hold, read instead of it.
    """
    try:
        raw = path.read_bytes() if text is None else text.encode()
    except (FileNotFoundError, NotADirectoryError):
        if path.is_symlink():
            raise ConfigError(
                [
                    ConfigProblem(
                        path,
                        1,
                        1,
                        "",
                        f"is a symbolic link to {os.readlink(path)}, which does not exist",
                    )
                ],
                f"point {path} at an existing file, or remove the link",
            ) from None
        return None
    except OSError as exc:
        raise ConfigError(
            [ConfigProblem(path, 1, 1, "", f"cannot be read: {exc.strerror or exc}")],
            f"make {path} a readable file, or remove it",
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            [ConfigProblem(path, line, col, "", "is not UTF-8 text (TOML files are UTF-8)")],
            f"save {path} as UTF-8",
        ) from None
    text = text.removeprefix("\ufeff")  # editors on Windows write a byte order mark
    deep = too_deep_at(text)
    if deep is not None:
        raise _too_deep(path, text, deep)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # the scan above should have refused it; never a traceback
        raise _too_deep(path, text, 0) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line, col = 1, 1
        if at := _TOML_AT.search(message):
            line, col = int(at.group(1)), int(at.group(2))
            message = message[: at.start()]
        elif end := _TOML_AT_END.search(message):
            line = text.count("\n") + 1
            col = len(text) - (text.rfind("\n") + 1) + 1
            message = message[: end.start()]
        raise ConfigError(
            [ConfigProblem(path, line, col, "", f"invalid TOML: {message}")],
            f"fix the syntax of {path} at that spot (https://toml.io describes TOML)",
        ) from None
    layer = _Layer(path, text, data)
    nested = deepest_path(data)
    if nested is not None:
        problem = layer.problem(nested, f"nests deeper than {MAX_TOML_DEPTH} levels")
        raise ConfigError([problem], f"flatten that value in {path}")
    return layer


def _too_deep(path: Path, text: str, index: int) -> ConfigError:
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    message = f"arrays and inline tables nest deeper than {MAX_TOML_DEPTH} levels here"
    return ConfigError(
        [ConfigProblem(path, line, col, "", message)],
        f"flatten that value in {path}; no caesar setting nests more than a few levels",
    )


def _validate_layer(layer: _Layer) -> None:
    """One layer alone must be a valid configuration: every entry whole, every key known."""
    problems = [layer.problem(path, message) for path, message in duplicate_entries(layer.data)]
    try:
        Config.model_validate(layer.data)
    except ValidationError as exc:
        for err in exc.errors():
            if err["type"] == "duplicate_entry":
                continue  # reported above, with the entry's position
            path, message, hint = describe(err)
            problems.append(layer.problem(path, message, hint))
    if problems:
        raise ConfigError(sorted(problems, key=lambda problem: (problem.line, problem.col)))


# -- merging -----------------------------------------------------------------------------------


def _merge(
    base: dict[str, Any],
    layer: Mapping[str, Any],
    source: str,
    sources: dict[tuple[str, ...], str],
    prefix: tuple[str, ...] = (),
) -> None:
    for key, value in layer.items():
        path = (*prefix, key)
        if not prefix and key in KEYED:
            _merge_entries(base.setdefault(key, []), value, key, source, sources)
        elif isinstance(value, dict):
            target = base.get(key)
            if not isinstance(target, dict):
                target = base[key] = {}
            _merge(target, value, source, sources, path)
        else:
            base[key] = copy.deepcopy(value)
            sources[path] = source


def _merge_entries(
    current: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    kind: str,
    source: str,
    sources: dict[tuple[str, ...], str],
) -> None:
    key = KEYED[kind]
    where = {entry[key]: index for index, entry in enumerate(current)}
    for entry in entries:
        name = entry[key]
        if name in where:
            current[where[name]] = copy.deepcopy(entry)
        else:
            where[name] = len(current)
            current.append(copy.deepcopy(entry))
        sources[(kind, name)] = source  # entries come whole from one layer: no deeper keys


def _merged_problem(
    err: ErrorDetails,
    merged: dict[str, Any],
    sources: Mapping[tuple[str, ...], str],
    read: list[_Layer],
) -> ConfigProblem:
    """Locate an error of the merged whole in the file that set the offending value."""
    path, message, hint = describe(err)
    local: KeyPath = path
    dotted: tuple[str, ...] = tuple(part for part in path if isinstance(part, str))
    kind = path[0] if path else None
    if isinstance(kind, str) and kind in KEYED and len(path) > 1 and isinstance(path[1], int):
        name = merged[kind][path[1]][KEYED[kind]]
        dotted = (kind, name)
    source = next(
        (sources[dotted[:end]] for end in range(len(dotted), 0, -1) if dotted[:end] in sources),
        None,
    )
    layer = next((layer for layer in read if str(layer.path) == source), None)
    if layer is None:
        return ConfigProblem(None, 1, 1, label(path, merged), message, hint)
    if isinstance(kind, str) and kind in KEYED and len(dotted) == 2:
        entries = layer.data.get(kind, [])
        index = next(i for i, entry in enumerate(entries) if entry.get(KEYED[kind]) == dotted[1])
        local = (kind, index, *path[2:])
    return layer.problem(local, message, hint)


def _known_key(parts: tuple[str, ...]) -> bool:
    """Whether ``parts`` names a key of the schema (see :meth:`LoadedConfig.source_of`).

    Entry ids and model keys are open-ended (a built-in agent has no entry, yet asking where
    ``agent.codex`` comes from is fair: "default"); section and field names are not.
    """
    head, rest = parts[0], parts[1:]
    if head in ("policy", "worktree", "bridge", "review"):
        return not rest or (len(rest) == 1 and rest[0] in known_keys((head,)))
    if head == "models":
        return len(rest) <= 1
    if head == "watch":
        if rest[:1] == ("keys",):
            return len(rest) <= 2
        return not rest or (len(rest) == 1 and rest[0] in known_keys((head,)))
    if head in KEYED:
        return len(rest) <= 1 or (len(rest) == 2 and rest[1] in known_keys((head,)))
    return False
