"""Where each effective value came from: the default, or the global, project or local layer.

:meth:`LoadedConfig.source_of` already knows the file that set a key (``layers``); this
module names that file's layer, so ``caesar policy show``, ``caesar role show`` and ``caesar
config`` can say "project" and where that is, and a refusal can say which layer to edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from caesar_core.config.layers import DEFAULT_SOURCE, LoadedConfig
from caesar_core.config.layers import _read as read_layer
from caesar_core.config.paths import LAYERS, Layer, layer_path
from caesar_core.config.problems import KEYED

Origin = Literal["default", "global", "project", "local"]
FLAGS: Mapping[Layer, str] = {"global": "--global", "project": "", "local": "--local"}
"""The option of the editing commands that targets a layer (the project needs none)."""


@dataclass(frozen=True)
class Setting:
    """One effective value and where it came from."""

    key: str
    """Dotted, as written in a file: ``policy.denied``."""
    value: Any
    """As TOML would hold it (a duration as ``"10m"``, a mode as ``"write"``)."""
    origin: Origin
    path: Path | None
    """The file that set it; None for a default."""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": self.value,
            "origin": self.origin,
            "path": None if self.path is None else str(self.path),
        }


def layer_paths(root: Path | None, config_home: Path | None = None) -> dict[Layer, Path]:
    """Each layer's file (whether or not it exists); a project's layers only with a root."""
    return {
        layer: layer_path(root, layer, config_home)
        for layer in LAYERS
        if root is not None or layer == "global"
    }


def origin_of(
    loaded: LoadedConfig, dotted: str, config_home: Path | None = None
) -> tuple[Origin, Path | None]:
    """The layer that set ``dotted`` (see :meth:`LoadedConfig.source_of`) and its file."""
    source = loaded.source_of(dotted)
    if source == DEFAULT_SOURCE:
        return "default", None
    for layer, path in layer_paths(loaded.root, config_home).items():
        if str(path) == source:
            return layer, path
    return "default", None  # not reached: every source is one of the layers' files


def section_settings(
    loaded: LoadedConfig, section: str, config_home: Path | None = None
) -> list[Setting]:
    """Every key of a table section (``policy``), its effective value and its origin; keys
    the schema gains are listed without a change here."""
    values = getattr(loaded.config, section).model_dump(mode="json", by_alias=True)
    settings = []
    for key, value in values.items():
        origin, path = origin_of(loaded, f"{section}.{key}", config_home)
        settings.append(Setting(f"{section}.{key}", value, origin, path))
    return settings


def declaring_layer(
    loaded: LoadedConfig, kind: str, name: str, config_home: Path | None = None
) -> Origin:
    """Which layer's ``[[kind]]`` entry named ``name`` is in effect (``default``: a built-in
    one, or none)."""
    return origin_of(loaded, f"{kind}.{name}", config_home)[0]


def layers_declaring(
    root: Path | None, kind: str, name: str, config_home: Path | None = None
) -> list[Layer]:
    """Every layer whose file has a ``[[kind]]`` entry named ``name``, least specific first
    (the loader reads each file: one it refuses raises its located error)."""
    found: list[Layer] = []
    for layer, path in layer_paths(root, config_home).items():
        read = read_layer(path)
        entries = [] if read is None else read.data.get(kind, [])
        if isinstance(entries, list) and any(
            isinstance(entry, dict) and entry.get(KEYED[kind]) == name for entry in entries
        ):
            found.append(layer)
    return found


def layers_setting(
    root: Path | None, key: tuple[str, ...], config_home: Path | None = None
) -> list[Layer]:
    """Every layer whose file sets ``key`` (``("policy", "denied")``), least specific first."""
    found: list[Layer] = []
    for layer, path in layer_paths(root, config_home).items():
        read = read_layer(path)
        node: Any = None if read is None else read.data
        for part in key:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            found.append(layer)
    return found


def describe_origin(origin: Origin) -> str:
    """``the project layer (.caesar/config.toml)``-style words for a refusal."""
    if origin == "default":
        return "caesar's defaults"
    return f"the {origin} layer"
