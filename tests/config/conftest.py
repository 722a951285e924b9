from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from caesar_core.config import Layer, LoadedConfig, layer_path, load_config


@dataclass
class Layers:
    """A project root and a config home in tmp_path, with a writer per layer."""

    root: Path
    home: Path

    def path(self, layer: Layer) -> Path:
        return layer_path(self.root, layer, self.home)

    def write(self, layer: Layer, text: str) -> Path:
        path = self.path(layer)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def load(self) -> LoadedConfig:
        return load_config(self.root, config_home=self.home)


@pytest.fixture
def layers(tmp_path: Path) -> Layers:
    root = tmp_path / "project"
    root.mkdir()
    return Layers(root=root, home=tmp_path / "xdg")
