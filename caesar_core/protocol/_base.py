"""The one model base every protocol document and sub-object shares."""

from __future__ import annotations

import sys
import types
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

LOADER = "pydantic.plugin._loader"
"""pydantic's plugin loader, the module whose ``get_plugins`` every new validator calls."""


def _no_pydantic_plugins() -> None:
    """pydantic's plugins left out of caesar's own process, before its first model is built.

    The first validator pydantic builds asks its plugin loader for plugins: the loader imports
    ``importlib.metadata`` (~20 ms with what it brings: email, zipfile, csv), reads the entry
    points of every installed distribution, and hands every document validated from then on to
    each plugin found. caesar uses none, and what it validates is what agents wrote, for no
    third party to see. ``PYDANTIC_DISABLE_PLUGINS`` would skip the scan, not the import, and
    is inherited by every agent and check caesar starts. So, in this process alone:

    - loader not imported yet: :class:`_NoPlugins` stands in for it, with no plugins; a name
      it does not know (a pydantic that asks the loader for more) loads the real loader then,
      with its cache set to "no plugins", and answers from it;
    - loader already imported with nothing loaded: its cache is set to "no plugins";
    - plugins already loaded, or a cache under another name: left as pydantic has them.
    """
    loader = sys.modules.get(LOADER)
    if loader is None:
        sys.modules[LOADER] = _NoPlugins(LOADER)
    elif "_plugins" in vars(loader) and vars(loader)["_plugins"] is None:
        loader._plugins = {}  # type: ignore[attr-defined]


class _NoPlugins(types.ModuleType):
    """Stands in for ``pydantic.plugin._loader`` (see :func:`_no_pydantic_plugins`)."""

    _plugins: ClassVar[dict[str, Any]] = {}

    @staticmethod
    def get_plugins() -> tuple[()]:
        return ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            # What the import system asks of any module (``__path__``: is it a package?).
            raise AttributeError(name)
        if sys.modules.get(LOADER) is self:
            del sys.modules[LOADER]
        import importlib

        real = importlib.import_module(LOADER)
        _no_pydantic_plugins()
        return getattr(real, name)


_no_pydantic_plugins()


class ProtocolModel(BaseModel):
    """Tolerant on read, exact on write.

    ``extra="allow"`` keeps fields a newer writer added, so an older reader neither breaks nor
    drops them when it rewrites the document. Explicit ``null`` in optional fields is handled
    by :func:`caesar_core.protocol.parse.parse` rather than by a model validator here: a
    Python-level validator would halve the speed of every event read to serve a rare case.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    def to_json_dict(self) -> dict[str, Any]:
        """The document as written to disk: JSON types, absent optionals left out."""
        return self.model_dump(mode="json", exclude_none=True)

    def to_json_bytes(self) -> bytes:
        """One compact line of JSON, absent optionals left out."""
        return self.model_dump_json(exclude_none=True).encode()
