"""The one model base every protocol document and sub-object shares."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


def _no_pydantic_plugins() -> None:
    """pydantic's plugins left out of caesar's own process, before its first model is built.

    The first validator pydantic builds asks for its plugins: it reads the entry points of
    every installed distribution (``importlib.metadata``, ~4 ms for a few dozen), and hands
    every document it then validates to each plugin found. caesar uses none, and what it
    validates is what agents wrote, for no third party to see. ``PYDANTIC_DISABLE_PLUGINS``
    would do the same but is inherited by every agent and check caesar starts; this sets
    the loader's cache to "no plugins" in this process alone. Nothing is changed if pydantic
    has already loaded plugins, or no longer has that cache (a renamed attribute): then
    pydantic does as it always did.
    """
    try:
        from pydantic.plugin import _loader
    except ImportError:
        return
    if "_plugins" in vars(_loader) and _loader._plugins is None:
        _loader._plugins = {}


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
