"""The one model base every protocol document and sub-object shares."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


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
