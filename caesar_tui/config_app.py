"""``caesar config``: browse and edit the configuration, one layer at a time.

The app holds nothing but the screen (:class:`~caesar_tui.screens.config.ConfigScreen`) and
the keys that work everywhere; what is shown and written is :mod:`caesar_tui.config_data`'s,
the same edits the ``policy``, ``agents`` and ``role`` commands make.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from caesar_tui.config_data import read_settings
from caesar_tui.screens.config import ConfigScreen, Reader
from caesar_tui.workers import WorkerFailures


class ConfigApp(WorkerFailures, App[None]):
    TITLE = "caesar config"
    CSS_PATH = "config.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def __init__(
        self, root: Path, *, config_home: Path | None = None, read: Reader = read_settings
    ) -> None:
        """Args:
        root: The project.
        config_home: Where the global layer lives (default: ``$XDG_CONFIG_HOME``).
        read: Reads what is shown (tests give one that probes no version).
        """
        super().__init__()
        self.config_screen = ConfigScreen(root, config_home=config_home, read=read)

    def get_default_screen(self) -> ConfigScreen:
        return self.config_screen
