"""Where the three configuration layers live, whether or not they exist. Stdlib only.

Apart from :mod:`caesar_core.config.layers` (which reads and validates them with pydantic) so
that a hot path can ask whether any layer exists at all without loading pydantic: the
bridge's begin (:func:`caesar_core.bridge.policy.settings`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from caesar_core.layout import CAESAR_DIR

Layer = Literal["global", "project", "local"]
LAYERS: tuple[Layer, ...] = ("global", "project", "local")


def xdg_config_home(override: Path | None = None) -> Path:
    """``$XDG_CONFIG_HOME``, else ``~/.config`` (a relative XDG value is ignored, per spec)."""
    if override is not None:
        return override
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg)
    return Path.home() / ".config"


def layer_path(root: Path | None, layer: Layer, config_home: Path | None = None) -> Path:
    """Where ``layer``'s file lives (whether or not it exists)."""
    if layer == "global":
        return xdg_config_home(config_home) / "caesar" / "config.toml"
    if root is None:
        raise ValueError(f"the {layer} layer belongs to a project: pass its root")
    name = "config.toml" if layer == "project" else "config.local.toml"
    return root / CAESAR_DIR / name


def layer_paths(root: Path | None, config_home: Path | None = None) -> list[Path]:
    """The files :func:`caesar_core.config.layers.load_config` reads, least specific first:
    the global layer, and the project's two when ``root`` is given."""
    return [layer_path(root, layer, config_home) for layer in LAYERS if root or layer == "global"]


def no_layer_exists(paths: list[Path]) -> bool:
    """True when not one of ``paths`` is there, not even as a link to nothing: the case in
    which ``load_config`` reads no file and the configuration is the defaults."""
    for path in paths:
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return False  # unreadable: load_config says why
        return False
    return True
